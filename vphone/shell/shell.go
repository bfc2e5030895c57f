// Package shell is the virtual phone's /system/bin/sh: enough of Android's
// mksh for what agents and drivers send — quoting, `;`, `&&`, `||`, pipes,
// redirections to files, $? and NAME=value before a command. It is apart
// from the phone because it is a language, not a phone: it knows no
// command and no file, only how a line runs; the phone hands it its
// commands (Exec) and its files (Files).
package shell

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// token is a word or an operator of a command line.
type token struct {
	op   string // "", ";", "&&", "||", "|", ">", ">>", "<", "2>", "2>>", "2>&1", ">&2"
	word string
}

// errSyntax is a command line the shell cannot parse.
var errSyntax = errors.New("syntax error")

// tokenize splits a command line; vars expands $NAME.
func tokenize(line string, vars func(string) string) ([]token, error) {
	l := &lexer{line: line, vars: vars}
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			l.flush()
			i++
		case c == '\n':
			l.flush()
			l.toks = append(l.toks, token{op: ";"})
			i++
		case c == '#' && !l.inWord:
			for i < len(line) && line[i] != '\n' {
				i++
			}
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("%w: unterminated quoted string", errSyntax)
			}
			l.cur.WriteString(line[i+1 : i+1+end])
			l.inWord = true
			i += end + 2
		case c == '"':
			var err error
			if i, err = l.doubleQuoted(i); err != nil {
				return nil, err
			}
		case c == '\\':
			if i+1 < len(line) {
				if line[i+1] != '\n' {
					l.cur.WriteByte(line[i+1])
					l.inWord = true
				}
				i += 2
			} else {
				i++
			}
		case c == '$':
			l.inWord = true
			i = l.expand(i)
		case c == ';' || c == '&' || c == '|' || c == '<' || c == '>':
			i = l.operator(i)
		default:
			l.cur.WriteByte(c)
			l.inWord = true
			i++
		}
	}
	l.flush()
	return l.toks, nil
}

// lexer is a command line being split: the tokens so far and the word
// being read.
type lexer struct {
	line   string
	vars   func(string) string
	toks   []token
	cur    strings.Builder
	inWord bool
}

// flush ends the word being read.
func (l *lexer) flush() {
	if l.inWord {
		l.toks = append(l.toks, token{word: l.cur.String()})
		l.cur.Reset()
		l.inWord = false
	}
}

// expand writes the variable at line[i] == '$' ($?, ${NAME}, $NAME; a
// lone $ is itself) and returns the index after its name.
func (l *lexer) expand(i int) int {
	line := l.line
	j := i + 1
	if j < len(line) && line[j] == '?' {
		l.cur.WriteString(l.vars("?"))
		return j + 1
	}
	if j < len(line) && line[j] == '{' {
		end := strings.IndexByte(line[j:], '}')
		if end < 0 {
			l.cur.WriteByte('$')
			return j
		}
		l.cur.WriteString(l.vars(line[j+1 : j+end]))
		return j + end + 1
	}
	k := j
	for k < len(line) && (line[k] == '_' || line[k] >= 'a' && line[k] <= 'z' || line[k] >= 'A' && line[k] <= 'Z' || k > j && line[k] >= '0' && line[k] <= '9') {
		k++
	}
	if k == j {
		l.cur.WriteByte('$')
		return j
	}
	l.cur.WriteString(l.vars(line[j:k]))
	return k
}

// doubleQuoted reads the "…" at line[i] (backslash escapes and variables
// inside) and returns the index after it.
func (l *lexer) doubleQuoted(i int) (int, error) {
	line := l.line
	l.inWord = true
	i++
	for i < len(line) {
		d := line[i]
		if d == '"' {
			return i + 1, nil
		}
		if d == '\\' && i+1 < len(line) && strings.IndexByte("$`\"\\\n", line[i+1]) >= 0 {
			l.cur.WriteByte(line[i+1])
			i += 2
			continue
		}
		if d == '$' {
			i = l.expand(i)
			continue
		}
		l.cur.WriteByte(d)
		i++
	}
	return i, fmt.Errorf("%w: unterminated quoted string", errSyntax)
}

