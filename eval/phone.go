package eval

import (
	"context"
	"fmt"
	"strings"
)

// What the set-ups write and the checks read on the phone, through adb as
// on a real phone.

// rows reads a provider's rows: content query's "Row: N col=val, …" lines,
// split at the columns it names (cols), since a value may hold ", ".
func rows(ctx context.Context, p Phone, uri string, cols ...string) ([]map[string]string, error) {
	out, err := p.Shell(ctx, "content query --uri "+uri)
	if err != nil {
		return nil, err
	}
	var res []map[string]string
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "Row: ") {
			continue
		}
		_, body, _ := strings.Cut(line[len("Row: "):], " ")
		res = append(res, splitRow(body, append([]string{"_id"}, cols...)))
	}
	return res, nil
}

// splitRow reads "a=1, b=x, y, c=2" knowing the columns a, b, c.
func splitRow(body string, cols []string) map[string]string {
	r := map[string]string{}
	type at struct {
		col string
		i   int
	}
	var marks []at
	for _, c := range cols {
		for _, pre := range []string{", " + c + "=", c + "="} {
			if pre == c+"=" && strings.HasPrefix(body, pre) {
				marks = append(marks, at{c, 0})
				break
			}
			if i := strings.Index(body, pre); i > 0 && pre[0] == ',' {
				marks = append(marks, at{c, i + 2})
				break
			}
		}
	}
	for k, m := range marks {
		end := len(body)
		for _, n := range marks {
			if n.i > m.i && n.i-2 < end {
				end = n.i - 2
			}
		}
		_ = k
		r[m.col] = body[m.i+len(m.col)+1 : end]
	}
	return r
}

// setting reads `settings get NS KEY`.
func setting(ctx context.Context, p Phone, ns, key string) (string, error) {
	out, err := p.Shell(ctx, "settings get "+ns+" "+key)
	return strings.TrimSpace(out), err
}

// quote is s as one sh word.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// insert is the content insert of one row.
func insert(uri string, kv ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "content insert --uri %s", uri)
	for i := 0; i+1 < len(kv); i += 2 {
		fmt.Fprintf(&b, " --bind %s", quote(kv[i]+":s:"+kv[i+1]))
	}
	return b.String()
}

// wipe is the content delete of every row.
func wipe(uri string) string { return "content delete --uri " + uri }

// has reports whether some row holds every col=value of want.
func has(rs []map[string]string, want map[string]string) bool {
	for _, r := range rs {
		ok := true
		for k, v := range want {
			if r[k] != v {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
