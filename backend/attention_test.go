//go:build linux

package backend

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"tandem/engine"
	"tandem/engine/action"
	"tandem/internal/modeltest"
	"tandem/internal/sessionbus"
	"tandem/notify"
)

// attentionRig is a backend with two simulated phones and a model that,
// for a goal "pay the bill #N", taps a sensitive Pay button and then
// finishes, and for "ask which account #N" asks a question and then
// finishes (each goal once).
func attentionRig(t *testing.T) (*Backend, Profile) {
	t.Helper()
	var mu sync.Mutex
	calls := map[string]int{}
	srv := modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
		goal := goalIn.FindString(r.Text())
		mu.Lock()
		calls[goal]++
		n := calls[goal]
		mu.Unlock()
		call := func(name, args string) modeltest.Reply {
			return modeltest.Reply{Content: "ok", ToolCalls: []openai.ToolCall{{ID: "c", Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: name, Arguments: args}}}}
		}
		switch {
		case n%2 == 0:
			return call("finish", `{"summary":"done","success":true}`)
		case strings.HasPrefix(goal, "pay"):
			return call("tap", `{"x":500,"y":950,"sensitive":"it pays the bill"}`)
		}
		return call("ask_user", `{"question":"which account?"}`)
	})
	b := New(Config{ConfigDir: t.TempDir(), DataDir: t.TempDir(), KeyFile: true, ADB: "127.0.0.1:1"})
	t.Cleanup(b.Shutdown)
	b.attention.begin(t.Context()) // as Begin does
	b.devices.AddSource(simSource{phones: []*simPhone{{i: 0, w: 40}, {i: 1, w: 44}}})
	p := scriptedProfile(t, b, srv.URL, "sk-note-0000")
	return b, p
}

// awaitState waits for run id to reach a state that ok accepts.
func awaitState(ctx context.Context, t *testing.T, b *Backend, id string, ok func(engine.State) bool) {
	t.Helper()
	r, err := b.Run(id, ByWindow())
	if err != nil {
		t.Fatal(err)
	}
	seen := make(chan struct{}, 1)
	stop := r.Subscribe(engine.EmitterFunc(func(engine.Event) {
		select {
		case seen <- struct{}{}:
		default:
		}
	}))
	defer stop()
	for !ok(r.State()) {
		select {
		case <-seen:
		case <-ctx.Done():
			t.Fatalf("run %s stayed in %s", id, r.State())
		}
	}
}

var goalIn = regexp.MustCompile(`(pay the bill|ask which account) #\d+`)

func waiting(s engine.State) bool { return s == engine.WaitingForUser }
func ended(s engine.State) bool   { return s.Terminal() }

