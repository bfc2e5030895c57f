package shell

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// memFiles are files in a map; "/ro/…" cannot be written.
type memFiles map[string]string

func (m memFiles) Read(path string) ([]byte, error) {
	s, ok := m[path]
	if !ok {
		return nil, errors.New("No such file or directory")
	}
	return []byte(s), nil
}

func (m memFiles) Write(path string, data []byte, appendTo bool) error {
	if strings.HasPrefix(path, "/ro/") {
		return errors.New("Read-only file system")
	}
	if appendTo {
		m[path] += string(data)
	} else {
		m[path] = string(data)
	}
	return nil
}

// exec is a few toolbox commands, enough to see how lines run.
func exec(c *IO, args []string) int {
	switch args[0] {
	case "echo":
		fmt.Fprintln(c.Out, strings.Join(args[1:], " "))
	case "warn":
		fmt.Fprintln(c.Err, strings.Join(args[1:], " "))
	case "cat":
		_, _ = io.Copy(c.Out, c.In)
	case "env":
		fmt.Fprintln(c.Out, c.Env[args[1]])
	case "upper":
		b, _ := io.ReadAll(c.In)
		fmt.Fprint(c.Out, strings.ToUpper(string(b)))
	case "false":
		return 1
	case "true":
	default:
		fmt.Fprintf(c.Err, "/system/bin/sh: %s: inaccessible or not found\n", args[0])
		return 127
	}
	return 0
}

func TestLinesRunAsMkshRunsThem(t *testing.T) {
	cases := []struct {
		line, out string
		status    int
		files     map[string]string // after the line
	}{
		{line: `echo 'a  b' "c $HOME"`, out: "a  b c /\n"},
		{line: `false; echo $?`, out: "1\n"},
		{line: `false && echo no || echo yes`, out: "yes\n"},
		{line: `true && echo one && echo two`, out: "one\ntwo\n"},
		{line: `echo hi | upper | cat`, out: "HI\n"},
		{line: `echo x > /f; echo y >> /f; cat < /f`, out: "x\ny\n", files: map[string]string{"/f": "x\ny\n"}},
		{line: `warn oops 2>&1 | upper`, out: "OOPS\n"},
		{line: `warn oops 2> /e`, out: "", files: map[string]string{"/e": "oops\n"}},
		{line: `echo to-err >&2`, out: "to-err\n"},
		{line: `X=1 env X`, out: "1\n"},
		{line: `cat < /missing`, out: "/system/bin/sh: can't open /missing: No such file or directory\n", status: 1},
		{line: `echo a > /ro/f`, out: "/system/bin/sh: can't create /ro/f: Read-only file system\n", status: 1},
		{line: `nosuch`, out: "/system/bin/sh: nosuch: inaccessible or not found\n", status: 127},
		{line: `echo 'open`, out: "/system/bin/sh: syntax error: unterminated quoted string\n", status: 1},
	}
	for _, c := range cases {
		t.Run(c.line, func(t *testing.T) {
			files := memFiles{}
			var out bytes.Buffer
			got := New(context.Background(), exec, files, strings.NewReader(""), &out, &out, nil).Run(c.line)
			if got != c.status || out.String() != c.out {
				t.Fatalf("status %d, out %q; want %d, %q", got, out.String(), c.status, c.out)
			}
			for path, want := range c.files {
				if files[path] != want {
					t.Errorf("%s holds %q, want %q", path, files[path], want)
				}
			}
		})
	}
}

// A cancelled line stops between commands with mksh's 130.
func TestACancelledLineStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ran := 0
	count := func(c *IO, args []string) int {
		ran++
		cancel()
		return 0
	}
	if got := New(ctx, count, memFiles{}, strings.NewReader(""), io.Discard, io.Discard, nil).Run("a; b; c"); got != 130 || ran != 1 {
		t.Fatalf("status %d after %d commands", got, ran)
	}
}
