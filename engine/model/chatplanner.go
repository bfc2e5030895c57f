package model

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"image"
	"maps"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"tandem/engine/action"
	"tandem/engine/observe"
)

// PlannerOptions tune NewPlanner. Zero values take the defaults noted.
type PlannerOptions struct {
	// KeepImages is how many screenshots a prompt carries, the current one
	// included (default: the dialect's ImageBudget.KeepLast, else 1).
	KeepImages int
	// SmallModel lets a step go without a screenshot when the compact UI
	// state is rich (seed 003); vision dialects always send one.
	SmallModel bool
	// ContextTokens is the model's context length; the history budget
	// adapts to it (default 32768).
	ContextTokens int
	// VerbatimSteps is how many recent steps are shown in full; older ones
	// are summarized to their actions and result (default 3).
	VerbatimSteps int
	// NoStream asks for the whole reply at once (thoughts are then passed
	// to onThought when it arrives).
	NoStream bool
	// Cache, when non-nil, reuses decisions for identical screens at the
	// same step of the same goal. Reuses come back with Plan.Cached set.
	Cache *observe.ActionCache[Plan]
	// UITree says the model reads the compact UI tree as text: it is then
	// sent to a screenshot dialect too (tools). Dialects built on it
	// (TreeReader) always get it; AutoGLM and UI-TARS were trained on
	// screenshots alone and never do.
	UITree bool
}

// dashScopeMaxPixels is what Alibaba Cloud's DashScope API lets a Qwen-VL
// image be by default (1280 visual tokens of 28x28; more only with its own
// vl_high_resolution_images switch, which Tandem does not send): a larger
// screenshot would be shrunk by the server, and the model would answer in
// the coordinates of an image other than the one the tool states.
const dashScopeMaxPixels = 1280 * 28 * 28

// budgetOf is the dialect's image budget for the client's model, held to
// what a hosted server keeps of an image.
func budgetOf(d Dialect, c *Client) ImageBudget {
	b := BudgetFor(d, c.Model())
	if u, err := url.Parse(c.cfg.BaseURL); err == nil && strings.Contains(strings.ToLower(u.Hostname()), "dashscope") &&
		b.MaxPixels > dashScopeMaxPixels {
		b.MaxPixels = dashScopeMaxPixels
	}
	return b
}

// NewPlanner makes the Planner the engine uses: observe (screenshot budget,
// compact UI state, history window), build the prompt with the dialect,
// call the model, parse the reply.
func NewPlanner(c *Client, d Dialect, opt PlannerOptions) Planner {
	b := budgetOf(d, c)
	if opt.KeepImages <= 0 {
		opt.KeepImages = max(1, b.KeepLast)
	}
	if opt.ContextTokens <= 0 {
		opt.ContextTokens = 32768
	}
	if opt.VerbatimSteps <= 0 {
		opt.VerbatimSteps = 3
	}
	return &chatPlanner{client: c, dialect: d, opt: opt, shots: map[int]EncodedImage{},
		encode: new(observe.Preparer).Prepare, seed: maphash.MakeSeed()}
}

type chatPlanner struct {
	client  *Client
	dialect Dialect
	opt     PlannerOptions

	mu sync.Mutex
	// shots are the screenshots previous steps were decided on, keyed by
	// the history length at the time (so a corrective retry, which repeats
	// a step, does not shift them).
	shots map[int]EncodedImage

	// prep is the newest screenshot Prepare took on (its own lock: Plan
	// holds mu through the model call).
	prepMu sync.Mutex
	prep   *preparedShot
	// last is the newest screenshot encoded, by its pixels: a screen that
	// did not change (a run resumed, an action that changed nothing) goes
	// out as it was encoded before, not shrunk and encoded again (~60 ms
	// of CPU for a phone's screen, beside the window drawing the new state).
	last lastShot

	encode func(image.Image, observe.ImageSpec) (observe.Shot, error) // an observe.Preparer's Prepare
	seed   maphash.Seed
}

// lastShot is an encoded screenshot and the sum of the pixels it came from.
type lastShot struct {
	sum  uint64
	shot observe.Shot
	ok   bool
}

// preparedShot is a screenshot being prepared, or prepared, for sending.
type preparedShot struct {
	img  image.Image
	done chan struct{} // closed when shot and err are set
	shot observe.Shot
	err  error
}

func (p *chatPlanner) spec() observe.ImageSpec {
	b := budgetOf(p.dialect, p.client)
	return observe.ImageSpec{MaxPixels: b.MaxPixels, MinPixels: b.MinPixels, Factor: b.Factor, Format: b.Format}
}

