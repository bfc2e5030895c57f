package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"tandem/engine/model"
	"tandem/internal/modeltest"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// glmGrid is the phone's node s on AutoGLM's 0–999 grid.
func glmGrid(t *testing.T, p *vphone.Phone, s string) string {
	t.Helper()
	b, ok := p.Bounds(s)
	if !ok {
		b, ok = p.BoundsOfText(s)
	}
	if !ok {
		t.Fatalf("no %q on the phone", s)
	}
	w, h := p.Size()
	c := b.Min.Add(b.Max).Div(2)
	return fmt.Sprintf("[%d,%d]", c.X*1000/w, c.Y*1000/h)
}

// `tandem run --dialect autoglm` sends what Open-AutoGLM's client sends
// (phone_agent/agent.py, model/client.py): the dated Chinese system prompt,
// the screenshot as PNG before the text, the task and current_app on the
// first turn, "** Screen Info **" later, the model's own earlier replies as
// assistant turns, only the newest screenshot, no UI tree, and the
// reference sampling.
func TestRunSpeaksAutoGLM(t *testing.T) {
	phone, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	replies := []string{}
	srv := modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
		st := phone.State()
		var rep string
		switch {
		case st.Foreground != vphone.PkgCounter:
			rep = `<think>先打开计数器。</think><answer>do(action="Launch", app="` + vphone.PkgCounter + `")</answer>`
		case st.Counter < 1:
			rep = `<think>点 +1。</think><answer>do(action="Tap", element=` + glmGrid(t, phone, "+1") + `)</answer>`
		default:
			rep = `<think>完成。</think><answer>finish(message="计数器显示 1。")</answer>`
		}
		replies = append(replies, rep)
		return modeltest.Reply{Content: rep}
	})
	var out, errOut syncBuffer
	code := Run(context.Background(), Env{Args: []string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", env.Serial,
		"--goal", "让计数器显示 1", "--dialect", "autoglm", "--base-url", srv.URL, "--model", "autoglm-phone", "--data-dir", t.TempDir()},
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	first, last := reqs[0], reqs[2]
	msgs := first.Chat.Messages
	if len(msgs) != 2 || msgs[0].Role != "system" || !strings.HasPrefix(msgs[0].Content, "今天的日期是: ") ||
		!strings.Contains(msgs[0].Content, "必须遵循的规则：") {
		t.Fatalf("first request's system turn: %+v", msgs)
	}
	parts := msgs[1].MultiContent
	if len(parts) != 2 || parts[0].Type != openai.ChatMessagePartTypeImageURL || !strings.HasPrefix(parts[0].ImageURL.URL, "data:image/png;base64,") ||
		!strings.HasPrefix(parts[1].Text, "让计数器显示 1\n\n{\"current_app\": ") {
		t.Fatalf("first user turn: %+v", parts)
	}
	if strings.Contains(first.Text(), "\"b\":[") || strings.Contains(first.Text(), "UI state") {
		t.Fatal("the UI tree was sent to AutoGLM")
	}
	// Step 3: system, user, assistant (reply 1), user, assistant (reply 2), user.
	lm := last.Chat.Messages
	if len(lm) != 6 || lm[2].Role != "assistant" || lm[4].Role != "assistant" {
		t.Fatalf("step 3 turn layout: %d messages", len(lm))
	}
	if lm[2].Content != replies[0] || lm[4].Content != replies[1] {
		t.Fatalf("earlier replies not replayed verbatim:\n%q\n%q", lm[2].Content, lm[4].Content)
	}
	if n := len(last.Images()); n != 1 {
		t.Fatalf("step 3 carries %d screenshots, want the newest only", n)
	}
	if txt := lm[5].MultiContent[len(lm[5].MultiContent)-1].Text; !strings.HasPrefix(txt, "** Screen Info **\n\n{\"current_app\": \""+vphone.PkgCounter+"\"}") {
		t.Fatalf("step 3 user text %q", txt)
	}
	if !strings.Contains(string(last.Body), `"temperature":0,`) || !strings.Contains(string(last.Body), `"top_p":0.85`) {
		t.Fatalf("reference sampling not sent: %.200s", last.Body)
	}
}

// `tandem run --dialect uitars --variant 1.5` sends what UI-TARS-desktop's
// SDK sends (packages/ui-tars/sdk/src/utils.ts): no system message, the
// phone template ending in "## User Instruction" plus the task as the first
// user message, each screenshot (PNG) a user message of its own, the
// model's earlier replies as assistant turns, at most 5 screenshots.
func TestRunSpeaksUITARS(t *testing.T) {
	phone, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	if err := phone.Launch(vphone.PkgCounter); err != nil {
		t.Fatal(err)
	}
	h, w, err := model.SmartResize(800, 360, 28, 100*28*28, 16384*28*28)
	if err != nil {
		t.Fatal(err)
	}
	var replies []string
	srv := modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
		rep := "Thought: 完成。\nAction: finished(content='计数器显示 3。')"
		if phone.State().Counter < 3 {
			b, ok := phone.Bounds("+1")
			if !ok {
				b, _ = phone.BoundsOfText("+1")
			}
			c := b.Min.Add(b.Max).Div(2)
			rep = fmt.Sprintf("Thought: 点 +1。\nAction: click(start_box='<|box_start|>(%d,%d)<|box_end|>')", c.X*w/360, c.Y*h/800)
		}
		replies = append(replies, rep)
		return modeltest.Reply{Content: rep}
	})
	var out, errOut syncBuffer
	code := Run(context.Background(), Env{Args: []string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", env.Serial,
		"--goal", "让计数器显示 3", "--dialect", "uitars", "--variant", "1.5", "--base-url", srv.URL, "--model", "ui-tars-1.5-7b",
		"--data-dir", t.TempDir()}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	last := reqs[3].Chat.Messages
	if last[0].Role != "user" || !strings.HasSuffix(last[0].Content, "## User Instruction\n让计数器显示 3") {
		t.Fatalf("first message %q", last[0].Content)
	}
	var assistant []string
	for _, m := range last {
		if m.Role == "system" {
			t.Fatal("UI-TARS got a system message")
		}
		if m.Role == "assistant" {
			assistant = append(assistant, m.Content)
		}
		if len(m.MultiContent) > 0 && (len(m.MultiContent) != 1 || !strings.HasPrefix(m.MultiContent[0].ImageURL.URL, "data:image/png;base64,")) {
			t.Fatalf("a screenshot turn carries more than one PNG: %+v", m.MultiContent)
		}
	}
	if strings.Join(assistant, "|") != strings.Join(replies[:3], "|") {
		t.Fatalf("assistant turns %q, replies %q", assistant, replies[:3])
	}
	if n := len(reqs[3].Images()); n != 4 {
		t.Fatalf("step 4 carries %d screenshots, want 4 (one per step, up to 5)", n)
	}
	if !strings.Contains(string(reqs[0].Body), `"max_tokens":65535`) || !strings.Contains(string(reqs[0].Body), `"top_p":0.7`) {
		t.Fatalf("UI-TARS-1.5 sampling not sent: %.200s", reqs[0].Body)
	}
}