// operator reads the operator at line[i] (;, &, &&, |, ||, a redirection,
// with "1>" and "2>" taking the digit before it) and returns the index
// after it.
func (l *lexer) operator(i int) int {
	line := l.line
	c := line[i]
	if (c == '>' || c == '<') && l.inWord && (l.cur.String() == "1" || l.cur.String() == "2") {
		fd := l.cur.String()
		l.cur.Reset()
		l.inWord = false
		op, n := redirOp(line[i:])
		if fd == "2" {
			op = "2" + op
		}
		l.toks = append(l.toks, token{op: op})
		return i + n
	}
	l.flush()
	switch {
	case strings.HasPrefix(line[i:], "&&"):
		l.toks = append(l.toks, token{op: "&&"})
		return i + 2
	case strings.HasPrefix(line[i:], "||"):
		l.toks = append(l.toks, token{op: "||"})
		return i + 2
	case c == ';' || c == '&':
		l.toks = append(l.toks, token{op: ";"})
		return i + 1
	case c == '|':
		l.toks = append(l.toks, token{op: "|"})
		return i + 1
	}
	op, n := redirOp(line[i:])
	l.toks = append(l.toks, token{op: op})
	return i + n
}

// redirOp reads a redirection operator at the start of s.
func redirOp(s string) (string, int) {
	for _, op := range []string{">&2", ">&1", ">>", ">", "<"} {
		if strings.HasPrefix(s, op) {
			return op, len(op)
		}
	}
	return s[:1], 1
}

// simple is one command with its redirections.
type simple struct {
	args                 []string
	out, errOut, in      string
	outAppend, errAppend bool
	errToOut, outToErr   bool
}

// pipeline is commands joined by |, and how it joins the next one.
type pipeline struct {
	cmds []simple
	next string // ";", "&&", "||" or "" at the end
}

func parse(toks []token) ([]pipeline, error) {
	var out []pipeline
	var pl pipeline
	var cmd simple
	endCmd := func(op string) error {
		if len(cmd.args) == 0 {
			return fmt.Errorf("%w: '%s' unexpected", errSyntax, op)
		}
		pl.cmds = append(pl.cmds, cmd)
		cmd = simple{}
		return nil
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch t.op {
		case "":
			cmd.args = append(cmd.args, t.word)
		case "|":
			if err := endCmd("|"); err != nil {
				return nil, err
			}
		case ";", "&&", "||":
			if len(cmd.args) == 0 && len(pl.cmds) == 0 && t.op == ";" {
				continue // empty command
			}
			if err := endCmd(t.op); err != nil {
				return nil, err
			}
			pl.next = t.op
			out = append(out, pl)
			pl = pipeline{}
		case "2>&1":
			cmd.errToOut = true
		case ">&2":
			cmd.outToErr = true
		case ">&1":
		default: // a redirection to a file
			if i+1 >= len(toks) || toks[i+1].op != "" {
				return nil, fmt.Errorf("%w: '%s' unexpected", errSyntax, t.op)
			}
			i++
			file := toks[i].word
			switch t.op {
			case ">":
				cmd.out, cmd.outAppend = file, false
			case ">>":
				cmd.out, cmd.outAppend = file, true
			case "<":
				cmd.in = file
			case "2>":
				cmd.errOut, cmd.errAppend = file, false
			case "2>>":
				cmd.errOut, cmd.errAppend = file, true
			}
		}
	}
	if len(cmd.args) > 0 {
		pl.cmds = append(pl.cmds, cmd)
	} else if len(pl.cmds) > 0 {
		return nil, fmt.Errorf("%w: unexpected end of line", errSyntax)
	}
	if len(pl.cmds) > 0 {
		out = append(out, pl)
	} else if len(out) > 0 && out[len(out)-1].next != ";" {
		return nil, fmt.Errorf("%w: unexpected end of line", errSyntax)
	}
	return out, nil
}

// statusMark stands for $? until the command that uses it runs.
const statusMark = "\x00status\x00"

// shell runs command lines against a phone.
// IO is one command's streams and surroundings.
type IO struct {
	Ctx  context.Context
	In   io.Reader
	Out  io.Writer
	Err  io.Writer
	Drop func()            // drops the connection the line came on (failure switch)
	Last bool              // Out is the stream itself, not a pipe or a file (screencap's mid-stream drop)
	Env  map[string]string // NAME=value words before the command
}

// Exec runs one command (args[0] its name) and returns its exit status.
type Exec func(c *IO, args []string) int

// Files are the files redirections read and write.
type Files interface {
	Read(path string) ([]byte, error)
	Write(path string, data []byte, appendTo bool) error
}

