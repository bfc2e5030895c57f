package observe

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
)

// VisionInput is what NeedVision weighs.
type VisionInput struct {
	// Always is set for vision dialects (autoglm, uitars, tools on a VLM):
	// they are built around the screenshot.
	Always bool
	// Compact is the compressed UI tree; nil when the device has none.
	Compact *Compact
	// SmallModel is set for small local models, where a screenshot costs
	// more context than it is worth when the tree is rich.
	SmallModel bool
	// RecentFailures counts failed steps among the last few.
	RecentFailures int
	Goal           string
}

// visionWords in a goal mean it needs seeing (seed 003's list, plus English).
var visionWords = []string{"图片", "照片", "颜色", "样式", "验证码", "识别", "图标", "看看",
	"image", "picture", "photo", "colour", "color", "icon", "captcha", "looks like", "screenshot"}

// NeedVision decides whether this step sends a screenshot, and why. Seed
// 003: text only when the compact state is rich and the model small; a
// screenshot when the tree is empty or poor (games, canvases, secure
// screens), after recent failures, or when the goal needs seeing.
func NeedVision(v VisionInput) (bool, string) {
	switch {
	case v.Always:
		return true, "vision dialect"
	case !v.SmallModel:
		return true, "model can take images"
	case v.Compact == nil:
		return true, "no UI tree"
	case v.Compact.Labelled() < 3 || actionable(v.Compact) == 0:
		return true, "UI tree too poor"
	case v.RecentFailures >= 2:
		return true, fmt.Sprintf("%d recent failures", v.RecentFailures)
	}
	goal := strings.ToLower(v.Goal)
	for _, w := range visionWords {
		if strings.Contains(goal, w) {
			return true, "goal needs seeing: " + w
		}
	}
	return false, "compact state is rich"
}

func actionable(c *Compact) int {
	n := 0
	for _, e := range c.Elements {
		if len(e.Actions) > 0 {
			n++
		}
	}
	return n
}

// HistoryBudget is the token budget for the history in a prompt, from the
// model's context length: an eighth of it, between 300 and 6000 tokens (a
// 4K local model keeps ~500, a 128K cloud model 6000).
func HistoryBudget(contextTokens int) int {
	if contextTokens <= 0 {
		contextTokens = 32768
	}
	return min(6000, max(300, contextTokens/8))
}

// Window chooses which of n history steps to show within budget tokens:
// the last `verbatim` in full, earlier ones summarized, the oldest dropped
// first when even summaries do not fit; if the verbatim ones alone are over
// budget they are summarized too, oldest first, except the newest. full(i)
// and short(i) are the token costs of step i in each form. Steps [from, n)
// are shown; [from, full) summarized, [full, n) verbatim.
func Window(n, verbatim, budget int, full, short func(i int) int) (from, fullFrom int) {
	if n <= 0 {
		return 0, 0
	}
	fullFrom = max(0, n-max(1, verbatim))
	cost := 0
	for i := fullFrom; i < n; i++ {
		cost += full(i)
	}
	for cost > budget && fullFrom < n-1 {
		cost += short(fullFrom) - full(fullFrom)
		fullFrom++
	}
	from = fullFrom
	for from > 0 && cost+short(from-1) <= budget {
		from--
		cost += short(from)
	}
	// Summaries of the verbatim-overflow steps may still be over budget:
	// drop them, oldest first, keeping the newest step.
	for cost > budget && from < fullFrom {
		cost -= short(from)
		from++
	}
	return from, fullFrom
}

// ScreenSignature identifies a screen for the action cache: the app plus
// each element's type, text and bounds on a 1/50-of-screen grid, so a
// blinking cursor or a 1-px shift does not change it but any new text does.
func ScreenSignature(app string, c *Compact) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%d\x00", app, c.Screen[0], c.Screen[1])
	gx, gy := max(1, c.Screen[0]/50), max(1, c.Screen[1]/50)
	for _, e := range c.Elements {
		fmt.Fprintf(h, "%s\x00%s\x00%d,%d,%d,%d\x00%s\n", e.Type, e.Text, e.Bounds[0]/gx, e.Bounds[1]/gy,
			e.Bounds[2]/gx, e.Bounds[3]/gy, strings.Join(e.Actions, ","))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// ActionCache reuses a decision for an identical screen at the same step of
// the same goal (seed 003). It is off unless the person enables it, and the
// engine must flag every reuse in the run record: a cached decision was not
// made by the model looking at this screen. Safe for concurrent use.
type ActionCache[V any] struct {
	mu    sync.Mutex
	max   int
	order []string
	m     map[string]V
}

// NewActionCache holds up to max decisions (oldest evicted; default 256).
func NewActionCache[V any](max int) *ActionCache[V] {
	if max <= 0 {
		max = 256
	}
	return &ActionCache[V]{max: max, m: map[string]V{}}
}

func cacheKey(signature, goal string, step int) string {
	return fmt.Sprintf("%s\x00%d\x00%s", signature, step, goal)
}

// Get returns the decision cached for this screen, goal and step.
func (c *ActionCache[V]) Get(signature, goal string, step int) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[cacheKey(signature, goal, step)]
	return v, ok
}

// Put remembers a decision.
func (c *ActionCache[V]) Put(signature, goal string, step int, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := cacheKey(signature, goal, step)
	if _, ok := c.m[k]; !ok {
		c.order = append(c.order, k)
	}
	c.m[k] = v
	for len(c.order) > c.max {
		delete(c.m, c.order[0])
		c.order = c.order[1:]
	}
}

// Len returns how many decisions are cached.
func (c *ActionCache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
