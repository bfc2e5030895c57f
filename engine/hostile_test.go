package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tandem/engine/model"
	"tandem/internal/modeltest"
	"tandem/vphone"
)

// TestScenarioHostileModel: through the real adb server and the virtual
// phone, a model server that misbehaves ends the planning step within the
// client's bounds and asks the person, with words that say what happened;
// the record and the request hold no piece of the key.
func TestScenarioHostileModel(t *testing.T) {
	t.Parallel()
	const key = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
	bounds := func(c *model.ClientConfig) {
		c.APIKey = key
		// Bounds far from the servers' own pace (a drip every 30 ms, an
		// endless stream) so a busy machine cannot turn one case into
		// another: an idle bound 50 times the drip's gap.
		c.Timeout, c.FirstByte, c.Idle = 4*time.Second, 1500*time.Millisecond, 1500*time.Millisecond
		c.MaxReplyBytes = 256 << 10
		c.Retries = 1
	}
	cases := []struct {
		name  string
		rep   modeltest.Reply
		want  string
		cause Cause // the case the UI words in the person's language
	}{
		{"stalls", modeltest.Reply{Silent: true}, "timed out: no first byte of the reply", Cause{Code: CauseModelNoFirstByte, N: "2"}},
		{"stops midway", modeltest.Reply{Content: "abc", Hold: true}, "timed out: the reply stopped coming", Cause{Code: CauseModelStalled, N: "2"}},
		{"drips", modeltest.Reply{Content: strings.Repeat("x", 400), Drip: 30 * time.Millisecond}, "timed out: no complete reply", Cause{Code: CauseModelTimeout, N: "4"}},
		{"streams forever", modeltest.Reply{Forever: true}, "larger than 256 KiB and was cut off", Cause{Code: CauseModelTooLarge, N: "256 KiB"}},
		{"answers a web page", modeltest.Reply{Body: "<!doctype html><html><body>Router login</body></html>"}, "the server answered with a web page, not the API (check the base URL", Cause{Code: CauseModelWebPage}},
		{"echoes the key", modeltest.Reply{EchoKey: true}, "model API error 401", Cause{Code: CauseModelKey}},
	}
	g := newRig(t)
	g.launch(vphone.PkgCounter)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply { return tc.rep })
			s := g.start(srv, "Make the counter show 1", Settings{}, plannerOpts{client: bounds})
			s.ev.waitState(t, WaitingForUser)
			reqs := s.ev.kinds(KindRequest)
			req := reqs[len(reqs)-1].Request
			msg := req.Message
			if !strings.Contains(msg, tc.want) {
				t.Fatalf("the person was told %q, want %q", msg, tc.want)
			}
			if c := req.Cause; c == nil || c.Code != tc.cause.Code || c.N != tc.cause.N ||
				(tc.cause.Code == CauseModelWebPage && !strings.HasPrefix(c.Detail, "http://127.0.0.1:")) {
				t.Fatalf("cause %+v, want %+v", c, tc.cause)
			}
			if err := s.run.Stop(context.Background()); err != nil {
				t.Fatal(err)
			}
			if res := s.wait(); res.State != Stopped {
				t.Fatalf("result %+v", res)
			}
			b, err := os.ReadFile(filepath.Join(s.run.Dir(), recordFile))
			if err != nil {
				t.Fatal(err)
			}
			for _, text := range []string{string(b), msg} {
				lt := strings.ToLower(text)
				for i := 0; i+6 <= len(key); i++ {
					if strings.Contains(lt, strings.ToLower(key[i:i+6])) {
						t.Fatalf("%q of the key reached the record or the request", key[i:i+6])
					}
				}
			}
		})
	}
}

// TestScenarioWaitingForModel: a model that takes its time is shown as
// waiting, with the seconds waited going up, and Stop ends the run at
// once while the server is still silent.
func TestScenarioWaitingForModel(t *testing.T) {
	t.Parallel()
	g := newRig(t)
	g.launch(vphone.PkgCounter)
	srv := modeltest.New(t, modeltest.Reply{Silent: true})
	s := g.start(srv, "Make the counter show 1", Settings{}, plannerOpts{})
	waitFor(t, "two waiting events", func() bool { return len(s.ev.kinds(KindWaiting)) >= 2 })
	w := s.ev.kinds(KindWaiting)
	if w[0].Waiting.Call != 1 || w[0].Waiting.ElapsedMs < 900 || w[1].Waiting.ElapsedMs <= w[0].Waiting.ElapsedMs {
		t.Fatalf("waiting events %+v %+v", w[0].Waiting, w[1].Waiting)
	}
	if snap := s.run.Snapshot(); snap.Waiting == nil || snap.Waiting.Since.IsZero() {
		t.Fatalf("the snapshot does not say the run waits: %+v", snap.Waiting)
	}
	if err := s.run.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if res := s.waitUpTo(5 * time.Second); res.State != Stopped {
		t.Fatalf("result %+v", res)
	}
	if srv.Active() != 0 {
		waitFor(t, "the server to see the call end", func() bool { return srv.Active() == 0 })
	}
	n := len(s.ev.kinds(KindWaiting))
	if s.run.Snapshot().Waiting != nil {
		t.Fatal("the ended run still shows waiting")
	}
	if len(s.ev.kinds(KindWaiting)) != n {
		t.Fatal("waiting events after the run ended")
	}
}
