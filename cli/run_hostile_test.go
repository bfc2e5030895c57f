package cli

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"tandem/internal/modeltest"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// A phone that claims a 100000x100000 screen (in `wm size` and in its
// screenshots' headers) does not crash `tandem run`, nor get a tap: the
// run ends with words that name the phone and its claim.
func TestRunRefusesALyingPhone(t *testing.T) {
	phone, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	phone.SetClaimedScreen(100000, 100000)
	srv := modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply {
		return toolReply("Tap the middle.", "tap", `{"x":705,"y":500}`)
	})
	var out, errOut syncBuffer
	code := Run(context.Background(), Env{Args: []string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", env.Serial,
		"--goal", "Open the counter", "--base-url", srv.URL, "--data-dir", t.TempDir()},
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	all := out.String() + errOut.String()
	if code == ExitOK {
		t.Fatalf("the run succeeded on a phone that lies:\n%s", all)
	}
	if !strings.Contains(all, env.Serial) || !strings.Contains(all, "100000x100000") {
		t.Fatalf("the terminal does not say which phone claimed what:\n%s", all)
	}
	if ev := phone.Events(); len(ev) != 0 {
		t.Fatalf("the phone got input: %+v\n%s", ev, all)
	}
}
