package backend

import (
	"context"
	"fmt"
	"log"
	"slices"
	"strings"
	"sync"
	"time"

	"tandem/engine"
	"tandem/notify"
)

// Attention: whatever needs the person — a run's request (a confirmation,
// a question, a take-over, a loop, a budget, a fault of the model or the
// device) or a run that failed — raises a desktop notification when a
// window is open and not in front (issue 28), one per request, naming the
// device and what is asked in the person's language; a click on it brings
// the window to the front. The window's door says when it opens, comes to
// the front and goes behind (WindowOpen, WindowFront); a door with no
// window (the command line, MCP over stdio) never says so, so headless
// never notifies. Runs another agent started over MCP in the window's
// process follow the same rule: they are runs of this backend. A window in
// front that shows other devices (one phone of four) is behind for this
// device's request (issue 49): the person does not see it there either
// (WindowShows).
type attention struct {
	mu    sync.Mutex
	open  bool // a window is the person's door now
	front bool // and it is in front
	// shows are the devices the window shows now (nil: every device, as
	// before the page says); a request on another is told in front too.
	shows  map[string]bool
	raise  func(run string)
	shower notify.Shower
	// newShower makes the notifier on the first note (notify.New).
	newShower func(clicked func(tag string)) notify.Shower
	shown     map[string]bool // the requests told, by run and event
	// pending are the requests that still wait for the person but were
	// not told (the window was in front when they came), by run: the
	// window going behind tells them then.
	pending map[string]untold
	warned  bool // a failed notification was logged

	// life is the backend's (Begin's; a note outlives the event that
	// raised it); nil before Begin, when no window can be open either.
	life   context.Context
	lang   func() string
	device func(ctx context.Context, id string) string // the device's name as the list shows it
	logf   func(format string, args ...any)            // log.Printf
}

func newAttention(lang func() string, device func(ctx context.Context, id string) string) *attention {
	return &attention{lang: lang, device: device, shown: map[string]bool{}, pending: map[string]untold{}, logf: log.Printf,
		newShower: func(clicked func(string)) notify.Shower { return notify.New(clicked) }}
}

// WindowOpen says a window is the person's door (open) or has closed;
// raise (nil: none) brings it to the front, on a click on a notification
// about run.
func (b *Backend) WindowOpen(open bool, raise func(run string)) {
	a := b.attention
	a.mu.Lock()
	defer a.mu.Unlock()
	a.open, a.front, a.raise, a.shows = open, open, raise, nil
}

// begin gives the notes the backend's life (Backend.Begin).
func (a *attention) begin(life context.Context) {
	a.mu.Lock()
	a.life = life
	a.mu.Unlock()
}

// WindowFront says whether the window is in front of the person (the
// page's focus and visibility). Going behind tells what still waits for
// the person and was not told: a question seen in passing is not
// forgotten when they move to another program, and the page's word that
// the window went behind may come after the request did.
func (b *Backend) WindowFront(front bool) {
	a := b.attention
	a.mu.Lock()
	a.front = front
	life := a.life
	var due []untold
	if a.open && !front && life != nil {
		for _, u := range a.pending {
			if !a.shown[u.key] {
				a.shown[u.key] = true
				due = append(due, u)
			}
		}
		clear(a.pending)
	}
	a.mu.Unlock()
	slices.SortFunc(due, func(x, y untold) int { return strings.Compare(x.key, y.key) })
	for _, u := range due {
		go a.tell(life, u.run, u.device, u.need)
	}
}

// WindowShows says which devices the window shows now: the one device of
// its single view, or every tile side by side (nil: every device). A
// request on a device it does not show is told even with the window in
// front, and one waiting untold on a device that left the window's view
// is told then.
func (b *Backend) WindowShows(devices []string) {
	a := b.attention
	a.mu.Lock()
	a.shows = nil
	if devices != nil {
		a.shows = make(map[string]bool, len(devices))
		for _, d := range devices {
			a.shows[d] = true
		}
	}
	life := a.life
	var due []untold
	if a.open && a.front && life != nil {
		for run, u := range a.pending {
			if !a.seen(u.device) && !a.shown[u.key] {
				a.shown[u.key] = true
				due = append(due, u)
				delete(a.pending, run)
			}
		}
	}
	a.mu.Unlock()
	slices.SortFunc(due, func(x, y untold) int { return strings.Compare(x.key, y.key) })
	for _, u := range due {
		go a.tell(life, u.run, u.device, u.need)
	}
}

// seen says whether the person sees device's requests in the window now:
// it is in front and shows that device. Called with mu held.
func (a *attention) seen(device string) bool {
	return a.front && (a.shows == nil || a.shows[device])
}

