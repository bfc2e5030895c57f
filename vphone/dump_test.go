package vphone

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// The dumps of the built-in screens are pinned by golden files; run with
// -update after an intended change and review the diff.
func TestDumpGolden(t *testing.T) {
	cases := []struct {
		name string
		pkg  string
		size [2]int
	}{
		{"launcher", PkgLauncher, [2]int{1080, 2400}},
		{"counter", PkgCounter, [2]int{1080, 2400}},
		{"dialog", PkgDialog, [2]int{1080, 2400}},
		{"chat_zh", PkgChat, [2]int{1080, 2400}},
		{"game", PkgGame, [2]int{1080, 2400}},
		{"form_720", PkgForm, [2]int{720, 1600}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(WithSize(tc.size[0], tc.size[1]))
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Launch(tc.pkg); err != nil {
				t.Fatal(err)
			}
			got := p.UIDump()
			path := filepath.Join("testdata", "dump_"+tc.name+".xml")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if string(got) != string(want) {
				t.Errorf("dump differs from %s:\ngot  %s\nwant %s", path, got, want)
			}
		})
	}
}
