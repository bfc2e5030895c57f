package model

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"tandem/engine/action"
	"tandem/engine/observe"
	"tandem/internal/modeltest"
)

// lineDialect is a test-only dialect: the prompt lists what it was given,
// and a reply is "tap X Y", "finish TEXT" or a parse error.
type lineDialect struct{ budget ImageBudget }

func (lineDialect) Name() string               { return "line" }
func (lineDialect) ReadsUITree() bool          { return true }
func (d lineDialect) ImageBudget() ImageBudget { return d.budget }
func (lineDialect) StreamDone(p string) bool   { return strings.Contains(p, "\n") }

func (lineDialect) Build(in Input, shots []EncodedImage, compact string) Prompt {
	var b strings.Builder
	fmt.Fprintf(&b, "goal: %s\nui: %s\n", in.Goal, compact)
	for _, s := range in.History {
		fmt.Fprintf(&b, "step %d thought=%q result=%s\n", s.N, s.Thought, s.Result)
	}
	for _, n := range in.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	parts := []Part{TextPart(b.String())}
	for _, s := range shots {
		parts = append(parts, ImagePart("data:"+s.MIME+";base64,"+base64.StdEncoding.EncodeToString(s.Data)))
	}
	return Prompt{Messages: []Message{{Role: User, Parts: parts}}}
}

func (lineDialect) Parse(r Reply, g Geometry) (Parsed, error) {
	line, _, _ := strings.Cut(strings.TrimSpace(r.Content), "\n")
	var x, y int
	if _, err := fmt.Sscanf(line, "tap %d %d", &x, &y); err == nil {
		// coordinates are in the image the model saw
		if g.Image.W > 0 {
			x, y = x*g.Screen.W/g.Image.W, y*g.Screen.H/g.Image.H
		}
		return Parsed{Thought: "tapping", Actions: []action.Action{{Type: action.Tap, X: x, Y: y}}}, nil
	}
	if s, ok := strings.CutPrefix(line, "finish "); ok {
		return Parsed{Actions: []action.Action{{Type: action.Finish, Summary: s}}}, nil
	}
	return Parsed{}, &ParseError{Reason: "want tap or finish"}
}

func testObservation(t *testing.T) Observation {
	t.Helper()
	dump, err := os.ReadFile("../observe/testdata/ui_dumps/05_wework_invite_dialog.xml")
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, 720, 1608))
	return Observation{Screenshot: img, UITree: dump, Screen: action.Size{W: 720, H: 1608}, App: "com.tencent.wework"}
}

// vlmBudget keeps test images small: encoding a full-size screenshot under
// -race takes a second.
func vlmBudget() ImageBudget {
	return ImageBudget{Factor: 28, MinPixels: observe.QwenMinPixels, MaxPixels: 150 * 28 * 28, Format: "png", KeepLast: 2, Always: true}
}

func TestPlannerEndToEnd(t *testing.T) {
	s := modeltest.New(t, modeltest.Reply{Content: "tap 364 798\nignored tail", Chunks: 3,
		Usage: &openai.Usage{PromptTokens: 900, CompletionTokens: 12}})
	full := vlmBudget()
	full.MaxPixels = observe.QwenMaxPixels
	pl := NewPlanner(newTestClient(t, s.URL, nil), lineDialect{full}, PlannerOptions{})
	var thought strings.Builder
	plan, err := pl.Plan(context.Background(), Input{Goal: "邀请同事", Observation: testObservation(t)},
		func(d string) { thought.WriteString(d) })
	if err != nil {
		t.Fatal(err)
	}
	// The image sent is the smart-resized 728x1596; the tap maps back.
	if len(plan.Actions) != 1 || plan.Actions[0].X != 364*720/728 || plan.Actions[0].Y != 798*1608/1596 {
		t.Fatalf("actions %+v", plan.Actions)
	}
	// Reading stopped at the newline, before the usage chunk: estimated.
	if !plan.Usage.Estimated || plan.Usage.PromptTokens < 100 || plan.Latency <= 0 || plan.RequestBytes != len(s.Requests()[0].Body) ||
		!strings.HasPrefix(plan.Raw, "tap 364 798") || thought.String() != plan.Raw {
		t.Fatalf("plan %+v thought %q", plan, thought.String())
	}
	req := s.Requests()[0]
	if !strings.Contains(req.Text(), "goal: 邀请同事") || !strings.Contains(req.Text(), `"text":"邀请"`) {
		t.Fatalf("prompt %s", req.Text())
	}
	imgs := req.Images()
	if len(imgs) != 1 {
		t.Fatalf("%d images", len(imgs))
	}
	_, data, _ := strings.Cut(imgs[0], ";base64,")
	raw, _ := base64.StdEncoding.DecodeString(data)
	cfg, err := png.DecodeConfig(bytes.NewReader(raw))
	if err != nil || cfg.Width != 728 || cfg.Height != 1596 {
		t.Fatalf("image %dx%d %v", cfg.Width, cfg.Height, err)
	}
}

