package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"tandem/engine/action"
	"tandem/engine/model"
)

// bigReply is a reply of about n bytes in the words models write: markup
// that JSON escapes (<point>, &), Chinese, quotes and newlines.
func bigReply(n int) string {
	unit := `I look for the <point>(120,340)</point> "Pay" button & its 确认支付 label; ` + "\n"
	return strings.Repeat(unit, n/len(unit)+1)[:n]
}

// copyRecord copies a live run's record as a crash would leave it, once it
// holds want entries of kind.
func copyRecord(t *testing.T, src string, kind EntryKind, want int) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ents, _, _ := ReadRecord(src)
		n := 0
		for _, e := range ents {
			if e.Kind == kind {
				n++
			}
		}
		if n >= want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the record never held %d %s entries", want, kind)
		}
		time.Sleep(5 * time.Millisecond)
	}
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	CopyLive(t, src, dst)
	return dst
}

// TestBigReplyKeepsTheRecordSmall: a 3 MB reply, in its thought or in the
// summary it finishes with, is kept bounded in the record (once, for the
// thought and the raw reply): the record stays a small fraction of it,
// every line of it reads back, and it still holds the reply's start.
func TestBigReplyKeepsTheRecordSmall(t *testing.T) {
	big := bigReply(3 << 20)
	for _, c := range []struct {
		name   string
		script []step
	}{
		{"thought", []step{func(ctx context.Context, in model.Input) (model.Plan, error) {
			return model.Plan{Thought: big, Raw: big + "\nAction: tap", Actions: []action.Action{tapPlus}}, nil
		}, reply(finish("paid"))}},
		{"summary", []step{func(ctx context.Context, in model.Input) (model.Plan, error) {
			return model.Plan{Thought: "done", Raw: big, Actions: []action.Action{finish(big)}}, nil
		}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, Settings{}, c.script...)
			f.start()
			if res := f.wait(); res.State != Done {
				t.Fatalf("result %+v", res)
			}
			path := filepath.Join(f.dir, "run1", recordFile)
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("a %d-byte reply: a record of %d bytes", len(big), st.Size())
			if st.Size() > 256<<10 {
				t.Fatalf("a 3 MB reply made a record of %.1f MB", float64(st.Size())/(1<<20))
			}
			rr, err := ReadRecordAll(filepath.Dir(path))
			if err != nil || len(rr.Damaged) > 0 || rr.Torn {
				t.Fatalf("the record reads back with damage %v torn %v: %v", rr.Damaged, rr.Torn, err)
			}
			body, _ := os.ReadFile(path)
			if !strings.Contains(string(body), `I look for the <point>(120,340)</point> \"Pay\" button & its 确认支付 label`) {
				t.Fatalf("the record lacks the reply's start: %.500s", body)
			}
		})
	}
}

