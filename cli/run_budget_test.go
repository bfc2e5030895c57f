package cli

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"tandem/internal/modeltest"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// `tandem run --max-steps N` sends at most N requests to the model, with
// the early call (a call started on the first capture after an action,
// engine/speculate.go) and without it (Settings' wait_to_ask): with the
// budget used up no call starts on any path (issue 50). Counted at the
// model server, from outside. The model taps +1 for ever; the run asks
// the person at the budget, and the empty terminal stops it.
func TestRunMaxStepsBoundsModelCalls(t *testing.T) {
	const n = 3
	for _, waitToAsk := range []bool{false, true} {
		t.Run("wait_to_ask="+strconv.FormatBool(waitToAsk), func(t *testing.T) {
			phone, env := vphonetest.Start(t, vphone.WithSize(360, 800))
			if err := phone.Launch(vphone.PkgCounter); err != nil {
				t.Fatal(err)
			}
			plus := centre(t, phone, "+1")
			srv := modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply {
				return toolReply("Tap +1.", "tap", plus)
			})
			cfg := t.TempDir()
			settings := `{"wait_to_ask":` + strconv.FormatBool(waitToAsk) + `}`
			if err := os.WriteFile(filepath.Join(cfg, "settings.json"), []byte(settings), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv("TANDEM_CONFIG_DIR", cfg)
			t.Setenv("TANDEM_DATA_DIR", t.TempDir())
			var out, errOut syncBuffer
			Run(context.Background(), Env{Args: []string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", env.Serial,
				"--goal", "Count for ever", "--max-steps", strconv.Itoa(n), "--base-url", srv.URL, "--data-dir", t.TempDir()},
				Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
			if c := phone.State().Counter; c != n {
				t.Fatalf("counter %d, want %d\nstdout:\n%s\nstderr:\n%s", c, n, out.String(), errOut.String())
			}
			got := len(srv.Requests())
			if got > n {
				t.Fatalf("%d requests to the model with --max-steps %d\nstdout:\n%s", got, n, out.String())
			}
			t.Logf("%d requests to the model with --max-steps %d", got, n)
		})
	}
}
