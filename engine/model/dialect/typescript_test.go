package dialect

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// typeScript renders the dialects and their variants for the settings form
// (frontend/src/lib/gen/dialects.ts), so the form offers exactly what New
// accepts, with the same defaults.
func typeScript() string {
	var b strings.Builder
	b.WriteString("// Code generated from engine/model/dialect (Names, Variants) by\n")
	b.WriteString("// `go test ./engine/model/dialect -run TypeScript -update`. DO NOT EDIT.\n\n")
	b.WriteString("/** The reply formats, in the order settings show them. */\nexport const dialects = [")
	for i, n := range Names {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "'%s'", n)
	}
	b.WriteString("] as const\n\nexport type Dialect = (typeof dialects)[number]\n\n")
	b.WriteString("/** Each format's variants; the first is the default. */\nexport const variants: Record<Dialect, readonly string[]> = {\n")
	for _, n := range Names {
		fmt.Fprintf(&b, "  %s: [", n)
		for i, v := range Variants[n] {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "'%s'", v)
		}
		b.WriteString("],\n")
	}
	b.WriteString("}\n")
	return b.String()
}

func TestTypeScriptDialectsMatch(t *testing.T) {
	if len(Names) != len(Variants) {
		t.Fatalf("Names %v and Variants %v list different dialects", Names, Variants)
	}
	got := typeScript()
	path := filepath.Join("..", "..", "..", "frontend", "src", "lib", "gen", "dialects.ts")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./engine/model/dialect -run TypeScript -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from Names/Variants; run go test ./engine/model/dialect -run TypeScript -update", path)
	}
}
