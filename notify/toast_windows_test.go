package notify

import (
	"context"
	"os/exec"
	"testing"
	"time"
)

// Where Windows PowerShell is missing (Wine), Show says so at once; where
// it is there, a toast is shown or its failure is said, never a hang.
func TestAToastIsShownOrRefused(t *testing.T) {
	n := New(nil)
	defer n.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := n.Show(ctx, Note{Summary: "Tandem", Body: "a test", Tag: "t"})
	if _, lookErr := exec.LookPath("powershell.exe"); lookErr != nil && err == nil {
		t.Fatal("no PowerShell, yet the toast went without an error")
	}
	if ctx.Err() != nil {
		t.Fatalf("Show hung: %v", err)
	}
	t.Logf("Show: %v", err)
}
