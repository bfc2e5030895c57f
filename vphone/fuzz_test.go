package vphone

import (
	"bytes"
	"context"
	"testing"
	"time"
)

// Any command line must be answered (output or a syntax error), never a
// panic; each line runs with a short deadline so sleeps end.
func FuzzShell(f *testing.F) {
	for _, s := range []string{
		"echo hi", `echo 'a b' "c\"d" e\ f`, "false && echo x || echo y; echo $?", "a |", "| a",
		"input tap 1 2", "input text 你好", "input swipe 1 2 3 4 5", "grep -E 'x|y' < /sdcard/none",
		"echo x > /sdcard/f && cat /sdcard/f 2>&1 >> /sdcard/g", "am broadcast -a ADB_INPUT_B64 --es msg 5L2g",
		"settings put secure default_input_method x; ime list", "uiautomator dump /dev/tty", "\"unterminated",
		"${HOME}$", "monkey -p com.tandem.game 1", "input keyevent 4 3 187 66 67", "sleep 9999",
	} {
		f.Add(s)
	}
	p, err := New(WithSize(240, 320))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line string) {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		var out bytes.Buffer
		p.shell(ctx, bytes.NewReader(nil), &out, &out, nil).Run(line)
	})
}
