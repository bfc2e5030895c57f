package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestCompressCommand(t *testing.T) {
	dump := "../engine/observe/testdata/ui_dumps/05_wework_invite_dialog.xml"
	raw, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		stdin    string
		code     int
		out, err string
	}{
		{"file", []string{"compress", dump}, "", 0, `"text":"邀请","type":"button","bounds":[496,915,616,987],"actions":["tap"]`, ""},
		{"stdin", []string{"compress", "-"}, string(raw), 0, `"raw_tokens":`, ""},
		{"budget", []string{"compress", "--max-tokens", "40", dump}, "", 0, `"screen":[686,1057]`, ""},
		{"not xml", []string{"compress", "-"}, "hello", 2, "", "compress error: not a uiautomator dump"},
		{"html", []string{"compress", "-"}, "<html></html>", 2, "", "compress error: not a uiautomator dump: root element is <html>"},
		{"truncated", []string{"compress", "-"}, string(raw[:len(raw)/2]), 2, "", "compress error: "},
		{"empty", []string{"compress", "-"}, "", 2, "", "compress error: "},
		{"missing file", []string{"compress", "/nonexistent/x.xml"}, "", 2, "", "compress error: open /nonexistent/x.xml"},
		{"no args", []string{"compress"}, "", 2, "", "compress error: want one FILE"},
		{"negative", []string{"compress", "--max-tokens", "-1", dump}, "", 2, "", "compress error: --max-tokens"},
		{"bad flag", []string{"compress", "--frob", dump}, "", 2, "", "flag provided but not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var o, e bytes.Buffer
			code := Run(context.Background(), Env{Args: tt.args, Stdin: strings.NewReader(tt.stdin), Stdout: &o, Stderr: &e})
			if code != tt.code || !strings.Contains(o.String(), tt.out) || !strings.Contains(e.String(), tt.err) {
				t.Fatalf("code %d\nstdout %s\nstderr %s", code, o.String(), e.String())
			}
			if code == 0 {
				var v struct {
					Screen    [2]int `json:"screen"`
					Elements  []map[string]any
					Tokens    int `json:"tokens"`
					RawTokens int `json:"raw_tokens"`
				}
				if err := json.Unmarshal(o.Bytes(), &v); err != nil || strings.Count(o.String(), "\n") != 1 {
					t.Fatalf("not one JSON object: %v", err)
				}
				if v.Tokens <= 0 || v.RawTokens <= v.Tokens || len(v.Elements) == 0 {
					t.Fatalf("counts %+v", v)
				}
				for _, k := range []string{"i", "text", "type", "bounds", "actions"} {
					if _, ok := v.Elements[0][k]; !ok || len(v.Elements[0]) != 5 {
						t.Fatalf("element %v lacks %q or has extra keys", v.Elements[0], k)
					}
				}
			} else if strings.Count(e.String(), "\n") != 1 && tt.name != "bad flag" {
				t.Fatalf("stderr is not one line: %q", e.String())
			}
		})
	}
}
