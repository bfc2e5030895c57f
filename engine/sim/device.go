package sim

import (
	"context"
	"fmt"
	"image"
	"image/color"

	"tandem/engine/action"
	"tandem/engine/device"
)

// The phone's screen: 45x80 pixels (small, so a run's fingerprints cost
// little). The top third is a "+1" button whose
// counter is drawn as one small 2x2 dot per unit (a change a coarse
// fingerprint cannot see), the bottom third a "Pay now" button. Launching
// the bank app makes every action there sensitive by the app rule.
const (
	screenW, screenH = 45, 80
	bankApp          = "com.example.bank"
	homeApp          = "com.android.launcher"
)

// phoneFaults are the device's misbehaviours, drawn per call.
type phoneFaults struct {
	treeFail float64 // a UI tree dump fails
	secure   float64 // a screenshot meets a secure screen
	drop     float64 // the device goes away for a few calls
}

// phone is the simulated device. It checks the device-side invariants on
// every action: nothing runs after Stop returned or outside Executing (or
// Manual for the person's own input), and nothing sensitive runs that the
// person did not confirm. It keeps its own log of the inputs that landed
// (checker.landed), which the run's record and steps must match.
//
// It never blocks and runs on the scheduler's one goroutine: an action is
// done as its work runs; "slow" is the scheduler running its result late,
// after whatever else it picks (a Stop, a pause, the person's input).
type phone struct {
	chk    *checker
	faults phoneFaults
	rng    *tape

	app     string
	counter int
	paid    bool
	away    int // calls left while gone
}

func newPhone(t *tape, f phoneFaults, chk *checker) *phone {
	return &phone{chk: chk, faults: f, rng: t, app: homeApp}
}

func (p *phone) roll(prob float64) bool { return p.rng.chance(prob) }

// gone reports whether the device is away now (and may start an absence).
func (p *phone) gone() bool {
	if p.away > 0 {
		p.away--
		return true
	}
	if p.roll(p.faults.drop) {
		p.away = 1 + p.rng.IntN(6)
		return true
	}
	return false
}

func (p *phone) Info(ctx context.Context) (device.Info, error) {
	if p.gone() {
		return device.Info{}, fmt.Errorf("sim: %w", device.ErrGone)
	}
	return device.Info{ID: "sim", Name: "Sim phone", Kind: device.Phone, Screen: action.Size{W: screenW, H: screenH}, Scale: 1}, nil
}

func (p *phone) Capabilities() device.Capabilities {
	return device.Capabilities{Actions: []action.Type{action.Tap, action.Swipe, action.TypeText,
		action.Key, action.Wait, action.Launch}, UITree: true}
}

// ForegroundApp names the app in front, as the adb driver does.
func (p *phone) ForegroundApp(ctx context.Context) (string, string, error) {
	return p.app, ".Main", nil
}

func (p *phone) UITree(ctx context.Context) ([]byte, error) {
	if p.roll(p.faults.treeFail) {
		return nil, fmt.Errorf("sim: uiautomator dump failed: ERROR: could not get idle state")
	}
	return []byte(fmt.Sprintf(`<hierarchy><node package="%s" text="" bounds="[0,0][%d,%d]">`+
		`<node text="Count: %d" bounds="[0,0][%d,%d]"/><node text="Pay now" bounds="[0,%d][%d,%d]"/></node></hierarchy>`,
		p.app, screenW, screenH, p.counter, screenW, screenH/3, 2*screenH/3, screenW, screenH)), nil
}

func (p *phone) Screenshot(ctx context.Context) (image.Image, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if p.gone() {
		return nil, fmt.Errorf("sim: %w", device.ErrGone)
	}
	if p.roll(p.faults.secure) {
		return nil, fmt.Errorf("sim: %w", device.ErrSecureScreen)
	}
	img := image.NewGray(image.Rect(0, 0, screenW, screenH))
	bg := uint8(200)
	if p.app == bankApp {
		bg = 120
	}
	for i := range img.Pix {
		img.Pix[i] = bg
	}
	for i := 0; i < p.counter && i < 40; i++ { // one 2x2 dot per unit
		x, y := 2+(i%10)*4, 4+(i/10)*4
		for dy := 0; dy < 2; dy++ {
			for dx := 0; dx < 2; dx++ {
				img.SetGray(x+dx, y+dy, color.Gray{Y: 0})
			}
		}
	}
	if p.paid {
		for y := 2 * screenH / 3; y < screenH; y++ {
			for x := 0; x < screenW; x++ {
				img.SetGray(x, y, color.Gray{Y: 30})
			}
		}
	}
	return img, nil
}

// sensitive reports whether a is one the policy must have asked about on
// the phone as it is now.
func (p *phone) sensitive(a action.Action) bool {
	if a.Sensitive != "" || p.app == bankApp || (a.Type == action.Launch && a.App == bankApp) {
		return true
	}
	return a.Type == action.Tap && a.Y >= 2*screenH/3
}

// Do is the agent's action: it lands at once, unless the device is away.
func (p *phone) Do(ctx context.Context, a action.Action) error { return p.do(a, false) }

// personDo is the person's input through Tandem (Config.PersonInput).
func (p *phone) personDo(ctx context.Context, a action.Action) error { return p.do(a, true) }

func (p *phone) do(a action.Action, person bool) error {
	p.chk.action(a, p.sensitive(a), person)
	if p.gone() {
		return fmt.Errorf("sim: %w", device.ErrGone)
	}
	p.land(a, person)
	return nil
}

// touch is the person's live touch on the mirror: it reaches the phone
// straight away, before the run hears of it (Run.InputDone).
func (p *phone) touch(a action.Action) { p.land(a, true) }

// land applies a to the phone's state: the moment the action takes effect,
// logged as the phone's own truth.
func (p *phone) land(a action.Action, person bool) {
	p.chk.landed(a, person)
	switch a.Type {
	case action.Tap:
		switch {
		case a.Y < screenH/3:
			p.counter++
		case a.Y >= 2*screenH/3:
			p.paid = true
		}
	case action.Launch:
		p.app = a.App
	case action.Key:
		p.app = homeApp
	case action.DoubleTap, action.LongPress, action.Swipe, action.Drag, action.RightClick, action.Scroll,
		action.TypeText, action.Hotkey, action.Wait, action.Finish, action.Fail, action.AskUser, action.TakeOver:
		// the simulated phone's apps have no use for these
	}
}

func (p *phone) Close() error { return nil }

// inThird is a random point in the screen's third n (0: +1, 1: nothing, 2: Pay).
func inThird(r *tape, n int) (x, y int) {
	return 3 + r.IntN(screenW-6), n*screenH/3 + 2 + r.IntN(screenH/3-4)
}
