package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	glm := write("glm.txt", "<think>先打开京东</think>\n<answer>do(action=\"Tap\", element=[499,182])</answer>")
	body := write("body.json", `{"choices":[{"message":{"role":"assistant","content":"","tool_calls":[{"id":"1","type":"function","function":{"name":"tap","arguments":"{\"x\":500,\"y\":500}"}}]}}]}`)
	state := write("state.json", `{"screen":[1080,2400],"elements":[{"i":0,"text":"搜索","type":"input","bounds":[0,100,1080,300],"actions":["tap"]}]}`)
	js := write("js.txt", `{"thought":"点搜索框","action":"click","params":{"index":0}}`)
	bad := write("bad.txt", "I think I should tap the search bar.")
	tests := []struct {
		name  string
		args  []string
		stdin string
		code  int
		out   string // substring of stdout
		err   string // substring of stderr
	}{
		{"autoglm", []string{"--dialect", "autoglm", "--screen", "1080x2400", glm}, "", 0, `"actions":[{"type":"tap","x":538,"y":436}]`, ""},
		{"thought", []string{"--dialect", "autoglm", "--screen", "1080x2400", glm}, "", 0, `"thought":"先打开京东"`, ""},
		{"stdin uitars 1.0", []string{"--dialect", "uitars", "--variant", "1.0", "--screen", "1920x1080", "-"},
			"Thought: x\nAction: click(start_box='(500,500)')", 0, `{"type":"tap","x":960,"y":540}`, ""},
		{"uitars 1.5 image", []string{"--dialect", "uitars", "--variant", "1.5", "--screen", "1080x2400", "--image", "1092x2408", "-"},
			"Action: click(start_box='(1091,1204)')", 0, `"x":1079,"y":1200`, ""},
		{"tools response body", []string{"--dialect", "tools", "--screen", "1000x2000", body}, "", 0, `{"type":"tap","x":500,"y":1000}`, ""},
		{"json with state", []string{"--dialect", "json", "--screen", "1080x2400", "--state", state, js}, "", 0, `{"type":"tap","x":540,"y":200,"element":0}`, ""},
		{"json without state", []string{"--dialect", "json", "--screen", "1080x2400", js}, "", 2, "", "parse error: index given but there is no UI state"},
		{"no action", []string{"--dialect", "autoglm", "--screen", "1080x2400", bad}, "", 2, "", "parse error: no action"},
		{"off screen", []string{"--dialect", "uitars", "--variant", "1.0", "--screen", "1080x2400", "-"},
			"Action: click(start_box='(1500,20)')", 2, "", "parse error: point (1500,20) is outside the 0–1000 grid"},
		{"open_computer", []string{"--dialect", "uitars", "--screen", "1080x2400", "-"}, "<computer_env>\nAction: open_computer()\n</computer_env>", 2, "", "parse error: open_computer()"},
		{"unknown dialect", []string{"--dialect", "nope", "--screen", "1080x2400", "-"}, "", 2, "", "unknown dialect"},
		{"bad variant", []string{"--dialect", "uitars", "--variant", "2.0", "--screen", "1080x2400", "-"}, "", 2, "", "no variant"},
		{"bad screen", []string{"--dialect", "tools", "--screen", "big", "-"}, "", 2, "", "--screen"},
		{"no file", []string{"--dialect", "tools", "--screen", "10x10"}, "", 2, "", "want exactly one FILE"},
		{"missing file", []string{"--dialect", "tools", "--screen", "10x10", filepath.Join(dir, "none")}, "", 2, "", "no such file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Run(context.Background(), Env{Args: append([]string{"parse"}, tc.args...),
				Stdin: strings.NewReader(tc.stdin), Stdout: &out, Stderr: &errb})
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tc.code, errb.String())
			}
			if !strings.Contains(out.String(), tc.out) || !strings.Contains(errb.String(), tc.err) {
				t.Fatalf("stdout %q (want %q), stderr %q (want %q)", out.String(), tc.out, errb.String(), tc.err)
			}
			if code == 0 {
				var v map[string]any
				if err := json.Unmarshal(out.Bytes(), &v); err != nil || strings.Count(strings.TrimSpace(out.String()), "\n") != 0 {
					t.Fatalf("stdout is not one JSON object: %q", out.String())
				}
				if errb.Len() != 0 {
					t.Fatalf("stderr %q on success", errb.String())
				}
			} else if strings.HasPrefix(errb.String(), "parse error:") && strings.Count(errb.String(), "\n") != 1 {
				t.Fatalf("parse error must be one line: %q", errb.String())
			}
		})
	}
}
