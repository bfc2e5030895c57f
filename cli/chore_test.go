package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tandem/backend"
	"tandem/internal/modeltest"
	"tandem/vphone"
)

// chatModel sends a WeChat message: opens 微信, the chat of who, types
// text and presses 发送.
func chatModel(t *testing.T, phone *vphone.Phone, who, text string) func(modeltest.Request) modeltest.Reply {
	return func(modeltest.Request) modeltest.Reply {
		st := phone.State()
		dump := string(phone.UIDump())
		switch {
		case st.Foreground != vphone.PkgChat:
			return toolReply("Open WeChat.", "launch", `{"app":"微信"}`)
		case slices.Contains(st.ChatSent, text):
			return toolReply("", "finish", `{"summary":"Sent.","success":true}`)
		case !strings.Contains(dump, "发送"):
			return toolReply("Open the chat.", "tap", centre(t, phone, who))
		case st.Focus != "" && !strings.Contains(dump, text):
			return toolReply("Type the message.", "type", `{"text":"`+text+`"}`)
		}
		return toolReply("Send it.", "tap", centre(t, phone, "发送"))
	}
}

// A run saved as a chore, with the contact and the message as parameters,
// runs again with other values and no model server: the chore's values
// reach the phone, its goal says them, and a parameter it does not have is
// refused naming the ones it has.
func TestChoreFromARunRunsWithOtherValues(t *testing.T) {
	phone, env, data := replayEnv(t)
	yes := strings.Repeat("y\n", 8) // 微信 is an app whose every action asks
	srv := modeltest.NewFunc(t, chatModel(t, phone, "张伟", "明天见"))
	code, out, errOut := runCLI([]string{"run", "--device", env.Serial, "--goal", "给张伟发微信：明天见", "--base-url", srv.URL}, yes)
	if code != ExitOK || !slices.Contains(phone.State().ChatSent, "明天见") {
		t.Fatalf("first run: exit %d sent %q\n%s\n%s", code, phone.State().ChatSent, out, errOut)
	}
	srv.Close()
	id := newestRun(t, data)

	code, out, errOut = runCLI([]string{"chore", "save", "发消息", "--from", id, "--param", "who=张伟"}, "")
	if code != ExitOK || !strings.Contains(out, "给{who}发微信：{text}") {
		t.Fatalf("save: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = runCLI([]string{"chore", "show", "发消息", "--json"}, "")
	var c backend.Chore
	if err := json.Unmarshal([]byte(out), &c); code != ExitOK || err != nil || len(c.Params) != 2 || c.FromRun != id {
		t.Fatalf("show: exit %d %v %+v", code, err, c)
	}

	code, out, errOut = runCLI([]string{"chore", "run", "发消息", "--param", "colour=red", "--device", env.Serial}, "")
	if code != ExitUsage || !strings.Contains(errOut, "colour") || !strings.Contains(errOut, "text, who") {
		t.Fatalf("an unknown parameter: exit %d\n%s\n%s", code, out, errOut)
	}

	phone.Key(3) // home: the chore opens 微信 itself
	code, out, errOut = runCLI([]string{"chore", "run", "发消息", "--param", "who=李娜", "--param", "text=晚上好", "--device", env.Serial, "--json"}, yes)
	if code != ExitOK {
		t.Fatalf("chore run: exit %d\n%s\n%s", code, out, errOut)
	}
	dump := string(phone.UIDump())
	if !slices.Contains(phone.State().ChatSent, "晚上好") || !strings.Contains(dump, "李娜") || strings.Contains(dump, "张伟") {
		t.Fatalf("the chore did not send 晚上好 to 李娜: sent %q\n%s", phone.State().ChatSent, dump)
	}
	if n := strings.Count(out, `"kind":"request"`); n < 3 {
		t.Errorf("the chore asked %d times in 微信, where each of its 3 replayed acts asks", n)
	}
	d := otherRun(t, data, id)
	if !strings.Contains(out, "给李娜发微信：晚上好") {
		t.Errorf("the chore's run does not carry its goal with the values in:\n%s", out)
	}
	for _, p := range planEntries(t, data, d) {
		if !p.Replayed {
			t.Errorf("a step of the chore went to a model: %+v", p)
		}
	}

	code, out, _ = runCLI([]string{"chore", "list"}, "")
	if code != ExitOK || !strings.Contains(out, "发消息") || !strings.Contains(out, "who=张伟") {
		t.Errorf("list: exit %d\n%s", code, out)
	}
	if code, _, _ = runCLI([]string{"chore", "delete", "发消息"}, ""); code != ExitOK {
		t.Errorf("delete: exit %d", code)
	}
	if code, _, errOut = runCLI([]string{"chore", "run", "发消息", "--device", env.Serial}, ""); code != ExitUsage || !strings.Contains(errOut, "no chore") {
		t.Errorf("a deleted chore ran: exit %d %s", code, errOut)
	}
}

// otherRun is the one record in data that is not id's (two runs can start
// in the same second, and their ids then sort by chance).
func otherRun(t *testing.T, data, id string) string {
	t.Helper()
	runs, err := os.ReadDir(filepath.Join(data, "runs"))
	if err != nil || len(runs) != 2 {
		t.Fatalf("%d records, want 2: %v", len(runs), err)
	}
	for _, r := range runs {
		if r.Name() != id {
			return r.Name()
		}
	}
	t.Fatalf("no record but %s", id)
	return ""
}
