package cli

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"tandem/internal/modeltest"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// A phone that claims a 100000x100000 screen (in `wm size` and in its
// screenshots' headers) does not crash `tandem run`, nor get a tap: the
// run ends with words that name the phone and its claim.
func TestRunRefusesALyingPhone(t *testing.T) {
	phone, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	phone.SetClaimedScreen(100000, 100000)
	srv := modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply {
		return toolReply("Tap the middle.", "tap", `{"x":705,"y":500}`)
	})
	var out, errOut syncBuffer
	code := Run(context.Background(), Env{Args: []string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", env.Serial,
		"--goal", "Open the counter", "--base-url", srv.URL, "--data-dir", t.TempDir()},
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	all := out.String() + errOut.String()
	if code == ExitOK {
		t.Fatalf("the run succeeded on a phone that lies:\n%s", all)
	}
	if !strings.Contains(all, env.Serial) || !strings.Contains(all, "100000x100000") {
		t.Fatalf("the terminal does not say which phone claimed what:\n%s", all)
	}
	if ev := phone.Events(); len(ev) != 0 {
		t.Fatalf("the phone got input: %+v\n%s", ev, all)
	}
}

// noPieceOf fails the test when any 6 characters of key, in any case,
// are in text.
func noPieceOf(t *testing.T, key, where, text string) {
	t.Helper()
	lt := strings.ToLower(text)
	for i := 0; i+6 <= len(key); i++ {
		if strings.Contains(lt, strings.ToLower(key[i:i+6])) {
			t.Fatalf("%q of the key is in the %s:\n%.3000s", key[i:i+6], where, text)
		}
	}
}

// A model whose successful reply repeats the key (in its thought and its
// summary, whole and in the forms servers echo it): no piece of it reaches
// the terminal, in text or JSON, nor the run's record.
func TestRunMasksTheKeyInReplies(t *testing.T) {
	const key = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
	_, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	t.Setenv("TANDEM_API_KEY", key)
	for _, mode := range []string{"text", "json"} {
		t.Run(mode, func(t *testing.T) {
			srv := modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
				k := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
				forms := strings.Join(modeltest.EchoedForms(k), " and ")
				rep := toolReply("My key is "+forms+"; I am done.", "finish",
					`{"summary":"Done; the key was `+k+` (`+k[:10]+`…`+k[len(k)-4:]+`).","success":true}`)
				rep.Chunks = 17 // the key split across streamed pieces
				return rep
			})
			data := t.TempDir()
			args := []string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", env.Serial,
				"--goal", "Open the counter", "--base-url", srv.URL, "--data-dir", data}
			if mode == "json" {
				args = append(args, "--json")
			}
			var out, errOut syncBuffer
			code := Run(context.Background(), Env{Args: args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
			all := out.String() + errOut.String()
			if code != ExitOK || !strings.Contains(all, "Done; the key was") {
				t.Fatalf("exit %d:\n%s", code, all)
			}
			noPieceOf(t, key, "terminal", all)
			recorded := readRecords(t, data)
			if !strings.Contains(recorded, "I am done") {
				t.Fatalf("the record lacks the reply:\n%.2000s", recorded)
			}
			noPieceOf(t, key, "record", recorded)
		})
	}
}

// readRecords is every run record (record.jsonl) under dir, concatenated.
func readRecords(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() != "record.jsonl" {
			return err
		}
		data, err := os.ReadFile(p)
		b.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// hostileText is a reply that tries to command the terminal: clear the
// screen, set the window title (OSC, ended by BEL and by ST), move the
// cursor with an 8-bit CSI, return the carriage to overwrite the line,
// ring the bell, and reverse the text's direction, among words in Chinese
// and an emoji that must stay as they are.
const hostileText = "确认支付 🙂👩‍👩‍👧 \x1b[2J\x1b[H cleared \x1b]0;pwned\x07 title \x1b]2;again\x1b\\ \u009b31m red \r over \x07 bell \u202eevil\u202c \x00 end"

// TestRunKeepsTheTerminal: escape sequences in a reply (thought, summary)
// never reach the terminal raw, in text or JSON; they are shown escaped,
// and Chinese and emoji pass intact. JSON stays valid and says the same.
func TestRunKeepsTheTerminal(t *testing.T) {
	_, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	for _, asJSON := range []bool{false, true} {
		quoted, _ := json.Marshal(hostileText)
		srv := modeltest.New(t, toolReply(hostileText, "finish", `{"summary":`+string(quoted)+`,"success":true}`))
		args := []string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", env.Serial,
			"--goal", "Open the counter", "--base-url", srv.URL, "--data-dir", t.TempDir()}
		if asJSON {
			args = append(args, "--json")
		}
		var out, errOut syncBuffer
		if code := Run(context.Background(), Env{Args: args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut}); code != ExitOK {
			t.Fatalf("exit %d\n%q\n%q", code, out.String(), errOut.String())
		}
		text := out.String()
		for _, r := range text {
			if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || r == utf8.RuneError {
				t.Fatalf("json=%v: %U reached the terminal raw:\n%q", asJSON, r, text)
			}
		}
		if !strings.Contains(text, "确认支付 🙂👩‍👩‍👧") {
			t.Fatalf("json=%v: Chinese or emoji changed:\n%s", asJSON, text)
		}
		if !asJSON {
			if !strings.Contains(text, `\x1b[2J`) || !strings.Contains(text, `\u009b31m`) {
				t.Fatalf("the sequences are not shown escaped:\n%s", text)
			}
			continue
		}
		summary := ""
		for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
			var e struct {
				Kind string `json:"kind"`
				Done *struct {
					Summary string `json:"summary"`
				} `json:"done"`
			}
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatalf("not JSON: %v\n%q", err, line)
			}
			if e.Done != nil {
				summary = e.Done.Summary
			}
		}
		if summary != hostileText {
			t.Fatalf("JSON summary %q\nwant %q", summary, hostileText)
		}
	}
}