// Prepare implements Preparer: it takes img at once and resizes and
// encodes it in the background, unless a preparation is still running
// (then img is skipped: frames come faster than they can be encoded only
// while the screen is still moving).
func (p *chatPlanner) Prepare(img image.Image) {
	if img == nil {
		return
	}
	p.prepMu.Lock()
	if p.prep != nil {
		select {
		case <-p.prep.done:
		default:
			p.prepMu.Unlock()
			return
		}
	}
	ps := &preparedShot{img: img, done: make(chan struct{})}
	p.prep = ps
	p.prepMu.Unlock()
	go func() {
		ps.shot, ps.err = p.prepare(img)
		close(ps.done)
	}()
}

// prepare resizes and encodes img for sending, unless the newest screenshot
// encoded had the same pixels: then that encoding is sent again.
func (p *chatPlanner) prepare(img image.Image) (observe.Shot, error) {
	sum, summed := observe.PixelSum(img, p.seed)
	p.prepMu.Lock()
	last := p.last
	p.prepMu.Unlock()
	if summed && last.ok && last.sum == sum {
		return last.shot, nil
	}
	shot, err := p.encode(img, p.spec())
	if summed && err == nil {
		p.prepMu.Lock()
		p.last = lastShot{sum: sum, shot: shot, ok: true}
		p.prepMu.Unlock()
	}
	return shot, err
}

// sameImage reports whether a and b are the same image object. Only
// pointers are compared (== on an image held by value could panic).
func sameImage(a, b image.Image) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	return va.Kind() == reflect.Pointer && vb.Kind() == reflect.Pointer && va.Type() == vb.Type() && va.Pointer() == vb.Pointer()
}

// prepared returns img ready to send: Prepare's work when it took on this
// very image (waiting for it if it is still running), else done now.
func (p *chatPlanner) prepared(ctx context.Context, img image.Image) (observe.Shot, error) {
	p.prepMu.Lock()
	ps := p.prep
	p.prepMu.Unlock()
	if ps != nil && sameImage(ps.img, img) {
		select {
		case <-ps.done:
			// Used once: let go of the frame (megabytes) it refers to.
			p.prepMu.Lock()
			if p.prep == ps {
				p.prep = nil
			}
			p.prepMu.Unlock()
			return ps.shot, ps.err
		case <-ctx.Done():
			return observe.Shot{}, ctx.Err()
		}
	}
	return p.prepare(img)
}

func (p *chatPlanner) Plan(ctx context.Context, in Input, onThought func(string)) (Plan, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	obs := in.Observation
	if (obs.Screen.W <= 0 || obs.Screen.H <= 0) && obs.Screenshot != nil {
		// No device size given: the screenshot is in device pixels.
		b := obs.Screenshot.Bounds()
		obs.Screen = action.Size{W: b.Dx(), H: b.Dy()}
		in.Observation.Screen = obs.Screen
	}
	compact := p.compress(obs)

	var signature string
	if p.opt.Cache != nil && compact != nil {
		signature = observe.ScreenSignature(obs.App, compact)
		if plan, ok := p.opt.Cache.Get(signature, in.Goal, len(in.History)); ok {
			plan.Cached = true
			plan.Usage, plan.Latency, plan.RequestBytes = Usage{}, 0, 0
			return plan, nil
		}
	}
	shots, marked, err := p.screenshots(ctx, in, compact)
	if err != nil {
		return Plan{}, err
	}
	if marked {
		in.Notes = append(in.Notes, markedNote)
	}

	in.History, in.Notes = p.window(in.History, in.Notes)
	if in.Model == "" {
		in.Model = p.client.Model()
	}
	if in.Now.IsZero() {
		in.Now = time.Now()
	}
	compactJSON := ""
	if compact != nil && (readsTree(p.dialect) || p.opt.UITree || len(shots) == 0) {
		compactJSON = compact.JSON()
	}
	prompt := p.dialect.Build(in, shots, compactJSON)

	res, err := p.client.Call(ctx, prompt, !p.opt.NoStream, onThought, p.dialect.StreamDone)
	if err != nil {
		return Plan{}, err
	}
	if p.opt.NoStream && onThought != nil && res.Reply.Content != "" {
		onThought(res.Reply.Content)
	}
	plan := Plan{Raw: rawReply(res.Reply), Usage: res.Usage, Latency: res.Latency, RequestBytes: res.RequestBytes}
	if err := p.parse(&plan, res.Reply, obs.Screen, shots, compact, in.Supported); err != nil {
		return plan, err
	}
	if signature != "" {
		p.opt.Cache.Put(signature, in.Goal, len(in.History), plan)
	}
	return plan, nil
}