func TestPlannerKeepsLastKImages(t *testing.T) {
	s := modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply { return modeltest.Reply{Content: "tap 1 1"} })
	pl := NewPlanner(newTestClient(t, s.URL, nil), lineDialect{vlmBudget()}, PlannerOptions{})
	in := Input{Goal: "g", Observation: testObservation(t)}
	for step := 0; step < 4; step++ {
		if _, err := pl.Plan(context.Background(), in, nil); err != nil {
			t.Fatal(err)
		}
		in.History = append(in.History, Step{N: step + 1, Actions: []action.Action{{Type: action.Tap, X: 1, Y: 1}}, Result: "ok"})
	}
	var counts []int
	for _, r := range s.Requests() {
		counts = append(counts, len(r.Images()))
	}
	if fmt.Sprint(counts) != "[1 2 2 2]" {
		t.Fatalf("images per request %v, want [1 2 2 2]", counts)
	}
}

func TestPlannerParseError(t *testing.T) {
	s := modeltest.New(t, modeltest.Reply{Content: "I think I should look around", Usage: &openai.Usage{PromptTokens: 5, CompletionTokens: 7}})
	pl := NewPlanner(newTestClient(t, s.URL, nil), lineDialect{vlmBudget()}, PlannerOptions{})
	plan, err := pl.Plan(context.Background(), Input{Goal: "g", Observation: testObservation(t)}, nil)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Raw != "I think I should look around" || plan.Usage.CompletionTokens != 7 || len(plan.Actions) != 0 {
		t.Fatalf("err %v plan %+v", err, plan)
	}
}

func TestPlannerTextOnlyForSmallModel(t *testing.T) {
	dump, _ := os.ReadFile("../observe/testdata/ui_dumps/wework_messages_zh.xml")
	obs := testObservation(t)
	obs.UITree = dump
	s := modeltest.New(t, modeltest.Reply{Content: "finish done"}, modeltest.Reply{Content: "finish done"})
	budget := vlmBudget()
	budget.Always = false
	pl := NewPlanner(newTestClient(t, s.URL, nil), lineDialect{budget}, PlannerOptions{SmallModel: true})
	plan, err := pl.Plan(context.Background(), Input{Goal: "打开消息", Observation: obs}, nil)
	if err != nil || plan.Actions[0].Type != action.Finish {
		t.Fatal(err, plan)
	}
	// A game screen has no usable tree: the screenshot goes along.
	game, _ := os.ReadFile("../observe/testdata/ui_dumps/game_marvel_sparse.xml")
	obs.UITree = game
	if _, err := pl.Plan(context.Background(), Input{Goal: "打开消息", Observation: obs}, nil); err != nil {
		t.Fatal(err)
	}
	if a, b := len(s.Requests()[0].Images()), len(s.Requests()[1].Images()); a != 0 || b != 1 {
		t.Fatalf("images: rich tree %d, game %d", a, b)
	}
}

