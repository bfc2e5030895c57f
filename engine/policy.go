package engine

import (
	"fmt"
	"strings"
	"time"

	"tandem/engine/action"
	"tandem/engine/model"
)

// Policy says which actions need the person's confirmation first. It is
// the person's to edit: words matched (case-insensitively) against what an
// action types, launches or targets, and apps in which every action needs
// confirmation. The model's own flag (action.Sensitive) always counts.
type Policy struct {
	Words []string `json:"words"`
	Apps  []string `json:"apps"`
	// Off disables the word and app rules; the model's own flag still counts.
	Off bool `json:"off,omitempty"`
}

// DefaultPolicy is the policy of a fresh install.
func DefaultPolicy() Policy {
	return Policy{Words: []string{
		"pay", "payment", "支付", "付款", "转账", "transfer", "delete", "删除", "remove",
		"send", "发送", "install", "安装", "grant", "授权", "allow", "允许", "purchase", "购买",
	}}
}

// Target is what a policy checks an action against: the action itself plus
// what is known about the screen at its point (the label under a tap, when
// the device has a UI tree; on a desktop the title of the window there) and
// the app in front (on a desktop the window's program).
type Target struct {
	Action action.Action
	Label  string   // text or description of the element the action hits
	App    string   // the app in front, as the device names it
	Names  []string // other names the app in front goes by (a device's AppNames)
	// Words are the model's own words about the step (its thought), where
	// the screen has no labels to read (a desktop): "click Pay now".
	Words string
}

// Why says which rule asks for a confirmation, in parts a UI can word in
// its own language: By is "model" (the model flagged the step), "app" (an
// app on the list), "word" (a word on the list) or "unread" (the screen
// could not be read to check the action); Detail is the model's words, the
// app, the word, or what could not be read.
type Why struct {
	By     string `json:"by"`
	Detail string `json:"detail"`
	// What names, for "unread", what could not be read: "labels" (the UI
	// tree), "app" (the app in front) or "windows" (a desktop's), so a UI
	// words it in its own language (Detail is English).
	What string `json:"what,omitempty"`
}

// String is the reason in English, for the record and the model.
func (w Why) String() string {
	switch w.By {
	case "model":
		return "the model flagged it: " + w.Detail
	case "app":
		return fmt.Sprintf("every action in %s needs your confirmation", w.Detail)
	case "word":
		return fmt.Sprintf("it matches %q in your confirmation list", w.Detail)
	case "unread":
		return w.Detail + ", so it cannot be checked against your confirmation list"
	}
	return ""
}

// Why returns the rule that asks for confirmation; By is "" when none does.
func (p Policy) Why(t Target) Why {
	if t.Action.Sensitive != "" {
		return Why{By: "model", Detail: t.Action.Sensitive}
	}
	if p.Off || t.Action.Type.Terminal() || t.Action.Type == action.AskUser || t.Action.Type == action.TakeOver {
		return Why{}
	}
	for _, app := range p.Apps {
		app = strings.TrimSpace(app)
		if app == "" {
			continue
		}
		for _, name := range append([]string{t.App, t.Action.App}, t.Names...) {
			if strings.EqualFold(app, name) {
				return Why{By: "app", Detail: app}
			}
		}
	}
	hay := strings.ToLower(strings.Join([]string{t.Label, t.Action.Text, t.Action.App, t.Words}, "\n"))
	for _, w := range p.Words {
		w = strings.ToLower(strings.TrimSpace(w))
		if w != "" && containsWord(hay, w) {
			return Why{By: "word", Detail: w}
		}
	}
	return Why{}
}

func containsWord(s, w string) bool {
	if !isLatin(w) {
		return strings.Contains(s, w)
	}
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(w)
		if (j == 0 || !isWordByte(s[j-1])) && (end == len(s) || !isWordByte(s[end])) {
			return true
		}
		i = j + 1
	}
}

func isLatin(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= 0x80 {
			return false
		}
	}
	return true
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// elementAt finds the smallest labelled UI-tree node whose bounds contain
// (x, y), from a uiautomator dump. It is a light scan, not a full parse:
// the policy needs the words near the tap and the UI the element's box.
func elementAt(tree []byte, x, y int) (Element, bool) {
	var best Element
	bestArea := -1
	eachNode(tree, func(attrs string, r Region) {
		if x < r.X1 || x >= r.X2 || y < r.Y1 || y >= r.Y2 {
			return
		}
		if e := elementOf(attrs, r); e.Label != "" {
			if area := (r.X2 - r.X1) * (r.Y2 - r.Y1); bestArea < 0 || area < bestArea {
				best, bestArea = e, area
			}
		}
	})
	return best, bestArea >= 0
}