// A run that asks the person raises one desktop notification, read from a
// private session bus, when the window is open and behind — naming the
// device and what is asked, in the person's language — and none while the
// window is in front; a click on it brings the window to the front.
func TestARunThatNeedsThePersonNotifiesWhenTheWindowIsBehind(t *testing.T) {
	bus := sessionbus.Start(t)
	notes := bus.Notifications(t)
	b, p := attentionRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	raised := make(chan string, 4)
	b.WindowOpen(true, func(run string) { raised <- run })

	// In front: the person sees the request in the window; no note.
	snap, err := b.StartRun(ctx, "sim-0", "pay the bill #1", RunChoice{Profile: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	awaitState(ctx, t, b, snap.ID, waiting)
	mustDo(t, b, snap.ID, (*RunHandle).Confirm)
	awaitState(ctx, t, b, snap.ID, ended)

	// Behind: phone 1's confirmation is told once, naming phone 1.
	b.WindowFront(false)
	snap1, err := b.StartRun(ctx, "sim-1", "pay the bill #2", RunChoice{Profile: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	got, err := notes.Wait(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	n := got[0]
	if len(got) != 1 || !strings.Contains(n.Summary, "Sim phone 1") || !strings.Contains(n.Body, "Confirm") ||
		!strings.Contains(n.Body, "it pays the bill") || n.App != "Tandem" {
		t.Fatalf("the notes on the bus: %+v", got)
	}
	if err := notes.Click(n.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case run := <-raised:
		if run != snap1.ID {
			t.Fatalf("the click raised the window for run %s, the note was about %s", run, snap1.ID)
		}
	case <-ctx.Done():
		t.Fatal("a click on the note did not bring the window to the front")
	}
	mustDo(t, b, snap1.ID, (*RunHandle).Confirm)
	awaitState(ctx, t, b, snap1.ID, ended)

	// In Chinese, a question on phone 0: the second note, and phone 1's
	// request was told only once before it.
	if _, err := b.SaveSettings(withLanguage(t, b, "zh-CN")); err != nil {
		t.Fatal(err)
	}
	snap2, err := b.StartRun(ctx, "sim-0", "ask which account #3", RunChoice{Profile: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	got, err = notes.Wait(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	n = got[1]
	if len(got) != 2 || !strings.Contains(n.Summary, "Sim phone 0") || !strings.Contains(n.Summary, "需要你") ||
		!strings.Contains(n.Body, "提问") || !strings.Contains(n.Body, "which account?") {
		t.Fatalf("the notes on the bus: %+v", got)
	}
	mustDo(t, b, snap2.ID, func(r *RunHandle, ctx context.Context) error { return r.Answer(ctx, "the first") })
	awaitState(ctx, t, b, snap2.ID, ended)
}

func mustDo(t *testing.T, b *Backend, id string, f func(*RunHandle, context.Context) error) {
	t.Helper()
	r, err := b.Run(id, ByWindow())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f(r, ctx); err != nil {
		t.Fatal(err)
	}
}

func withLanguage(t *testing.T, b *Backend, lang string) Settings {
	t.Helper()
	s, _, err := b.settings.Load()
	if err != nil {
		t.Fatal(err)
	}
	s.Language = lang
	return s
}

// countingShower counts the notes its notifier was asked to show.
type countingShower struct {
	notify.Shower
	done chan error
}

func (c countingShower) Show(ctx context.Context, n notify.Note) error {
	err := c.Shower.Show(ctx, n)
	c.done <- err
	return err
}

// A desktop with no notification daemon: the runs still wait for the
// person (nothing fails), and it is logged once, however many notes.
func TestNoNotificationDaemonIsLoggedOnce(t *testing.T) {
	sessionbus.Start(t) // a session bus, and no notification server on it
	b, p := attentionRig(t)
	shows := make(chan error, 8)
	b.attention.newShower = func(clicked func(string)) notify.Shower {
		return countingShower{Shower: notify.New(clicked), done: shows}
	}
	var mu sync.Mutex
	var logged []string
	b.attention.logf = func(format string, args ...any) {
		mu.Lock()
		logged = append(logged, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	b.WindowOpen(true, nil)
	b.WindowFront(false)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for i, dev := range []string{"sim-0", "sim-1"} {
		snap, err := b.StartRun(ctx, dev, fmt.Sprintf("pay the bill #%d", 10+i), RunChoice{Profile: p.ID})
		if err != nil {
			t.Fatal(err)
		}
		awaitState(ctx, t, b, snap.ID, waiting)
		select {
		case err := <-shows:
			if err == nil {
				t.Fatal("a note was shown with no notification server")
			}
		case <-ctx.Done():
			t.Fatal("no note was tried")
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(logged) != 1 || !strings.Contains(logged[0], "notifications are off") {
		t.Fatalf("logged: %q", logged)
	}
}

// With no window (the command line, MCP over stdio) nothing is notified:
// a request made then is never told, not even once a window opens.
func TestHeadlessNeverNotifies(t *testing.T) {
	bus := sessionbus.Start(t)
	notes := bus.Notifications(t)
	b, p := attentionRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b.WindowFront(false) // behind, but no window was ever open
	snap, err := b.StartRun(ctx, "sim-0", "pay the bill #5", RunChoice{Profile: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	awaitState(ctx, t, b, snap.ID, waiting)
	// A window opens and goes behind: only what is asked from then on is told.
	b.WindowOpen(true, nil)
	b.WindowFront(false)
	if _, err := b.StartRun(ctx, "sim-1", "ask which account #6", RunChoice{Profile: p.ID}); err != nil {
		t.Fatal(err)
	}
	got, err := notes.Wait(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !strings.Contains(got[0].Summary, "Sim phone 1") {
		t.Fatalf("the notes on the bus: %+v", got)
	}
}

// A request seen in the window and left unanswered is told once the
// person moves to another program (the page may also say so only after
// the request came); once, however often the window comes and goes, and
// not at all once it is answered.
func TestAWaitingRequestIsToldWhenTheWindowGoesBehind(t *testing.T) {
	bus := sessionbus.Start(t)
	notes := bus.Notifications(t)
	b, p := attentionRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b.WindowOpen(true, nil)
	snap, err := b.StartRun(ctx, "sim-1", "pay the bill #7", RunChoice{Profile: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	awaitState(ctx, t, b, snap.ID, waiting)
	if got := notes.All(); len(got) != 0 {
		t.Fatalf("told while the window was in front: %+v", got)
	}
	b.WindowFront(false)
	got, err := notes.Wait(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got[0].Summary, "Sim phone 1") || !strings.Contains(got[0].Body, "it pays the bill") {
		t.Fatalf("the note: %+v", got[0])
	}
	b.WindowFront(true)
	b.WindowFront(false)
	mustDo(t, b, snap.ID, (*RunHandle).Confirm)
	awaitState(ctx, t, b, snap.ID, ended)
	// Answered: a question seen in front and answered there is never told.
	snap2, err := b.StartRun(ctx, "sim-0", "ask which account #8", RunChoice{Profile: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	b.WindowFront(true)
	awaitState(ctx, t, b, snap2.ID, waiting)
	mustDo(t, b, snap2.ID, func(r *RunHandle, ctx context.Context) error { return r.Answer(ctx, "the first") })
	awaitState(ctx, t, b, snap2.ID, ended)
	b.WindowFront(false)
	short, stop := context.WithTimeout(ctx, 2*time.Second) // a note would be sent at once
	defer stop()
	if got, _ := notes.Wait(short, 2); len(got) != 1 {
		t.Fatalf("%d notes, want the one: %+v", len(got), got)
	}
}

// A note says what the person would confirm in words, never coordinates.
func TestANoteNamesTheButtonNotItsPlace(t *testing.T) {
	tap := &action.Action{Type: action.Tap, X: 540, Y: 1200}
	for _, c := range []struct {
		lang, label, want string
	}{
		{"en", "Pay ¥99", "Confirm “Pay ¥99”?"},
		{"zh-CN", "支付 ¥99", "确认“支付 ¥99”？"},
		{"en", "", "Confirm the next step?"},
	} {
		n := noteFor(c.lang, "Pixel 7", need{req: &engine.Request{Kind: engine.AskConfirm, Action: tap, Label: c.label}})
		if !strings.HasPrefix(n.Body, c.want) || strings.Contains(n.Body, "540") {
			t.Errorf("%s %q: body %q, want it to start %q and name no coordinates", c.lang, c.label, n.Body, c.want)
		}
	}
}

// The window in front showing one phone of two: a request on the other
// is told at once (the person cannot see it there), one on the phone it
// shows is not, until the window moves to the other phone (issue 49).
func TestARequestOnADeviceTheWindowDoesNotShowIsTold(t *testing.T) {
	bus := sessionbus.Start(t)
	notes := bus.Notifications(t)
	b, p := attentionRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b.WindowOpen(true, nil)
	b.WindowShows([]string{"sim-0"})
	snap, err := b.StartRun(ctx, "sim-1", "pay the bill #20", RunChoice{Profile: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	got, err := notes.Wait(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got[0].Summary, "Sim phone 1") || !strings.Contains(got[0].Body, "it pays the bill") {
		t.Fatalf("the note: %+v", got[0])
	}
	// Seen on the phone the window shows: not told, until the window
	// shows the other phone.
	snap0, err := b.StartRun(ctx, "sim-0", "ask which account #21", RunChoice{Profile: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	awaitState(ctx, t, b, snap0.ID, waiting)
	if got := notes.All(); len(got) != 1 {
		t.Fatalf("told a request the window shows: %+v", got)
	}
	b.WindowShows([]string{"sim-1"})
	got, err = notes.Wait(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got[1].Summary, "Sim phone 0") || !strings.Contains(got[1].Body, "which account?") {
		t.Fatalf("the second note: %+v", got[1])
	}
	mustDo(t, b, snap.ID, (*RunHandle).Confirm)
	mustDo(t, b, snap0.ID, func(r *RunHandle, ctx context.Context) error { return r.Answer(ctx, "the first") })
	awaitState(ctx, t, b, snap.ID, ended)
	awaitState(ctx, t, b, snap0.ID, ended)
}
