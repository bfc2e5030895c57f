package xvfb

import (
	"os/exec"
	"strings"
	"testing"
)

func TestStartServesADisplayOfTheAskedSize(t *testing.T) {
	d := Start(t, 1280, 720)
	cmd := exec.Command("xdpyinfo")
	cmd.Env = d.Env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		if _, lerr := exec.LookPath("xdpyinfo"); lerr != nil {
			t.Skip("xdpyinfo (x11-utils) not installed")
		}
		t.Fatalf("xdpyinfo: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "dimensions:    1280x720 pixels") {
		t.Fatalf("unexpected display:\n%s", out)
	}
}

func TestTwoDisplaysAtOnce(t *testing.T) {
	a := Start(t, 640, 480)
	b := Start(t, 640, 480)
	if a.Num == b.Num {
		t.Fatalf("both on :%d", a.Num)
	}
}
