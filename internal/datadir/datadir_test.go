package datadir

import (
	"path/filepath"
	"testing"
)

func TestDirHonoursEnv(t *testing.T) {
	t.Setenv(Env, "/x/y")
	if got := Dir(); got != "/x/y" {
		t.Fatalf("Dir() = %q", got)
	}
	if got := Runs(Dir()); got != filepath.Join("/x/y", "runs") {
		t.Fatalf("Runs = %q", got)
	}
	t.Setenv(Env, "")
	if Dir() != OSDefault() {
		t.Fatal("without the variable Dir is the OS default")
	}
}
