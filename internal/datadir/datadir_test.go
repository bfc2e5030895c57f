package datadir

import (
	"path/filepath"
	"runtime"
	"testing"
)

func TestDir(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if got := Dir(env(map[string]string{Env: "/x/data", "XDG_DATA_HOME": "/y"})); got != "/x/data" {
		t.Fatalf("TANDEM_DATA_DIR: %s", got)
	}
	if runtime.GOOS == "linux" {
		if got := Dir(env(map[string]string{"XDG_DATA_HOME": "/y"})); got != "/y/tandem" {
			t.Fatalf("XDG_DATA_HOME: %s", got)
		}
	}
	if got := KeyboardNotes("/x/data"); got != filepath.Join("/x/data", "adb-state") {
		t.Fatal(got)
	}
	if got := Runs("/x/data"); got != filepath.Join("/x/data", "runs") {
		t.Fatal(got)
	}
}