// Shell runs command lines on one connection.
type Shell struct {
	ctx    context.Context
	exec   Exec
	files  Files
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	drop   func()
	status int
}

// New is a shell whose commands run through exec on files; drop (may be
// nil) drops the connection.
func New(ctx context.Context, exec Exec, files Files, stdin io.Reader, stdout, stderr io.Writer, drop func()) *Shell {
	return &Shell{ctx: ctx, exec: exec, files: files, stdin: stdin, stdout: stdout, stderr: stderr, drop: drop}
}

func (sh *Shell) vars(name string) string {
	switch name {
	case "?":
		return statusMark // replaced when the command runs
	case "HOME":
		return "/"
	case "PATH":
		return "/product/bin:/apex/com.android.runtime/bin:/system/bin:/system/xbin:/odm/bin:/vendor/bin"
	case "ANDROID_DATA":
		return "/data"
	case "EXTERNAL_STORAGE":
		return "/sdcard"
	}
	return ""
}

// Run executes a command line and returns its exit status.
func (sh *Shell) Run(line string) int {
	toks, err := tokenize(line, sh.vars)
	if err == nil {
		var pls []pipeline
		pls, err = parse(toks)
		if err == nil {
			return sh.runList(pls)
		}
	}
	fmt.Fprintf(sh.stderr, "/system/bin/sh: %v\n", err)
	sh.status = 1
	return 1
}

func (sh *Shell) runList(pls []pipeline) int {
	skip := false
	for i, pl := range pls {
		if sh.ctx.Err() != nil {
			return 130
		}
		if !skip {
			sh.status = sh.runPipeline(pl)
		}
		skip = false
		if i < len(pls) {
			switch pl.next {
			case "&&":
				skip = sh.status != 0
			case "||":
				skip = sh.status == 0
			}
		}
	}
	return sh.status
}

func (sh *Shell) runPipeline(pl pipeline) int {
	var in io.Reader = sh.stdin
	status := 0
	for i, c := range pl.cmds {
		last := i == len(pl.cmds)-1
		var out io.Writer = sh.stdout
		var buf *bytes.Buffer
		if !last {
			buf = &bytes.Buffer{}
			out = buf
		}
		status = sh.runSimple(c, in, out, last)
		if buf != nil {
			in = buf
		}
	}
	return status
}

func (sh *Shell) runSimple(c simple, in io.Reader, out io.Writer, last bool) int {
	errW := sh.stderr
	var outBuf, errBuf *bytes.Buffer
	if c.in != "" {
		data, err := sh.files.Read(c.in)
		if err != nil {
			fmt.Fprintf(sh.stderr, "/system/bin/sh: can't open %s: %s\n", c.in, err.Error())
			return 1
		}
		in = bytes.NewReader(data)
	}
	if c.out != "" {
		outBuf = &bytes.Buffer{}
		out = outBuf
		last = false
	}
	if c.errOut != "" {
		errBuf = &bytes.Buffer{}
		errW = errBuf
	}
	if c.errToOut {
		errW = out
	}
	if c.outToErr {
		out = errW
	}
	args := make([]string, 0, len(c.args))
	env := map[string]string{}
	for _, a := range c.args {
		a = strings.ReplaceAll(a, statusMark, strconv.Itoa(sh.status))
		if k, v, ok := strings.Cut(a, "="); ok && len(args) == 0 && isName(k) {
			env[k] = v // an assignment before the command applies to it
			continue
		}
		args = append(args, a)
	}
	if len(args) == 0 {
		return 0
	}
	c.args = args
	cio := &IO{Ctx: sh.ctx, In: in, Out: out, Err: errW, Drop: sh.drop, Last: last, Env: env}
	status := sh.exec(cio, c.args)
	if outBuf != nil {
		if err := sh.files.Write(c.out, outBuf.Bytes(), c.outAppend); err != nil {
			fmt.Fprintf(sh.stderr, "/system/bin/sh: can't create %s: %s\n", c.out, err.Error())
			return 1
		}
	}
	if errBuf != nil {
		if err := sh.files.Write(c.errOut, errBuf.Bytes(), c.errAppend); err != nil {
			fmt.Fprintf(sh.stderr, "/system/bin/sh: can't create %s: %s\n", c.errOut, err.Error())
			return 1
		}
	}
	return status
}

// isName reports whether s is a shell variable name.
func isName(s string) bool {
	for i, r := range s {
		if r != '_' && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return s != ""
}