// untold is a request that waits for the person and was not told.
type untold struct {
	key, run, device string
	need             need
}

// see hears every event of every run (on device), on the run's own turn:
// it decides at once and shows the note off the run's way. A request
// waits from its event to the run's next change of state.
func (a *attention) see(device string, e engine.Event) {
	if e.Kind == engine.KindState {
		a.mu.Lock()
		delete(a.pending, e.Run)
		a.mu.Unlock()
		return
	}
	ask := asked(e)
	if ask == nil {
		return
	}
	key := fmt.Sprintf("%s#%d", e.Run, e.Seq)
	a.mu.Lock()
	life := a.life
	tell := a.open && !a.seen(device) && !a.shown[key] && life != nil
	switch {
	case tell:
		a.shown[key] = true
	case a.open && ask.req != nil && !a.shown[key]: // seen in the window, maybe in passing
		a.pending[e.Run] = untold{key: key, run: e.Run, device: device, need: *ask}
	}
	a.mu.Unlock()
	if tell {
		go a.tell(life, e.Run, device, *ask)
	}
}

// need is what a run needs of the person: a request, or its failure.
type need struct {
	req    *engine.Request
	failed string // the reason a run failed
}

// asked is what e asks of the person (nil: nothing).
func asked(e engine.Event) *need {
	switch {
	case e.Kind == engine.KindRequest && e.Request != nil:
		return &need{req: e.Request}
	case e.Kind == engine.KindDone && e.Done != nil && e.Done.State == engine.Failed:
		return &need{failed: e.Done.Reason}
	}
	return nil
}

// tell shows the note about run; a desktop that cannot show notes is
// logged once and otherwise left alone (never an error to the person).
func (a *attention) tell(life context.Context, run, device string, n need) {
	// The device's name is looked up in the device list; a slow list
	// costs the name (the id is said instead), never the note.
	nctx, ncancel := context.WithTimeout(life, 5*time.Second)
	name := a.device(nctx, device)
	ncancel()
	ctx, cancel := context.WithTimeout(life, 10*time.Second)
	defer cancel()
	note := noteFor(a.lang(), name, n)
	note.Tag = run
	a.mu.Lock()
	if a.shower == nil {
		a.shower = a.newShower(a.clicked)
	}
	s := a.shower
	a.mu.Unlock()
	if err := s.Show(ctx, note); err != nil {
		a.mu.Lock()
		warn := !a.warned
		a.warned = true
		a.mu.Unlock()
		if warn {
			a.logf("tandem: desktop notifications are off: %v", err)
		}
	}
}

// clicked brings the window to the front for a note about run.
func (a *attention) clicked(run string) {
	a.mu.Lock()
	raise := a.raise
	a.mu.Unlock()
	if raise != nil {
		raise(run)
	}
}

// close ends the notifier (the backend shuts down).
func (a *attention) close() {
	a.mu.Lock()
	s := a.shower
	a.shower = nil
	a.mu.Unlock()
	if s != nil {
		_ = s.Close()
	}
}

// noteFor words what run on device needs, in lang ("zh-CN" or English).
func noteFor(lang, device string, n need) notify.Note {
	zh := lang == "zh-CN"
	w := func(en, cn string) string {
		if zh {
			return cn
		}
		return en
	}
	summary := fmt.Sprintf(w("%s needs you", "%s 需要你"), device)
	if n.req == nil {
		return notify.Note{Summary: fmt.Sprintf(w("The task on %s failed", "%s 上的任务失败了"), device), Body: n.failed}
	}
	r := n.req
	body := r.Message
	switch r.Kind {
	case engine.AskConfirm:
		// The words on what it would press, never coordinates (a person
		// reads "Pay ¥99", not "tap(540,1200)").
		body = w("Confirm the next step?", "确认下一步？")
		if r.Label != "" {
			body = fmt.Sprintf(w("Confirm “%s”?", "确认“%s”？"), r.Label)
		}
		if r.Why != nil && r.Why.Detail != "" {
			body += " " + r.Why.Detail
		}
	case engine.AskQuestion:
		body = w("Question: ", "提问：") + r.Message
	case engine.AskTakeOver:
		body = w("Please take over: ", "请接管：") + r.Message
	case engine.AskLoop:
		body = w("The agent seems stuck: ", "智能体似乎卡住了：") + r.Message
	case engine.AskBudget:
		body = w("A budget ran out: ", "预算已用完：") + r.Message
	case engine.AskModelError:
		body = w("The model failed: ", "模型出错：") + r.Message
	case engine.AskDevice:
		body = w("The device failed: ", "设备出错：") + r.Message
	}
	return notify.Note{Summary: summary, Body: body}
}
