package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// The core's random runs (core_test.go) with a budget of a few steps and
// tokens: with a budget used up, or the steps the person allowed after
// "stop gracefully" done, no model call starts on any path (a call the
// step asks for, one started early on a glimpse, or an early one adopted),
// however the person answers, resumes or hands back (issue 50: the early
// call had its own copy of the rule; `tandem run --max-steps N` sent N+1
// requests without its budget check). The person's resume on a budget
// grants as much again (Budget.extend): the check reads the budget the
// core holds then, and counts the steps and tokens on the record.

// limitRig counts what the record says the run spent.
type limitRig struct {
	*coreRig
	steps, tokens int
	seen          int // records counted
	spec          *planWork
	adopted, gen  uint64
}

// count reads the records the core wrote since the last count.
func (c *limitRig) count() {
	for _, e := range c.records[c.seen:] {
		if e.Kind == recAction {
			c.steps++
		}
		if (e.Kind == recPlan || e.Kind == recDropped) && e.Usage != nil {
			c.tokens += e.Usage.PromptTokens + e.Usage.CompletionTokens
		}
	}
	c.seen = len(c.records)
}

// checkLimits: a model call that started in this turn started with the
// budget and the graceful stop's count left.
func (c *limitRig) checkLimits() error {
	c.count()
	var started []string
	if w, ok := c.live.(planWork); ok && w.call > 0 && c.coreRig.gen != c.gen {
		started = append(started, "a model call")
	}
	if c.coreRig.spec != nil && c.coreRig.spec != c.spec {
		started = append(started, "an early call")
	}
	if uint64(c.coreRig.adopted) != c.adopted {
		started = append(started, "an adopted early call")
	}
	c.gen, c.spec, c.adopted = c.coreRig.gen, c.coreRig.spec, uint64(c.coreRig.adopted)
	if len(started) == 0 {
		return nil
	}
	l := c.l
	switch {
	case l.budget.Steps > 0 && c.steps >= l.budget.Steps:
		return fmt.Errorf("%s started with %d steps done of a budget of %d", strings.Join(started, ", "), c.steps, l.budget.Steps)
	case l.budget.Tokens > 0 && c.tokens >= l.budget.Tokens:
		return fmt.Errorf("%s started with %d tokens spent of a budget of %d", strings.Join(started, ", "), c.tokens, l.budget.Tokens)
	case l.softLimit >= 0 && c.steps >= l.softLimit:
		return fmt.Errorf("%s started with %d steps done, the person allowed %d", strings.Join(started, ", "), c.steps, l.softLimit)
	}
	return nil
}

// runCoreLimits is runCore with a budget, checking the limits each turn.
func runCoreLimits(seed uint64) (*limitRig, error) {
	const goal = "buy the cheapest one"
	rng := rand.New(rand.NewPCG(seed, 50))
	env := coreEnvForTest()
	env.settings.Budget = Budget{Steps: 1 + rng.IntN(5)}
	if rng.IntN(3) == 0 {
		env.settings.Budget.Tokens = 1000 + rng.IntN(5000)
	}
	c := &limitRig{coreRig: &coreRig{l: newCore(env, goal), rng: rng}}
	c.records = []Entry{{Kind: recStart, Goal: goal}}
	return c, drive(c.coreRig, func(m message) error {
		if err := c.send(m); err != nil {
			return err
		}
		return c.checkLimits()
	})
}

// drive plays a random run as runCore does, handing each message to send.
func drive(c *coreRig, send func(message) error) error {
	if err := send(message{on: OnStart}); err != nil {
		return err
	}
	for i := 0; i < 150 && !c.ended; i++ {
		var m message
		switch k := c.rng.IntN(10); {
		case k < 6 && c.live != nil:
			m = c.result()
		case k < 8:
			var ok bool
			if m, ok = c.other(); !ok {
				m = c.command()
			}
		default:
			m = c.command()
		}
		if err := send(m); err != nil {
			return err
		}
	}
	return nil
}

func TestCoreKeepsTheLimits(t *testing.T) {
	runs := *coreRuns
	if testing.Short() {
		runs /= 10
	}
	adopted := 0
	for seed := range uint64(runs) {
		c, err := runCoreLimits(seed)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, strings.Join(c.trace, "\n"))
		}
		adopted += c.coreRig.adopted
	}
	if adopted < runs/100 {
		t.Errorf("the random runs do not reach the early calls: %d adopted", adopted)
	}
}