// A record whose first line is damaged is said to be damaged, not missing;
// given the goal again, the run resumes from what could be read.
func TestRunResumesADamagedRecord(t *testing.T) {
	phone, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	data := t.TempDir()
	if err := phone.Launch(vphone.PkgCounter); err != nil {
		t.Fatal(err)
	}
	srv := modeltest.New(t, toolReply("Tap +1.", "tap", centre(t, phone, "+1")), toolReply("", "finish", `{"summary":"one","success":true}`),
		toolReply("", "finish", `{"summary":"The counter shows 1.","success":true}`))
	run := func(args ...string) (int, string) {
		var out, errOut syncBuffer
		code := Run(context.Background(), Env{Args: append([]string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", env.Serial,
			"--base-url", srv.URL, "--data-dir", data}, args...), Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
		return code, out.String() + errOut.String()
	}
	if code, all := run("--goal", "Make the counter show 1"); code != ExitOK {
		t.Fatalf("first run: exit %d\n%s", code, all)
	}
	runs, err := os.ReadDir(data)
	if err != nil || len(runs) != 1 {
		t.Fatalf("records: %v %v", runs, err)
	}
	id := runs[0].Name()
	rec := filepath.Join(data, id, "record.jsonl")
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	// Cut before the end (a kill -9), and damage the first line.
	lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
	keep := "\x00\x00 not a line of the record\n"
	for _, l := range lines[1:] {
		if strings.Contains(l, `"kind":"end"`) || strings.Contains(l, `"type":"finish"`) {
			break
		}
		keep += l
	}
	if err := os.WriteFile(rec, []byte(keep), 0o644); err != nil {
		t.Fatal(err)
	}
	code, all := run("--resume", id)
	if code == ExitOK || !strings.Contains(all, "damaged") || strings.Contains(all, "no run record") {
		t.Fatalf("resuming a damaged record: exit %d\n%s", code, all)
	}
	code, all = run("--resume", id, "--goal", "Make the counter show 1")
	if code != ExitOK || !strings.Contains(all, "The counter shows 1.") {
		t.Fatalf("resume with the goal: exit %d\n%s", code, all)
	}
	last := srv.Requests()[len(srv.Requests())-1].Text()
	if !strings.Contains(last, "resumed from its record") {
		t.Fatalf("the model was not told the run was resumed:\n%s", last)
	}
}

// A model that thinks in megabytes: the terminal's line is cut to a
// readable length and says the record has the rest.
func TestRunClipsAHugeThought(t *testing.T) {
	_, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	huge := strings.Repeat("think ", 500_000) // 3 MB
	srv := modeltest.New(t, toolReply(huge, "tap", `{"x":500,"y":500}`), toolReply("", "finish", `{"summary":"Done.","success":true}`))
	var out, errOut syncBuffer
	code := Run(context.Background(), Env{Args: []string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", env.Serial, "--goal", "Think",
		"--base-url", srv.URL, "--data-dir", t.TempDir()}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code != ExitOK {
		t.Fatalf("exit %d\n%.2000s", code, errOut.String())
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if len(l) > 3*maxLine {
			t.Fatalf("a line of %d bytes: %.100s…", len(l), l)
		}
	}
	if !strings.Contains(out.String(), "more characters, in the run's record") {
		t.Fatalf("the cut line does not say so:\n%.3000s\n%.3000s", out.String(), errOut.String())
	}
}