// compress is the UI tree made small for the prompt; nil when there is
// none or it cannot be read (the screenshot then carries the step:
// NeedVision sees compact == nil).
func (p *chatPlanner) compress(obs Observation) *observe.Compact {
	if len(obs.UITree) == 0 {
		return nil
	}
	c, err := observe.Compress(obs.UITree, p.client.tokens, observe.CompressOptions{Screen: imagePoint(obs.Screen)})
	if err != nil {
		return nil
	}
	return c
}

// screenshots are the images this request sends: none when the tree
// suffices (NeedVision), else the earlier steps' kept screens and this one,
// prepared for the model; this one is kept for later steps. marked says
// the region the person marked on hand back is drawn on this one (see
// handBackMark); the copy kept for later steps is the plain screen.
func (p *chatPlanner) screenshots(ctx context.Context, in Input, compact *observe.Compact) (shots []EncodedImage, marked bool, err error) {
	obs := in.Observation
	if len(in.History) == 0 {
		clear(p.shots)
	}
	budget := budgetOf(p.dialect, p.client)
	vision, _ := observe.NeedVision(observe.VisionInput{Always: budget.Always, Compact: compact,
		SmallModel: p.opt.SmallModel, RecentFailures: recentFailures(in.History), Goal: in.Goal})
	if !vision || obs.Screenshot == nil || obs.Secure {
		return nil, false, nil
	}
	s, err := p.prepared(ctx, obs.Screenshot)
	if err != nil {
		return nil, false, fmt.Errorf("planner: %w", err)
	}
	cur := encodedImage(s)
	sent := cur
	if mark, ok := handBackMark(in); ok {
		m, err := observe.PrepareMarked(obs.Screenshot, p.spec(), mark)
		if err != nil {
			return nil, false, fmt.Errorf("planner: %w", err)
		}
		sent, marked = encodedImage(m), true
	}
	shots = append(p.previousShots(in.History), sent)
	p.shots[len(in.History)] = cur
	// Keep the KeepImages newest (person steps leave gaps in the keys).
	keys := slices.Sorted(maps.Keys(p.shots))
	for _, k := range keys[:max(0, len(keys)-p.opt.KeepImages)] {
		delete(p.shots, k)
	}
	return shots, marked, nil
}

func encodedImage(s observe.Shot) EncodedImage {
	e := EncodedImage{Data: s.Data, MIME: s.MIME}
	e.Size.W, e.Size.H = s.W, s.H
	return e
}

// markedNote tells the model what the outline on its screenshot is.
const markedNote = "The region the person marked is outlined in red on the current screenshot (the outline is Tandem's, not part of the screen)."

// handBackMark is the region the person marked when handing back, in the
// screenshot's pixels, when this request is the first since (the newest
// step is theirs): only this request's screenshot shows it drawn. A
// corrective retry of that request shows it again; the model has not yet
// answered it.
func handBackMark(in Input) (image.Rectangle, bool) {
	h := in.History
	if len(h) == 0 || !h[len(h)-1].ByPerson || h[len(h)-1].Region == nil {
		return image.Rectangle{}, false
	}
	r, b, scr := *h[len(h)-1].Region, in.Observation.Screenshot.Bounds(), in.Observation.Screen
	if scr.W <= 0 || scr.H <= 0 {
		return r.Add(b.Min), true
	}
	// The region is in device pixels; a screenshot may be of another size.
	at := func(x, y int) image.Point { return image.Pt(b.Min.X+x*b.Dx()/scr.W, b.Min.Y+y*b.Dy()/scr.H) }
	return image.Rectangle{Min: at(r.Min.X, r.Min.Y), Max: at(r.Max.X, r.Max.Y)}, true
}

