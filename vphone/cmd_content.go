package vphone

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"tandem/vphone/screens"
	"tandem/vphone/shell"
)

// cmdContent is Android's `content` tool over the apps' providers
// (screens.Model.Query and friends): query, insert, update and delete on
// content://PKG/TABLE, with --projection, --where (col=value joined by
// AND, values quoted with ' or bare) and --bind COL:TYPE:VALUE, printing
// rows as the tool does ("Row: 0 _id=1, name=…" or "No result found.").
func cmdContent(p *Phone, c *shell.IO, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(c.Err, "usage: content [subcommand] [options]\n  content query --uri <URI> [--projection <PROJECTION>] [--where <WHERE>]\n  content insert --uri <URI> --bind <BINDING> [--bind <BINDING>...]\n  content update --uri <URI> [--where <WHERE>] --bind <BINDING> [...]\n  content delete --uri <URI> [--where <WHERE>]")
		return 1
	}
	req, err := parseContent(args[1:])
	if err != nil {
		fmt.Fprintf(c.Err, "Error while accessing provider:%s\njava.lang.IllegalArgumentException: %v\n", req.uri, err)
		return 1
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch args[0] {
	case "query":
		rows, err := p.m.Query(req.pkg, req.table)
		if err != nil {
			return contentFail(c, err)
		}
		n := 0
		for _, r := range rows {
			if !req.where(r.Vals) {
				continue
			}
			cols := r.Cols
			if len(req.projection) > 0 {
				cols = req.projection
			}
			parts := make([]string, 0, len(cols))
			for _, col := range cols {
				v, ok := r.Vals[col]
				if !ok {
					v = "NULL"
				}
				parts = append(parts, col+"="+v)
			}
			fmt.Fprintf(c.Out, "Row: %d %s\n", n, strings.Join(parts, ", "))
			n++
		}
		if n == 0 {
			fmt.Fprintln(c.Out, "No result found.")
		}
		return 0
	case "insert":
		_, err = p.m.Insert(req.pkg, req.table, req.binds)
	case "update":
		_, err = p.m.Update(req.pkg, req.table, req.binds, req.where)
	case "delete":
		_, err = p.m.Delete(req.pkg, req.table, req.where)
	default:
		fmt.Fprintf(c.Err, "Unsupported operation: %s\n", args[0])
		return 1
	}
	if err != nil {
		return contentFail(c, err)
	}
	return 0
}

func contentFail(c *shell.IO, err error) int {
	var np screens.ErrNoProvider
	if errors.As(err, &np) {
		fmt.Fprintf(c.Err, "Error while accessing provider:%s\njava.lang.IllegalArgumentException: Unknown authority\n", np.URI)
		return 1
	}
	fmt.Fprintln(c.Err, err)
	return 1
}

type contentReq struct {
	uri, pkg, table string
	projection      []string
	conds           [][2]string
	binds           map[string]string
}

func (r contentReq) where(vals map[string]string) bool {
	for _, c := range r.conds {
		if vals[c[0]] != c[1] {
			return false
		}
	}
	return true
}

func parseContent(args []string) (contentReq, error) {
	r := contentReq{binds: map[string]string{}}
	for i := 0; i < len(args); i++ {
		flag := args[i]
		if i+1 >= len(args) {
			return r, fmt.Errorf("%s needs a value", flag)
		}
		v := args[i+1]
		i++
		switch flag {
		case "--uri":
			r.uri = v
		case "--user", "--sort":
		case "--projection":
			r.projection = strings.Split(v, ":")
		case "--where":
			conds, err := parseWhere(v)
			if err != nil {
				return r, err
			}
			r.conds = conds
		case "--bind":
			parts := strings.SplitN(v, ":", 3)
			if len(parts) != 3 {
				return r, fmt.Errorf("invalid binding %s", v)
			}
			r.binds[parts[0]] = parts[2]
		default:
			return r, fmt.Errorf("unsupported argument: %s", flag)
		}
	}
	rest, ok := strings.CutPrefix(r.uri, "content://")
	pkg, table, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 || pkg == "" || table == "" {
		return r, fmt.Errorf("invalid URI: %q", r.uri)
	}
	r.pkg, r.table = pkg, table
	return r, nil
}

// parseWhere reads col=value [AND col=value ...].
func parseWhere(s string) ([][2]string, error) {
	var out [][2]string
	for _, part := range splitAnd(s) {
		k, v, ok := strings.Cut(part, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return nil, fmt.Errorf("invalid where clause: %q", s)
		}
		if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
			v = strings.ReplaceAll(v[1:len(v)-1], "''", "'")
		} else if _, err := strconv.ParseFloat(v, 64); err != nil {
			return nil, fmt.Errorf("invalid where clause: %q", s)
		}
		out = append(out, [2]string{k, v})
	}
	return out, nil
}

// splitAnd splits on AND outside quotes.
func splitAnd(s string) []string {
	var parts []string
	in, start := false, 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\'':
			in = !in
		case !in && i+5 <= len(s) && strings.EqualFold(s[i:i+5], " AND "):
			parts = append(parts, s[start:i])
			start = i + 5
			i += 4
		}
	}
	return append(parts, s[start:])
}