// TestResumeKnowsTheReplies: a resumed run tells the model its earlier
// steps with their thought and reply as recorded, from a record of this
// version and from one written before the reply was kept once.
func TestResumeKnowsTheReplies(t *testing.T) {
	f := newFixture(t, Settings{}, reply(tapPlus), blockUntilCancel)
	f.start()
	crash := copyRecord(t, filepath.Join(f.dir, "run1"), recAction, 1)
	old := filepath.Join(t.TempDir(), "old")
	if err := os.MkdirAll(old, 0o755); err != nil {
		t.Fatal(err)
	}
	// As records were written before: the reply in every history entry.
	oldRecord := `{"t":"2026-01-01T00:00:00Z","kind":"start","id":"old","goal":"count to three","settings":{"budget":{},"policy":{},"stability":{},"loop_k":3,"history":8,"remind_at":3,"unexpected":0.5},"device":"p"}
{"t":"2026-01-01T00:00:01Z","kind":"plan","call":1,"raw":"raw","thought":"scripted","actions":[{"type":"tap","x":180,"y":100}]}
{"t":"2026-01-01T00:00:01Z","kind":"history","n":1,"step":{"n":1,"thought":"scripted","actions":[{"type":"tap","x":180,"y":100}],"reply":"raw"}}
{"t":"2026-01-01T00:00:02Z","kind":"action","n":1,"action":{"type":"tap","x":180,"y":100},"result":"ok"}
{"t":"2026-01-01T00:00:02Z","kind":"history","n":1,"step":{"n":1,"thought":"scripted","actions":[{"type":"tap","x":180,"y":100}],"result":"ok","reply":"raw"}}
`
	if err := os.WriteFile(filepath.Join(old, recordFile), []byte(oldRecord), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{crash, old} {
		planner := &fakePlanner{script: []step{reply(finish("done"))}}
		r, err := Resume(dir, Config{Device: newFakePhone(), Planner: planner})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		res, err := r.Wait(ctx)
		cancel()
		if err != nil || res.State != Done {
			t.Fatalf("%s: %+v %v", dir, res, err)
		}
		h := planner.calls()[0].History
		if len(h) != 1 || h[0].Thought != "scripted" || h[0].Reply != "raw" || h[0].Result != "ok" {
			t.Fatalf("%s: history %+v", filepath.Base(dir), h)
		}
	}
}

// TestDamagedFirstLine: a record whose first line (the goal, the device,
// the settings) is damaged is a damaged record, not a missing one; what
// could be read is returned; it resumes once the goal and the device are
// given again, with the safe policy, and the record is whole afterwards
// (the damaged one kept beside it).
func TestDamagedFirstLine(t *testing.T) {
	f := newFixture(t, Settings{}, reply(tapPlus), blockUntilCancel)
	f.start()
	dir := copyRecord(t, filepath.Join(f.dir, "run1"), recAction, 1)
	path := filepath.Join(dir, recordFile)
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first := strings.IndexByte(string(body), '\n')
	damaged := append([]byte(strings.Repeat("\x00", first/2)+"garbage"), body[first:]...)
	if err := os.WriteFile(path, damaged, 0o644); err != nil {
		t.Fatal(err)
	}

	ents, _, err := ReadRecord(dir)
	if !errors.Is(err, ErrDamagedRecord) || errors.Is(err, ErrNoRecord) || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("a damaged first line reads as: %v", err)
	}
	if len(ents) == 0 {
		t.Fatal("nothing of the damaged record was returned")
	}
	if _, err := Resume(dir, Config{Device: newFakePhone(), Planner: &fakePlanner{}}); !errors.Is(err, ErrDamagedRecord) {
		t.Fatalf("resumed without a goal: %v", err)
	}

	planner := &fakePlanner{script: []step{reply(finish("done"))}}
	r, err := Resume(dir, Config{Goal: "count to three", DeviceID: "phone-1", Device: newFakePhone(), Planner: planner})
	if err != nil {
		t.Fatal(err)
	}
	if r.ID() != "run1" || r.settings.Policy.Off || !reflect.DeepEqual(r.settings.Policy, DefaultPolicy()) {
		t.Fatalf("id %q policy %+v", r.ID(), r.settings.Policy)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if res, err := r.Wait(ctx); err != nil || res.State != Done {
		t.Fatalf("%+v %v", res, err)
	}
	if h := planner.calls()[0].History; len(h) != 1 || h[0].Reply != "raw" {
		t.Fatalf("history %+v", h)
	}
	rr, err := ReadRecordAll(dir)
	if err != nil || !rr.Started() || len(rr.Damaged) > 0 || rr.Entries[0].Goal != "count to three" || rr.Entries[0].Device != "phone-1" {
		t.Fatalf("repaired record: damaged %v, first %+v, %v", rr.Damaged, rr.Entries[0], err)
	}
	if kept, err := os.ReadFile(filepath.Join(dir, damagedFile)); err != nil || string(kept) != string(damaged) {
		t.Fatalf("the damaged record was not kept: %v", err)
	}
}

// The words of the element an action hit come from the screen: a page of
// text on one node is cut like any other text of the record.
func TestBoundEntryCutsTheElement(t *testing.T) {
	long := strings.Repeat("w", 3*maxFieldBytes)
	e := &Entry{Kind: recAction, Target: long, Element: &Element{Label: long, Shown: long, ID: "id"}}
	b := boundEntry(e)
	if len(b.Target) > maxFieldBytes+8 || len(b.Element.Label) > maxFieldBytes+8 || len(b.Element.Shown) > maxFieldBytes+8 || b.Element.ID != "id" {
		t.Fatalf("not cut: %d %d %d", len(b.Target), len(b.Element.Label), len(b.Element.Shown))
	}
	if len(e.Element.Shown) != len(long) {
		t.Fatal("the loop's element was changed")
	}
}
