package eval

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"tandem/backend"
)

// Noise makes the oracle an imperfect model: at these rates per reply it
// taps beside its target, answers with a reply no dialect can read, or
// says the task is done before it is.
type Noise struct {
	Mistap, Malformed, Early float64
	Seed                     uint64
}

// Faults are the virtual phones' chaos (screens.Chaos) as `tandem eval
// --faults` gives them.
type Faults struct {
	DropChars, Popup float64
	Slow, Shift      time.Duration
}

// Features are Tandem's own features a suite can run without, to measure
// what each is worth.
var Features = []string{"typing-check", "stability", "loop-detection", "parse-retry"}

// Without turns the named features off in a run's settings.
func Without(features []string) func(*backend.Setup) {
	return func(s *backend.Setup) {
		for _, f := range features {
			switch f {
			case "typing-check":
				s.Settings.NoTypingCheck = true
			case "stability": // one capture, no wait for the screen to settle
				s.Settings.Stability.Max, s.Settings.Stability.WaitToAsk = time.Nanosecond, false
			case "loop-detection":
				s.Settings.NoLoopDetection = true
			case "parse-retry":
				s.Settings.NoParseRetry = true
			}
		}
	}
}

// ParseWithout reads --without's list.
func ParseWithout(v string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		known := false
		for _, k := range Features {
			known = known || k == f
		}
		if !known {
			return nil, fmt.Errorf("no feature %q (want %s)", f, strings.Join(Features, ", "))
		}
		out = append(out, f)
	}
	return out, nil
}

// ParseNoise reads "mistap=0.1,malformed=0.05,early=0.02".
func ParseNoise(v string) (Noise, error) {
	var n Noise
	err := parsePairs(v, map[string]func(string) error{
		"mistap":    rateInto(&n.Mistap),
		"malformed": rateInto(&n.Malformed),
		"early":     rateInto(&n.Early),
	})
	return n, err
}

// ParseFaults reads "drop=0.1,popup=0.2,slow=800ms,shift=300ms".
func ParseFaults(v string) (Faults, error) {
	var f Faults
	err := parsePairs(v, map[string]func(string) error{
		"drop":  rateInto(&f.DropChars),
		"popup": rateInto(&f.Popup),
		"slow":  durInto(&f.Slow),
		"shift": durInto(&f.Shift),
	})
	return f, err
}

func parsePairs(v string, keys map[string]func(string) error) error {
	for _, kv := range strings.Split(v, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, val, ok := strings.Cut(kv, "=")
		set, known := keys[strings.TrimSpace(k)]
		if !ok || !known {
			var names []string
			for n := range keys {
				names = append(names, n)
			}
			return fmt.Errorf("%q: want name=value with a name of %s", kv, strings.Join(names, ", "))
		}
		if err := set(strings.TrimSpace(val)); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	return nil
}

func rateInto(dst *float64) func(string) error {
	return func(v string) error {
		f, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
		if strings.HasSuffix(v, "%") {
			f /= 100
		}
		if err != nil || f < 0 || f > 1 {
			return fmt.Errorf("want a rate from 0 to 1 (or 0%% to 100%%), not %q", v)
		}
		*dst = f
		return nil
	}
}

func durInto(dst *time.Duration) func(string) error {
	return func(v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || d > time.Minute {
			return fmt.Errorf("want a duration up to 1m, such as 800ms, not %q", v)
		}
		*dst = d
		return nil
	}
}

// noisy is the noise's next draw, under the oracle's lock.
type noisy struct {
	Noise
	rnd *rand.Rand
}

func newNoisy(n Noise) *noisy { return &noisy{Noise: n, rnd: rand.New(rand.NewPCG(n.Seed, 0x0c1e))} }

// spoil is what the imperfect oracle answers instead of acts ("" keeps
// them), and acts with a tap moved beside its target.
func (n *noisy) spoil(s *Screen, acts []Act) (string, []Act) {
	if n == nil {
		return "", acts
	}
	switch r := n.rnd.Float64(); {
	case r < n.Malformed:
		return "I will tap the button now: {\"name\": \"tap\", \"arguments\": {\"x\": ", acts
	case r < n.Malformed+n.Early:
		return s.toolCall(finish("Done.")), nil
	}
	out := make([]Act, len(acts))
	copy(out, acts)
	for i, a := range out {
		if a.Tool == "tap" && a.At != nil && n.rnd.Float64() < n.Mistap {
			e := *a.At
			h := e.Bounds[3] - e.Bounds[1]
			out[i] = Act{Tool: "tap", Args: map[string]any{"x": e.cx(), "y": min(s.H-10, e.Bounds[3]+h/2+40)}}
		}
	}
	return "", out
}