// focusedElement is the node that has the focus (what enter presses): by
// its own label, else by the labelled element at its centre (a button
// whose words are its child's).
func focusedElement(tree []byte) (Element, bool) {
	var found *Element
	eachNode(tree, func(attrs string, r Region) {
		if found == nil && attr(attrs, "focused") == "true" {
			e := elementOf(attrs, r)
			found = &e
		}
	})
	switch {
	case found == nil:
		return Element{}, false
	case found.Label != "":
		return *found, true
	}
	b := found.Bounds
	return elementAt(tree, (b.X1+b.X2)/2, (b.Y1+b.Y2)/2)
}

// eachNode calls f with each node's attributes and bounds.
func eachNode(tree []byte, f func(attrs string, r Region)) {
	s := string(tree)
	for {
		i := strings.Index(s, "<node ")
		if i < 0 {
			return
		}
		s = s[i+6:]
		end := strings.IndexByte(s, '>')
		if end < 0 {
			return
		}
		attrs := s[:end]
		var r Region
		if _, err := fmt.Sscanf(attr(attrs, "bounds"), "[%d,%d][%d,%d]", &r.X1, &r.Y1, &r.X2, &r.Y2); err != nil {
			continue
		}
		f(attrs, r)
	}
}

// elementOf is a node as an Element: its shown words, and its label (the
// words and its resource id).
func elementOf(attrs string, r Region) Element {
	shown := strings.Join(strings.Fields(attr(attrs, "text")+" "+attr(attrs, "content-desc")), " ")
	label := strings.Join(strings.Fields(shown+" "+attr(attrs, "resource-id")), " ")
	return Element{Label: label, Shown: shown, Bounds: r, ID: attr(attrs, "resource-id"), Class: attr(attrs, "class")}
}

func attr(attrs, name string) string {
	k := name + `="`
	i := strings.Index(attrs, k)
	for i > 0 && attrs[i-1] != ' ' {
		j := strings.Index(attrs[i+1:], k)
		if j < 0 {
			return ""
		}
		i += 1 + j
	}
	if i < 0 {
		return ""
	}
	v := attrs[i+len(k):]
	if j := strings.IndexByte(v, '"'); j >= 0 {
		return v[:j]
	}
	return ""
}

// Budget limits a run. Zero means no limit.
type Budget struct {
	Steps    int           `json:"steps,omitempty"`  // device actions
	Tokens   int           `json:"tokens,omitempty"` // prompt + completion
	Cost     float64       `json:"cost,omitempty"`
	WallTime time.Duration `json:"wall_time,omitempty"`
}

// spent is what a run has used so far.
type spent struct {
	steps   int
	usage   model.Usage
	elapsed time.Duration
}

// exceeded names the first budget that is used up; its Code is "" when none is.
func (b Budget) exceeded(s spent) Cause {
	switch {
	case b.Steps > 0 && s.steps >= b.Steps:
		return Cause{Code: CauseBudgetSteps, N: fmt.Sprint(b.Steps)}
	case b.Tokens > 0 && s.usage.PromptTokens+s.usage.CompletionTokens >= b.Tokens:
		return Cause{Code: CauseBudgetTokens, N: fmt.Sprint(b.Tokens)}
	case b.Cost > 0 && s.usage.Cost >= b.Cost:
		return Cause{Code: CauseBudgetCost, N: fmt.Sprintf("%.4g", b.Cost)}
	case b.WallTime > 0 && s.elapsed >= b.WallTime:
		return Cause{Code: CauseBudgetTime, N: fmt.Sprintf("%.4g", b.WallTime.Minutes())}
	}
	return Cause{}
}

// extend grants as much again of whichever budgets s has used up, so a
// person who says "go on" gets another round of the same size.
func (b Budget) extend(orig Budget, s spent) Budget {
	if b.Steps > 0 && s.steps >= b.Steps {
		b.Steps = s.steps + orig.Steps
	}
	if b.Tokens > 0 && s.usage.PromptTokens+s.usage.CompletionTokens >= b.Tokens {
		b.Tokens = s.usage.PromptTokens + s.usage.CompletionTokens + orig.Tokens
	}
	if b.Cost > 0 && s.usage.Cost >= b.Cost {
		b.Cost = s.usage.Cost + orig.Cost
	}
	if b.WallTime > 0 && s.elapsed >= b.WallTime {
		b.WallTime = s.elapsed + orig.WallTime
	}
	return b
}
