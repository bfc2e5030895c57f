package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every mutant's text is in its file exactly once, so `make mutants`
// plants each where it is meant to, and a change to the core that moves
// one fails here, in make test, rather than in the next make mutants.
func TestEveryMutantPlantsOnce(t *testing.T) {
	names := map[string]bool{}
	for _, m := range mutants() {
		if names[m.name] {
			t.Errorf("two mutants named %s", m.name)
		}
		names[m.name] = true
		b, err := os.ReadFile(filepath.Join("..", "..", m.file))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), m.old); n != 1 || m.old == m.new {
			t.Errorf("%s: %s holds its text %d times (want once), or it changes nothing", m.name, m.file, n)
		}
	}
	if len(names) < 8 {
		t.Errorf("%d mutants; issue 50 asks for at least 8", len(names))
	}
}