// The compact UI tree goes to the tools dialect only when --ui-tree says
// the model reads it; the planner flags are accepted.
func TestRunUITreeFlag(t *testing.T) {
	for _, withTree := range []bool{false, true} {
		phone, env := vphonetest.Start(t, vphone.WithSize(360, 800))
		if err := phone.Launch(vphone.PkgCounter); err != nil {
			t.Fatal(err)
		}
		srv := modeltest.New(t, toolReply("", "finish", `{"summary":"ok","success":true}`))
		args := []string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", env.Serial, "--goal", "look",
			"--base-url", srv.URL, "--data-dir", t.TempDir(), "--context-tokens", "8192", "--verbatim-steps", "2", "--action-cache"}
		if withTree {
			args = append(args, "--ui-tree")
		}
		var out, errOut syncBuffer
		if code := Run(context.Background(), Env{Args: args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut}); code != ExitOK {
			t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
		}
		if got := strings.Contains(srv.Requests()[0].Text(), `"text":"+1"`); got != withTree {
			t.Fatalf("--ui-tree=%v: UI tree sent %v:\n%s", withTree, got, srv.Requests()[0].Text())
		}
	}
}

// `tandem run --dialect tools --variant abs` with a Qwen2.5-VL model sends
// what QwenLM/Qwen2.5-VL's cookbook sends (cookbooks/mobile_agent.ipynb with
// cookbooks/utils/agent_function_call.py): the mobile_use tool in the
// system message stating the smart-resized screenshot's resolution, one
// user turn with that screenshot and the query with the earlier calls; the
// model's <tool_call> replies drive the phone.
func TestRunSpeaksQwen25VL(t *testing.T) {
	phone, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	if err := phone.Launch(vphone.PkgCounter); err != nil {
		t.Fatal(err)
	}
	h, w, err := model.SmartResize(800, 360, 28, 4*28*28, 16384*28*28)
	if err != nil {
		t.Fatal(err)
	}
	srv := modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
		args := `{"action": "terminate", "status": "success"}`
		if phone.State().Counter < 2 {
			b, ok := phone.Bounds("+1")
			if !ok {
				b, _ = phone.BoundsOfText("+1")
			}
			c := b.Min.Add(b.Max).Div(2)
			args = fmt.Sprintf(`{"action": "click", "coordinate": [%d, %d]}`, c.X*w/360, c.Y*h/800)
		}
		return modeltest.Reply{Content: "Tap +1.\n<tool_call>\n{\"name\": \"mobile_use\", \"arguments\": " + args + "}\n</tool_call>"}
	})
	var out, errOut syncBuffer
	code := Run(context.Background(), Env{Args: []string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", env.Serial,
		"--goal", "make the counter show 2", "--dialect", "tools", "--variant", "abs", "--base-url", srv.URL,
		"--model", "qwen2.5-vl-7b-instruct", "--data-dir", t.TempDir()}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	if n := phone.State().Counter; n != 2 {
		t.Fatalf("counter %d, want 2", n)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	last := reqs[2]
	msgs := last.Chat.Messages
	if len(msgs) != 2 || msgs[0].Role != "system" || !strings.HasPrefix(msgs[0].Content, "You are a helpful assistant.\n\n# Tools\n") ||
		!strings.Contains(msgs[0].Content, `"name": "mobile_use"`) ||
		!strings.Contains(msgs[0].Content, fmt.Sprintf("The screen's resolution is %dx%d.", w, h)) {
		t.Fatalf("system message: %+v", msgs)
	}
	if len(last.Chat.Tools) != 0 || len(last.Images()) != 1 {
		t.Fatalf("%d OpenAI tools, %d screenshots; want none and one", len(last.Chat.Tools), len(last.Images()))
	}
	parts := msgs[1].MultiContent
	if len(parts) != 2 || parts[0].Type != openai.ChatMessagePartTypeImageURL ||
		!strings.HasPrefix(parts[1].Text, "The user query: make the counter show 2\nTask progress (You have done the following operation on the current device): Step 1: {\"name\": \"mobile_use\", \"arguments\": {\"action\": \"click\", \"coordinate\": [") {
		t.Fatalf("user turn: %+v", parts)
	}
}
