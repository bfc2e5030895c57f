//go:build !race

package cli

// The evaluation's own runs, several tasks on two virtual phones each:
// behaviour, not data races (the runs are the backend's, raced in their own
// packages' tests), and four minutes under -race against 25 s without, so
// make test runs this file without -race (Makefile, gotest).

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"tandem/eval"
	"tandem/internal/modeltest"
	"tandem/vphone/vphonetest"
)

// A seeded slice of every tier with the oracle succeeds on every task,
// read from the phones; a model that claims success at once scores 0,
// every task a false "done".
func TestEvalOracleAndClaimsDone(t *testing.T) {
	if testing.Short() {
		t.Skip("runs tasks on two virtual phones")
	}
	_, port := vphonetest.StartServer(t)
	t.Setenv("TANDEM_CONFIG_DIR", t.TempDir())
	t.Setenv("TANDEM_DATA_DIR", t.TempDir())
	slice := "settings_switch_1,dark_theme_2,todo_done_1,shop_pay_1,contact_add_1,expense_add_1,chat_send_1,contact_delete_1,contact_missing_1,alarms_all_off_2,contact_to_note_1"
	suite := func(extra ...string) ([]eval.TaskRun, eval.Summary) {
		return evalJSON(t, append([]string{"--seed", "3", "--phones", "2", "--adb-port", strconv.Itoa(port), "--tasks", slice}, extra...)...)
	}
	rs, sum := suite("--oracle")
	for _, r := range rs {
		if !r.Success {
			t.Errorf("the oracle failed %s (%s): ended %s after %d steps %s", r.Task, r.Goal, r.Ended, r.Steps, r.Error)
		}
	}
	if sum.Tasks != 11 || sum.Success != 11 || sum.FalseDone != 0 {
		t.Errorf("oracle summary %+v", sum)
	}
	claims := modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply {
		return modeltest.Reply{Content: `<tool_call>{"name":"finish","arguments":{"summary":"Done.","success":true}}</tool_call>`}
	})
	rs, sum = suite("--base-url", claims.URL, "--model", "claims")
	if sum.Tasks != 11 || sum.Success != 0 {
		t.Errorf("a model that claims success at once scored %+v", sum)
	}
	if sum.FalseDone != sum.Tasks {
		t.Errorf("false done %d, want every task: %+v", sum.FalseDone, rs)
	}
}

// With a keyboard that drops characters, reading typed text back keeps
// the chores done; without it they fail. Both are measured through the
// normal runs, on the same seed.
func TestEvalTypingCheckEarnsItsKeep(t *testing.T) {
	if testing.Short() {
		t.Skip("runs tasks on two virtual phones")
	}
	_, port := vphonetest.StartServer(t)
	t.Setenv("TANDEM_CONFIG_DIR", t.TempDir())
	t.Setenv("TANDEM_DATA_DIR", t.TempDir())
	score := func(extra ...string) eval.Summary {
		_, sum := evalJSON(t, append([]string{"--oracle", "--seed", "5", "--adb-port", strconv.Itoa(port), "--faults", "drop=0.3",
			"--tasks", "todo_add_1,contact_add_1,form_fill_1,expense_add_1"}, extra...)...)
		return sum
	}
	with, without := score(), score("--without", "typing-check")
	t.Logf("dropped characters: %d/%d with the typing check, %d/%d without", with.Success, with.Tasks, without.Success, without.Tasks)
	if with.Success != with.Tasks || without.Success >= with.Success {
		t.Fatalf("with the check %d/%d, without %d/%d: the check should save every task and its absence cost some",
			with.Success, with.Tasks, without.Success, without.Tasks)
	}
}

// evalJSON runs `tandem eval --json` with args and reads its lines: a task
// run each, then the summary.
func evalJSON(t *testing.T, args ...string) (rs []eval.TaskRun, sum eval.Summary) {
	t.Helper()
	var o, e strings.Builder
	if code := Run(context.Background(), Env{Args: append([]string{"eval", "--json"}, args...), Stdin: strings.NewReader(""), Stdout: &o, Stderr: &e}); code != 0 {
		t.Fatalf("eval %v: exit %d: %s", args, code, e.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(o.String()), "\n") {
		var s struct {
			Summary *eval.Summary `json:"summary"`
		}
		if json.Unmarshal([]byte(line), &s) == nil && s.Summary != nil {
			sum = *s.Summary
			continue
		}
		var r eval.TaskRun
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		rs = append(rs, r)
	}
	return rs, sum
}