// parse reads the reply into plan: actions in device pixels (the geometry
// of the screen, the image sent and the tree's elements), each one the
// device can do. An action it cannot do goes back to the model like an
// unreadable reply: the engine's corrective retry tells it why.
func (p *chatPlanner) parse(plan *Plan, reply Reply, screen action.Size, shots []EncodedImage, compact *observe.Compact, supported []action.Type) error {
	g := Geometry{Screen: screen}
	if len(shots) > 0 {
		g.Image = shots[len(shots)-1].Size
	}
	if compact != nil {
		g.Elements = compact.Rects()
	}
	parsed, err := p.dialect.Parse(reply, g)
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) && pe.Raw == "" {
			pe.Raw = plan.Raw
		}
		return err
	}
	plan.Thought, plan.Salvaged = parsed.Thought, parsed.Salvaged
	if len(supported) > 0 {
		if err := CheckSupported(parsed.Actions, supported); err != nil {
			return &ParseError{Reason: err.Error(), Raw: plan.Raw}
		}
	}
	plan.Actions = parsed.Actions
	return nil
}

// previousShots returns the screenshots of the model's last KeepImages-1
// steps, oldest first, placed as dialects pair them (shots[len-1-k] with
// h[len(h)-k]). A step the person took has no screenshot of its own: it
// holds an empty placeholder, which dialects skip and which does not count,
// so after a hand-back the model's earlier screens still go as on any other
// step. It stops at the first model step with none.
func (p *chatPlanner) previousShots(h []Step) []EncodedImage {
	n := len(h)
	var out []EncodedImage
	for k, kept := 1, 0; k <= n && kept < p.opt.KeepImages-1; k++ {
		s, ok := p.shots[n-k]
		if !ok {
			if !h[n-k].ByPerson {
				break
			}
			s = EncodedImage{}
		} else {
			kept++
		}
		out = append([]EncodedImage{s}, out...)
	}
	for len(out) > 0 && len(out[0].Data) == 0 {
		out = out[1:]
	}
	return out
}

// window fits the history into the token budget: recent steps verbatim,
// older ones summarized (thought dropped), the oldest omitted with a note.
func (p *chatPlanner) window(h []Step, notes []string) ([]Step, []string) {
	if len(h) == 0 {
		return h, notes
	}
	tk := p.client.tokens
	// A step shown in full carries its thought and the model's reply as
	// written (replayed verbatim by turn-based dialects).
	full := func(i int) int { return tk.Count(h[i].Thought) + tk.Count(h[i].Reply) + short(h[i], tk) }
	sh := func(i int) int { return short(h[i], tk) }
	from, fullFrom := observe.Window(len(h), p.opt.VerbatimSteps, observe.HistoryBudget(p.opt.ContextTokens), full, sh)
	out := make([]Step, 0, len(h)-from)
	for i := from; i < len(h); i++ {
		s := h[i]
		if i < fullFrom {
			s.Thought, s.Reply = "", ""
		}
		out = append(out, s)
	}
	if from > 0 {
		notes = append([]string{fmt.Sprintf("Steps 1–%d are not shown to save context; continue from the current screen.", from)}, notes...)
	}
	return out, notes
}

func short(s Step, tk *observe.Tokens) int {
	n := 8 + tk.Count(s.Result)
	for _, a := range s.Actions {
		n += tk.Count(a.String())
	}
	return n
}

// TreeReader is a dialect whose prompt is built on the compact UI tree
// (json); the others get it only as PlannerOptions.UITree says.
type TreeReader interface{ ReadsUITree() bool }

// AppReader is a dialect whose prompt names the app in front (AutoGLM's
// current_app). Only for these is the device asked for the app's name at
// every step (on a phone, a `dumpsys window` round trip).
type AppReader interface{ ReadsCurrentApp() bool }

// ReadsCurrentApp implements AppReader for the planner: a step needs the
// name of the app in front when the dialect's prompt says it, or when the
// action cache keys screens by it.
func (p *chatPlanner) ReadsCurrentApp() bool {
	a, ok := p.dialect.(AppReader)
	return ok && a.ReadsCurrentApp() || p.opt.Cache != nil
}

func readsTree(d Dialect) bool {
	t, ok := d.(TreeReader)
	return ok && t.ReadsUITree()
}

func imagePoint(s action.Size) image.Point { return image.Pt(s.W, s.H) }

func recentFailures(h []Step) int {
	n := 0
	for _, s := range h[max(0, len(h)-3):] {
		if s.Result != "" && s.Result != "ok" {
			n++
		}
	}
	return n
}

// rawReply is the reply as received: the content, plus tool calls when the
// model answered with them.
func rawReply(r Reply) string {
	if len(r.ToolCalls) == 0 {
		return r.Content
	}
	var b strings.Builder
	b.WriteString(r.Content)
	for _, tc := range r.ToolCalls {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "tool_call %s(%s)", tc.Name, tc.Arguments)
	}
	return b.String()
}
