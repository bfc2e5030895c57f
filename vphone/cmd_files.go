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

	"tandem/vphone/shell"
)

// The shell's file and text commands: true/false, id, whoami, echo, sleep,
// cat, rm, ls, mkdir, grep, head, tail, wc.

func cmdTrue(*Phone, *shell.IO, []string) int  { return 0 }
func cmdFalse(*Phone, *shell.IO, []string) int { return 1 }

func cmdID(_ *Phone, c *shell.IO, _ []string) int {
	fmt.Fprintln(c.Out, "uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),1015(sdcard_rw),3003(inet) context=u:r:shell:s0")
	return 0
}

func cmdWhoami(_ *Phone, c *shell.IO, _ []string) int {
	fmt.Fprintln(c.Out, "shell")
	return 0
}

func cmdEcho(_ *Phone, c *shell.IO, args []string) int {
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
	io.WriteString(c.Out, s)
	return 0
}

func cmdSleep(_ *Phone, c *shell.IO, args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(c.Err, "sleep: Need 1 argument")
		return 1
	}
	sec, err := strconv.ParseFloat(args[0], 64)
	if err != nil || sec < 0 || math.IsInf(sec, 0) {
		fmt.Fprintf(c.Err, "sleep: bad duration '%s'\n", args[0])
		return 1
	}
	t := time.NewTimer(time.Duration(sec * float64(time.Second)))
	defer t.Stop()
	select {
	case <-t.C:
		return 0
	case <-c.Ctx.Done():
		return 130
	}
}

func cmdCat(p *Phone, c *shell.IO, args []string) int {
	if len(args) == 0 || len(args) == 1 && args[0] == "-" {
		io.Copy(c.Out, c.In)
		return 0
	}
	status := 0
	for _, a := range args {
		data, err := p.fs.read(a)
		if err != nil {
			fmt.Fprintf(c.Err, "cat: %s: %s\n", a, errText(err))
			status = 1
			continue
		}
		c.Out.Write(data)
	}
	return status
}

func cmdRm(p *Phone, c *shell.IO, args []string) int {
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
		fmt.Fprintln(c.Err, "rm: Needs 1 argument")
		return 1
	}
	for _, f := range files {
		if err := p.fs.remove(f); err != nil && !(force && !p.fs.isDir(f)) {
			fmt.Fprintf(c.Err, "rm: %s: %s\n", f, errText(err))
			status = 1
		}
	}
	return status
}

func cmdLs(p *Phone, c *shell.IO, args []string) int {
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
			fmt.Fprintf(c.Err, "ls: %s: %s\n", pa, errText(err))
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
				fmt.Fprintf(c.Out, "%s 1 shell shell %d %s %s\n", kind, e.size, e.mtime.Format("2006-01-02 15:04"), e.name)
			} else {
				fmt.Fprintln(c.Out, e.name)
			}
		}
	}
	return status
}

func cmdMkdir(p *Phone, _ *shell.IO, args []string) int {
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

func cmdGrep(p *Phone, c *shell.IO, args []string) int {
	g, bad := parseGrep(args)
	if bad != 0 {
		fmt.Fprintf(c.Err, "grep: Unknown option '%c'\n", bad)
		return 2
	}
	if len(g.patterns) == 0 {
		fmt.Fprintln(c.Err, "grep: Need 1 argument")
		return 2
	}
	re, err := g.regexp()
	if err != nil {
		fmt.Fprintf(c.Err, "grep: bad regex '%s': %v\n", strings.Join(g.patterns, " "), err)
		return 2
	}
	var input []byte
	if len(g.files) == 0 {
		input, _ = io.ReadAll(c.In)
	} else {
		for _, f := range g.files {
			data, err := p.fs.read(f)
			if err != nil {
				fmt.Fprintf(c.Err, "grep: %s: %s\n", f, errText(err))
				continue
			}
			input = append(input, data...)
		}
	}
	if g.match(c, re, input) == 0 {
		return 1
	}
	return 0
}

// grepArgs are toybox grep's options Tandem's callers use.
type grepArgs struct {
	ext, fixed, icase, only, invert, count, quiet, word bool
	patterns, files                                     []string
}

// parseGrep reads grep's arguments; bad is an unknown option letter.
func parseGrep(args []string) (g grepArgs, bad rune) {
	flags := map[rune]*bool{'E': &g.ext, 'F': &g.fixed, 'i': &g.icase, 'o': &g.only, 'v': &g.invert, 'c': &g.count, 'q': &g.quiet, 'w': &g.word}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-e" && i+1 < len(args) {
			g.patterns = append(g.patterns, args[i+1])
			i++
			continue
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 && a != "--" {
			for _, f := range a[1:] {
				v, ok := flags[f]
				if !ok {
					return g, f
				}
				*v = true
			}
			continue
		}
		if len(g.patterns) == 0 {
			g.patterns = append(g.patterns, a)
		} else {
			g.files = append(g.files, a)
		}
	}
	return g, 0
}

// regexp is the patterns as one Go expression (basic regular expressions
// translated, fixed strings quoted, words bounded).
func (g grepArgs) regexp() (*regexp.Regexp, error) {
	var alts []string
	for _, pat := range g.patterns {
		switch {
		case g.fixed:
			pat = regexp.QuoteMeta(pat)
		case !g.ext:
			pat = breToRE(pat)
		}
		if g.word {
			pat = `\b(?:` + pat + `)\b`
		}
		alts = append(alts, "(?:"+pat+")")
	}
	expr := strings.Join(alts, "|")
	if g.icase {
		expr = "(?i)" + expr
	}
	return regexp.Compile(expr)
}

// match prints the matching lines of input as the options say and returns
// how many matched.
func (g grepArgs) match(c *shell.IO, re *regexp.Regexp, input []byte) int {
	matches := 0
	sc := bufio.NewScanner(bytes.NewReader(input))
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if re.MatchString(line) == g.invert {
			continue
		}
		matches++
		switch {
		case g.quiet || g.count:
		case g.only && !g.invert:
			for _, m := range re.FindAllString(line, -1) {
				if m != "" {
					fmt.Fprintln(c.Out, m)
				}
			}
		default:
			fmt.Fprintln(c.Out, line)
		}
	}
	if g.count {
		fmt.Fprintln(c.Out, matches)
	}
	return matches
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

func readInput(p *Phone, c *shell.IO, files []string) ([]string, error) {
	var data []byte
	if len(files) == 0 {
		data, _ = io.ReadAll(c.In)
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

func cmdHead(p *Phone, c *shell.IO, args []string) int { return headTail(p, c, args, "head") }
func cmdTail(p *Phone, c *shell.IO, args []string) int { return headTail(p, c, args, "tail") }

func headTail(p *Phone, c *shell.IO, args []string, name string) int {
	n, files, err := lineCount(args)
	if err != nil {
		fmt.Fprintf(c.Err, "%s: bad -n\n", name)
		return 1
	}
	lines, err := readInput(p, c, files)
	if err != nil {
		fmt.Fprintf(c.Err, "%s: %v\n", name, err)
		return 1
	}
	if name == "head" {
		lines = lines[:min(n, len(lines))]
	} else {
		lines = lines[max(0, len(lines)-n):]
	}
	for _, l := range lines {
		fmt.Fprintln(c.Out, l)
	}
	return 0
}

func cmdWc(p *Phone, c *shell.IO, args []string) int {
	var files []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			files = append(files, a)
		}
	}
	lines, err := readInput(p, c, files)
	if err != nil {
		fmt.Fprintf(c.Err, "wc: %v\n", err)
		return 1
	}
	fmt.Fprintln(c.Out, len(lines))
	return 0
}
