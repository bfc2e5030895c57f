package backend

import (
	"context"
	"fmt"
	"image"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"tandem/engine/action"
	"tandem/engine/device"
	"tandem/engine/model"
)

// The world of the simulation of several runs and one person
// (manyruns_sim_test.go): the seed's choices, virtual time, the phones and
// their scripted models.
//
// Every action says whose it is, so each phone's own log can be read
// against what was aimed at it: the agent of phone i acts at x = i (a
// sensitive "Pay" tap low on the screen, at y >= payY), types "agent i"
// and launches com.example.dI; the person's inputs aimed at phone i are at
// x = personX+i and type "person i n".
const (
	simH    = 80
	personX = 10
	payY    = simH - 8
)

// simTape is every choice a seed makes (which waiting item the scheduler
// runs, what the person does, what each model replies), in order.
type simTape struct {
	rng  *rand.Rand
	used int
}

func newSimTape(seed uint64) *simTape { return &simTape{rng: rand.New(rand.NewPCG(seed, 0x28))} }

func (t *simTape) IntN(n int) int {
	t.used++
	return t.rng.IntN(n)
}

// simClock is virtual time: a wait moves it on and returns at once.
type simClock struct{ now time.Time }

func (c *simClock) Now() time.Time { return c.now }

func (c *simClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.now = c.now.Add(max(d, 0))
	return nil
}

// simPhone is phone i: its screen (one width per phone, so a frame filed
// under the wrong device shows) and its own log of every input that
// landed, whoever sent it. It never blocks (it runs on the scheduler's
// one goroutine).
type simPhone struct {
	i, w int
	mu   sync.Mutex
	log  []action.Action
}

func (p *simPhone) id() string { return "sim-" + strconv.Itoa(p.i) }

func (p *simPhone) Info(context.Context) (device.Info, error) {
	return device.Info{ID: p.id(), Name: "Sim phone " + strconv.Itoa(p.i), Kind: device.Phone,
		Screen: action.Size{W: p.w, H: simH}, Scale: 1}, nil
}

func (p *simPhone) Capabilities() device.Capabilities {
	return device.Capabilities{Actions: []action.Type{action.Tap, action.LongPress, action.Swipe,
		action.TypeText, action.Key, action.Wait, action.Launch}}
}

// Screenshot draws the count of inputs that landed, so each one changes
// the screen.
func (p *simPhone) Screenshot(ctx context.Context) (image.Image, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p.mu.Lock()
	n := len(p.log)
	p.mu.Unlock()
	img := image.NewGray(image.Rect(0, 0, p.w, simH))
	for k := range img.Pix {
		img.Pix[k] = 200
	}
	for k := 0; k < n && k < p.w*simH/8; k++ {
		img.Pix[k*8] = 0
	}
	return img, nil
}

func (p *simPhone) Do(_ context.Context, a action.Action) error {
	p.mu.Lock()
	p.log = append(p.log, a)
	p.mu.Unlock()
	return nil
}

// landed is the phone's log from k on.
func (p *simPhone) landed(k int) []action.Action {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]action.Action(nil), p.log[k:]...)
}

func (p *simPhone) Close() error { return nil }

// owner says whose a is by its mark: the agent of phone dev, or the person
// aiming at phone dev; ok=false for an action that bears no mark.
func owner(a action.Action) (dev int, person, ok bool) {
	switch a.Type {
	case action.Tap, action.LongPress, action.Swipe, action.Drag, action.DoubleTap:
		if a.X >= personX {
			return a.X - personX, true, true
		}
		return a.X, false, true
	case action.TypeText:
		f := strings.Fields(a.Text)
		if len(f) >= 2 {
			n, err := strconv.Atoi(f[1])
			return n, f[0] == "person", err == nil && (f[0] == "person" || f[0] == "agent")
		}
	case action.Launch:
		n, err := strconv.Atoi(strings.TrimPrefix(a.App, "com.example.d"))
		return n, false, err == nil
	case action.RightClick, action.Scroll, action.Key, action.Hotkey, action.Wait,
		action.Finish, action.Fail, action.AskUser, action.TakeOver:
	}
	return 0, false, false
}

// isPay reports whether a is a sensitive action of an agent (the Pay tap).
func isPay(a action.Action) bool {
	_, person, ok := owner(a)
	return ok && !person && a.Type == action.Tap && a.Y >= payY
}

// simSource lists and opens the phones, as a registry source.
type simSource struct{ phones []*simPhone }

func (s simSource) List(context.Context) ([]DeviceEntry, error) {
	var out []DeviceEntry
	for _, p := range s.phones {
		out = append(out, DeviceEntry{ID: p.id(), Name: "Sim phone " + strconv.Itoa(p.i), Kind: device.Phone, State: "device"})
	}
	return out, nil
}

func (s simSource) Open(_ context.Context, id string) (device.Device, bool, error) {
	for _, p := range s.phones {
		if p.id() == id {
			return p, true, nil
		}
	}
	return nil, false, nil
}

// simModel is phone i's scripted model: each call draws a reply from the
// seed (actions marked as phone i's, the Pay tap among them, a question, a
// take-over request, finish, fail, an error).
type simModel struct {
	i   int
	w   int
	rng *simTape
}

func (m *simModel) Plan(ctx context.Context, _ model.Input, _ func(string)) (model.Plan, error) {
	if err := ctx.Err(); err != nil {
		return model.Plan{}, err
	}
	one := func(a action.Action) (model.Plan, error) {
		return model.Plan{Thought: "sim", Actions: []action.Action{a}, Raw: "sim"}, nil
	}
	switch k := m.rng.IntN(100); {
	case k < 4:
		return model.Plan{}, fmt.Errorf("sim: 500 internal server error")
	case k < 10:
		return one(action.Action{Type: action.Finish, Summary: "done"})
	case k < 13:
		return one(action.Action{Type: action.Fail, Reason: "cannot"})
	case k < 20:
		return one(action.Action{Type: action.AskUser, Question: "which account?"})
	case k < 25:
		return one(action.Action{Type: action.TakeOver, Reason: "a captcha"})
	}
	acts := make([]action.Action, 1+m.rng.IntN(3))
	for k := range acts {
		acts[k] = m.step()
	}
	return model.Plan{Thought: "sim", Actions: acts, Raw: "sim"}, nil
}

// step is one action of phone i's agent.
func (m *simModel) step() action.Action {
	switch m.rng.IntN(8) {
	case 0, 1, 2:
		return action.Action{Type: action.Tap, X: m.i, Y: 1 + m.rng.IntN(payY-1)}
	case 3, 4:
		return action.Action{Type: action.Tap, X: m.i, Y: payY + m.rng.IntN(simH-payY), Sensitive: "it pays"}
	case 5:
		return action.Action{Type: action.Swipe, X: m.i, Y: 10, X2: m.i, Y2: 60, Ms: 300}
	case 6:
		return action.Action{Type: action.TypeText, Text: "agent " + strconv.Itoa(m.i)}
	}
	return action.Action{Type: action.Launch, App: "com.example.d" + strconv.Itoa(m.i)}
}
