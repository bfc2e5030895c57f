package backend

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"tandem/engine"
	"tandem/engine/action"
	"tandem/engine/model"
)

// failingOnce fails its first call as a model server that is not running
// would, then answers with the given plans.
type failingOnce struct {
	scripted
	failed bool
}

func (f *failingOnce) Plan(ctx context.Context, in model.Input, d func(string)) (model.Plan, error) {
	if !f.failed {
		f.failed = true
		return model.Plan{}, &model.NetError{Msg: "dial tcp 127.0.0.1:9: connect: connection refused", Down: true, BaseURL: "http://127.0.0.1:9/v1"}
	}
	return f.scripted.Plan(ctx, in, d)
}

// TestReportKeepsWhatWasAsked: a report shows what the person answered and
// what they let the run keep going after — the question and the error —
// not a bare "Continued the task".
func TestReportKeepsWhatWasAsked(t *testing.T) {
	data := t.TempDir()
	id := recordAskedRun(t, data)
	d, err := ReadRun(data, id)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, a := range d.Acts {
		if a.Asked != nil {
			kinds = append(kinds, a.Command+":"+string(a.Asked.Kind))
		}
	}
	if strings.Join(kinds, " ") != "resume:model_error answer:question" {
		t.Errorf("acts with what was asked: %v", kinds)
	}
	path, err := ExportReport(data, id)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, want := range []string{"Continued the task", "http://127.0.0.1:9/v1", "The agent asked: “Which colour, red or blue?”", "Answered"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if i, j := strings.Index(html, "127.0.0.1:9"), strings.Index(html, "Continued the task"); i < 0 || j < 0 || i > j {
		t.Errorf("the error (at %d) is not shown before Continued the task (at %d)", i, j)
	}
	// For a person who reads Chinese, the report's own words are Chinese.
	path, err = ExportReportIn(data, id, "zh-CN")
	if err != nil {
		t.Fatal(err)
	}
	if b, err = os.ReadFile(path); err != nil {
		t.Fatal(err)
	}
	html = string(b)
	for _, want := range []string{`<html lang="zh-CN">`, "已完成", "模型没有正常响应：模型服务（http://127.0.0.1:9/v1）没有响应", "继续了任务",
		"智能体问：“Which colour, red or blue?”", "回答了", "由你操作", "0 步"} {
		if !strings.Contains(html, want) {
			t.Errorf("the Chinese report lacks %q", want)
		}
	}
	for _, english := range []string{"by the person", "by the agent", "Continued", "The agent asked", "model calls", " steps", "report made", "Device"} {
		if strings.Contains(html, english) {
			t.Errorf("the Chinese report says %q", english)
		}
	}
}

// recordAskedRun records a run whose model server is down at first (the
// person lets it keep going), then asks a question the person answers.
func recordAskedRun(t *testing.T, data string) string {
	t.Helper()
	yes := true
	run, err := engine.New(engine.Config{
		Goal: "pick a colour", Device: &screenDevice{}, DataDir: data,
		Planner: &failingOnce{scripted: scripted{plans: []model.Plan{
			{Thought: "I must ask.", Actions: []action.Action{{Type: action.AskUser, Question: "Which colour, red or blue?"}}},
			{Thought: "Blue it is.", Actions: []action.Action{{Type: action.Finish, Summary: "Picked blue.", Success: &yes}}},
		}}},
		Settings: engine.Settings{Stability: engine.StabilityConfig{Interval: 10 * time.Millisecond, Max: 200 * time.Millisecond}},
	})
	if err != nil {
		t.Fatal(err)
	}
	asks := make(chan engine.RequestKind, 4)
	cancelSub := run.Subscribe(engine.EmitterFunc(func(e engine.Event) {
		if e.Kind == engine.KindRequest && e.Request != nil {
			asks <- e.Request.Kind
		}
	}))
	defer cancelSub()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := run.Start(ctx); err != nil {
		t.Fatal(err)
	}
	next := func(want engine.RequestKind) {
		t.Helper()
		select {
		case k := <-asks:
			if k != want {
				t.Fatalf("asked %s, want %s", k, want)
			}
		case <-ctx.Done():
			t.Fatalf("never asked %s", want)
		}
	}
	next(engine.AskModelError)
	if err := run.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	next(engine.AskQuestion)
	if err := run.Answer(ctx, "blue"); err != nil {
		t.Fatal(err)
	}
	if res, err := run.Wait(ctx); err != nil || res.State != engine.Done {
		t.Fatalf("%+v %v", res, err)
	}
	return run.ID()
}

// TestReportSaysWhyItStopped: a run the person stopped says so in the
// report's language, with the step count in words that agree with it.
func TestReportSaysWhyItStopped(t *testing.T) {
	data := t.TempDir()
	run, err := engine.New(engine.Config{Goal: "wait", Device: &screenDevice{}, DataDir: data, Planner: &scripted{},
		Settings: engine.Settings{Stability: engine.StabilityConfig{Interval: 10 * time.Millisecond, Max: 200 * time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := run.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := run.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := run.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	for lang, want := range map[string][]string{
		"en":    {"<strong>Stopped</strong>: stopped by the person", "0 steps · 0 model calls · 0 tokens"},
		"zh-CN": {"<strong>已停止</strong>: 你停止了任务", "0 步 · 0 次模型调用 · 0 个 token", "停止了任务"},
	} {
		path, err := ExportReportIn(data, run.ID(), lang)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s report lacks %q", lang, w)
			}
		}
	}
}
