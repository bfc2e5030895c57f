package engine

import (
	"os"
	"testing"
)

func TestElementAtOnARealDump(t *testing.T) {
	// A real WeWork invite dialog (SOURCES in observe/testdata/ui_dumps).
	dump, err := os.ReadFile("observe/testdata/ui_dumps/05_wework_invite_dialog.xml")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name       string
		x, y       int
		label      string
		bounds     Region
		wantAbsent bool
	}{
		{"the invite button", 556, 950, "邀请 com.tencent.wework:id/dbo", Region{496, 915, 616, 987}, false},
		{"the cancel button's corner", 346, 915, "取消 com.tencent.wework:id/dbl", Region{346, 915, 466, 987}, false},
		{"off the screen", -5, 99999, "", Region{}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, ok := elementAt(dump, c.x, c.y)
			if ok == c.wantAbsent || e.Label != c.label || e.Bounds != c.bounds {
				t.Fatalf("elementAt(%d,%d) = %+v %v", c.x, c.y, e, ok)
			}
			if got := labelAt(dump, c.x, c.y); got != c.label {
				t.Fatalf("labelAt = %q", got)
			}
		})
	}
	if _, ok := elementAt(nil, 1, 1); ok {
		t.Fatal("an element in no tree")
	}
}
