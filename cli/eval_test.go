package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"tandem/eval"
)

// `tandem eval --list --json` lists the suite: the same seed the same
// goals, another seed others; enough tasks, templates, apps, tiers and
// Chinese goals to measure with.
func TestEvalListsTheSuite(t *testing.T) {
	list := func(seed string) []eval.Task {
		code, out, errOut := run(t, "eval", "--list", "--json", "--seed", seed)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var ts []eval.Task
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var task eval.Task
			if err := json.Unmarshal([]byte(line), &task); err != nil || task.ID == "" || task.Goal == "" || len(task.Apps) == 0 {
				t.Fatalf("line %q: %v", line, err)
			}
			ts = append(ts, task)
		}
		return ts
	}
	a, b, c := list("7"), list("7"), list("8")
	templates, apps, tiers, zh, differ := map[string]bool{}, map[string]bool{}, map[eval.Tier]int{}, 0, 0
	for i, task := range a {
		templates[task.Template] = true
		for _, ap := range task.Apps {
			apps[ap] = true
		}
		tiers[task.Tier]++
		if strings.ContainsFunc(task.Goal, func(r rune) bool { return r >= 0x4e00 && r <= 0x9fff }) {
			zh++
		}
		if b[i].Goal != task.Goal {
			t.Errorf("seed 7 listed %q then %q", task.Goal, b[i].Goal)
		}
		if c[i].Goal != task.Goal {
			differ++
		}
	}
	t.Logf("%d tasks, %d templates, %d apps, tiers %v, %d Chinese goals; seed 8 changes %d goals", len(a), len(templates), len(apps), tiers, zh, differ)
	if len(a) < 60 || len(templates) < 22 || len(apps) < 10 || tiers[eval.Simple] < 10 || tiers[eval.Medium] < 10 || tiers[eval.Complex] < 9 || zh < 10 || differ < len(a)/3 {
		t.Fatalf("the suite is too thin: %d tasks, %d templates, %d apps, tiers %v, %d Chinese goals, %d changed by the seed",
			len(a), len(templates), len(apps), tiers, zh, differ)
	}
}