func TestPlannerActionCache(t *testing.T) {
	s := modeltest.New(t, modeltest.Reply{Content: "tap 10 10"})
	cache := observe.NewActionCache[Plan](0)
	pl := NewPlanner(newTestClient(t, s.URL, nil), lineDialect{vlmBudget()}, PlannerOptions{Cache: cache})
	in := Input{Goal: "g", Observation: testObservation(t)}
	first, err := pl.Plan(context.Background(), in, nil)
	if err != nil || first.Cached {
		t.Fatal(err, first)
	}
	again, err := pl.Plan(context.Background(), in, nil)
	if err != nil || !again.Cached || again.Actions[0].String() != first.Actions[0].String() || again.Usage != (Usage{}) || len(s.Requests()) != 1 {
		t.Fatalf("second %+v err %v requests %d", again, err, len(s.Requests()))
	}
}

func TestPlannerHistoryWindow(t *testing.T) {
	s := modeltest.New(t, modeltest.Reply{Content: "tap 1 1"})
	pl := NewPlanner(newTestClient(t, s.URL, nil), lineDialect{vlmBudget()}, PlannerOptions{ContextTokens: 4096, VerbatimSteps: 2})
	in := Input{Goal: "g", Observation: testObservation(t)}
	for i := 1; i <= 40; i++ {
		in.History = append(in.History, Step{N: i, Thought: fmt.Sprintf("thought %d ", i) + strings.Repeat("lorem ipsum ", 20),
			Actions: []action.Action{{Type: action.Tap, X: i, Y: i}}, Result: "ok"})
	}
	if _, err := pl.Plan(context.Background(), in, nil); err != nil {
		t.Fatal(err)
	}
	text := s.Requests()[0].Text()
	if !strings.Contains(text, "note: Steps 1–") || strings.Contains(text, "step 1 ") ||
		!strings.Contains(text, `step 40 thought="thought 40`) || !strings.Contains(text, `step 39 thought="thought 39`) ||
		strings.Contains(text, "thought 38") || !strings.Contains(text, `step 38 thought=""`) {
		t.Fatalf("history window wrong:\n%s", text)
	}
}

func TestPlannerAuthError(t *testing.T) {
	s := modeltest.New(t, modeltest.Reply{Status: 401, Message: "bad key"})
	pl := NewPlanner(newTestClient(t, s.URL, nil), lineDialect{vlmBudget()}, PlannerOptions{})
	if _, err := pl.Plan(context.Background(), Input{Goal: "g", Observation: testObservation(t)}, nil); !errors.Is(err, ErrAuth) {
		t.Fatalf("err %v", err)
	}
}

// screenDialect reads screenshots only, like autoglm, uitars and tools.
type screenDialect struct{ lineDialect }

func (screenDialect) ReadsUITree() bool { return false }

// TestPlannerSendsUITreeOnlyToDialectsThatReadIt: the compact UI tree
// (bounds in device pixels) goes to a screenshot-only dialect only when the
// profile says the model reads text, or when a step goes without a
// screenshot; a dialect built on it (json) always gets it.
func TestPlannerSendsUITreeOnlyToDialectsThatReadIt(t *testing.T) {
	cases := []struct {
		name string
		d    Dialect
		opt  PlannerOptions
		want bool
	}{
		{"screenshot dialect", screenDialect{lineDialect{vlmBudget()}}, PlannerOptions{}, false},
		{"screenshot dialect, model reads text", screenDialect{lineDialect{vlmBudget()}}, PlannerOptions{UITree: true}, true},
		{"tree dialect", lineDialect{vlmBudget()}, PlannerOptions{}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := modeltest.New(t, modeltest.Reply{Content: "tap 1 1"})
			pl := NewPlanner(newTestClient(t, s.URL, nil), tc.d, tc.opt)
			if _, err := pl.Plan(context.Background(), Input{Goal: "g", Observation: testObservation(t)}, nil); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(s.Requests()[0].Text(), `"text":"邀请"`); got != tc.want {
				t.Fatalf("UI tree sent: %v, want %v", got, tc.want)
			}
		})
	}
}
