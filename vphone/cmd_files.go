package vphone

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The shell's file and text commands: true/false, id, whoami, echo, sleep,
// cat, rm, ls, mkdir, grep, head, tail, wc.

func cmdTrue(*Phone, *cmdIO, []string) int  { return 0 }
func cmdFalse(*Phone, *cmdIO, []string) int { return 1 }

func cmdID(_ *Phone, c *cmdIO, _ []string) int {
	fmt.Fprintln(c.out, "uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),1015(sdcard_rw),3003(inet) context=u:r:shell:s0")
	return 0
}

func cmdWhoami(_ *Phone, c *cmdIO, _ []string) int {
	fmt.Fprintln(c.out, "shell")
	return 0
}

func cmdEcho(_ *Phone, c *cmdIO, args []string) int {
	nl, esc := true, false
	for len(args) > 0 && (args[0] == "-n" || args[0] == "-e" || args[0] == "-ne" || args[0] == "-en") {
		nl = nl && !strings.Contains(args[0], "n")
		esc = esc || strings.Contains(args[0], "e")
		args = args[1:]
	}
	s := strings.Join(args, " ")
	if esc {
		s = strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\\`, `\`).Replace(s)
	}
	if nl {
		s += "\n"
	}
	io.WriteString(c.out, s)
	return 0
}

func cmdSleep(_ *Phone, c *cmdIO, args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(c.err, "sleep: Need 1 argument")
		return 1
	}
	sec, err := strconv.ParseFloat(args[0], 64)
	if err != nil || sec < 0 || math.IsInf(sec, 0) {
		fmt.Fprintf(c.err, "sleep: bad duration '%s'\n", args[0])
		return 1
	}
	t := time.NewTimer(time.Duration(sec * float64(time.Second)))
	defer t.Stop()
	select {
	case <-t.C:
		return 0
	case <-c.ctx.Done():
		return 130
	}
}

func cmdCat(p *Phone, c *cmdIO, args []string) int {
	if len(args) == 0 || len(args) == 1 && args[0] == "-" {
		io.Copy(c.out, c.in)
		return 0
	}
	status := 0
	for _, a := range args {
		data, err := p.fs.read(a)
		if err != nil {
			fmt.Fprintf(c.err, "cat: %s: %s\n", a, errText(err))
			status = 1
			continue
		}
		c.out.Write(data)
	}
	return status
}

func cmdRm(p *Phone, c *cmdIO, args []string) int {
	force, status := false, 0
	var files []string
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "-") && len(a) > 1:
			force = force || strings.Contains(a, "f")
		default:
			files = append(files, a)
		}
	}
	if len(files) == 0 && !force {
		fmt.Fprintln(c.err, "rm: Needs 1 argument")
		return 1
	}
	for _, f := range files {
		if err := p.fs.remove(f); err != nil && !(force && !p.fs.isDir(f)) {
			fmt.Fprintf(c.err, "rm: %s: %s\n", f, errText(err))
			status = 1
		}
	}
	return status
}

func cmdLs(p *Phone, c *cmdIO, args []string) int {
	long := false
	var paths []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			long = long || strings.Contains(a, "l")
			continue
		}
		paths = append(paths, a)
	}
	if len(paths) == 0 {
		paths = []string{"/"}
	}
	status := 0
	for _, pa := range paths {
		st, err := p.fs.stat(pa)
		if err != nil {
			fmt.Fprintf(c.err, "ls: %s: %s\n", pa, errText(err))
			status = 1
			continue
		}
		entries := []fileInfo{st}
		if st.mode&0o40000 != 0 {
			entries, _ = p.fs.list(pa)
		} else {
			entries[0].name = pa
		}
		for _, e := range entries {
			if long {
				kind := "-rw-rw----"
				if e.mode&0o40000 != 0 {
					kind = "drwxrwx--x"
				}
				fmt.Fprintf(c.out, "%s 1 shell shell %d %s %s\n", kind, e.size, e.mtime.Format("2006-01-02 15:04"), e.name)
			} else {
				fmt.Fprintln(c.out, e.name)
			}
		}
	}
	return status
}

func cmdMkdir(p *Phone, _ *cmdIO, args []string) int {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			p.fs.mkdirAll(a)
		}
	}
	return 0
}

// breToRE turns a basic regular expression into Go syntax: in BRE,
// ( ) { } | + ? are literal and their backslashed forms are operators.
func breToRE(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch == '\\' && i+1 < len(s) {
			n := s[i+1]
			if strings.IndexByte("(){}|+?", n) >= 0 {
				b.WriteByte(n)
			} else {
				b.WriteByte('\\')
				b.WriteByte(n)
			}
			i++
			continue
		}
		if strings.IndexByte("(){}|+?", ch) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(ch)
	}
	return b.String()
}

func cmdGrep(p *Phone, c *cmdIO, args []string) int {
	var ext, fixed, icase, only, invert, count, quiet, word bool
	var patterns, files []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-e" && i+1 < len(args) {
			patterns = append(patterns, args[i+1])
			i++
			continue
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 && a != "--" {
			for _, f := range a[1:] {
				switch f {
				case 'E':
					ext = true
				case 'F':
					fixed = true
				case 'i':
					icase = true
				case 'o':
					only = true
				case 'v':
					invert = true
				case 'c':
					count = true
				case 'q':
					quiet = true
				case 'w':
					word = true
				default:
					fmt.Fprintf(c.err, "grep: Unknown option '%c'\n", f)
					return 2
				}
			}
			continue
		}
		if len(patterns) == 0 {
			patterns = append(patterns, a)
		} else {
			files = append(files, a)
		}
	}
	if len(patterns) == 0 {
		fmt.Fprintln(c.err, "grep: Need 1 argument")
		return 2
	}
	var alts []string
	for _, pat := range patterns {
		switch {
		case fixed:
			pat = regexp.QuoteMeta(pat)
		case !ext:
			pat = breToRE(pat)
		}
		if word {
			pat = `\b(?:` + pat + `)\b`
		}
		alts = append(alts, "(?:"+pat+")")
	}
	expr := strings.Join(alts, "|")
	if icase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		fmt.Fprintf(c.err, "grep: bad regex '%s': %v\n", strings.Join(patterns, " "), err)
		return 2
	}
	var input []byte
	if len(files) == 0 {
		input, _ = io.ReadAll(c.in)
	} else {
		for _, f := range files {
			data, err := p.fs.read(f)
			if err != nil {
				fmt.Fprintf(c.err, "grep: %s: %s\n", f, errText(err))
				continue
			}
			input = append(input, data...)
		}
	}
	matches := 0
	sc := bufio.NewScanner(bytes.NewReader(input))
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		hit := re.MatchString(line)
		if hit == invert {
			continue
		}
		matches++
		switch {
		case quiet || count:
		case only && !invert:
			for _, m := range re.FindAllString(line, -1) {
				if m != "" {
					fmt.Fprintln(c.out, m)
				}
			}
		default:
			fmt.Fprintln(c.out, line)
		}
	}
	if count {
		fmt.Fprintln(c.out, matches)
	}
	if matches == 0 {
		return 1
	}
	return 0
}

func lineCount(args []string) (int, []string, error) {
	n := 10
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-n" && i+1 < len(args):
			v, err := strconv.Atoi(args[i+1])
			if err != nil {
				return 0, nil, err
			}
			n = v
			i++
		case strings.HasPrefix(a, "-") && len(a) > 1:
			v, err := strconv.Atoi(strings.TrimPrefix(strings.TrimPrefix(a, "-n"), "-"))
			if err != nil {
				return 0, nil, err
			}
			n = v
		default:
			rest = append(rest, a)
		}
	}
	return n, rest, nil
}

func readInput(p *Phone, c *cmdIO, files []string) ([]string, error) {
	var data []byte
	if len(files) == 0 {
		data, _ = io.ReadAll(c.in)
	}
	for _, f := range files {
		d, err := p.fs.read(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %s", f, errText(err))
		}
		data = append(data, d...)
	}
	s := strings.TrimSuffix(string(data), "\n")
	if s == "" {
		return nil, nil
	}
	return strings.Split(s, "\n"), nil
}

func cmdHead(p *Phone, c *cmdIO, args []string) int { return headTail(p, c, args, "head") }
func cmdTail(p *Phone, c *cmdIO, args []string) int { return headTail(p, c, args, "tail") }

func headTail(p *Phone, c *cmdIO, args []string, name string) int {
	n, files, err := lineCount(args)
	if err != nil {
		fmt.Fprintf(c.err, "%s: bad -n\n", name)
		return 1
	}
	lines, err := readInput(p, c, files)
	if err != nil {
		fmt.Fprintf(c.err, "%s: %v\n", name, err)
		return 1
	}
	if name == "head" {
		lines = lines[:min(n, len(lines))]
	} else {
		lines = lines[max(0, len(lines)-n):]
	}
	for _, l := range lines {
		fmt.Fprintln(c.out, l)
	}
	return 0
}

func cmdWc(p *Phone, c *cmdIO, args []string) int {
	var files []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			files = append(files, a)
		}
	}
	lines, err := readInput(p, c, files)
	if err != nil {
		fmt.Fprintf(c.err, "wc: %v\n", err)
		return 1
	}
	fmt.Fprintln(c.out, len(lines))
	return 0
}
