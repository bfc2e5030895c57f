package tsgen

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

type level int

func (l level) MarshalText() ([]byte, error) { return []byte("x"), nil }

type inner struct {
	A int `json:"a"`
}

type Embedded struct {
	E string `json:"e"`
}

type outer struct {
	Embedded
	Name    string            `json:"name"`
	Opt     *inner            `json:"opt,omitempty"`
	List    []inner           `json:"list"`
	Tags    map[string]string `json:"tags,omitempty"`
	When    time.Time         `json:"when"`
	Wait    time.Duration     `json:"wait"`
	Level   level             `json:"level"`
	Raw     []byte            `json:"raw"`
	Skip    string            `json:"-"`
	private int
	Untaged bool
	Any     any `json:"any"`
	Point   struct {
		X int `json:"x"`
		Y int `json:"y,omitempty"`
	} `json:"point"`
}

func TestGenerate(t *testing.T) {
	got, err := Generate("// h\n", outer{})
	if err != nil {
		t.Fatal(err)
	}
	want := `// h

/** tsgen.inner */
export interface inner {
  a: number
}

/** tsgen.outer */
export interface outer {
  e: string
  name: string
  opt?: inner
  list: inner[]
  tags?: Record<string, string>
  when: string
  wait: number
  level: string
  raw: string
  Untaged: boolean
  any: unknown
  point: { x: number; y?: number }
}
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestRootsMustBeNamedStructs(t *testing.T) {
	if _, err := Generate("", 3); err == nil {
		t.Error("a root that is not a struct is refused")
	}
	if _, err := Generate("", struct{ A int }{}); err == nil {
		t.Error("an anonymous root is refused (it would have no name)")
	}
}

func TestSameNameTwoPackagesArePrefixed(t *testing.T) {
	type Time struct {
		T time.Time `json:"t"`
	}
	got := names([]reflect.Type{reflect.TypeFor[Time](), reflect.TypeFor[time.Time](), reflect.TypeFor[inner]()})
	if got[reflect.TypeFor[Time]()] != "TsgenTime" || got[reflect.TypeFor[time.Time]()] != "TimeTime" || got[reflect.TypeFor[inner]()] != "inner" {
		t.Errorf("names = %v", got)
	}
}

// A struct another module declares is imported from it, not declared
// again, and named as there.
func TestImportedStructsAreNotDeclared(t *testing.T) {
	type user struct {
		In inner `json:"in"`
	}
	got, err := Generate("", Import{From: "./types", Types: []any{inner{}}}, user{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "import type { inner } from './types'\n") || strings.Contains(got, "export interface inner") ||
		!strings.Contains(got, "  in: inner\n") {
		t.Errorf("generated:\n%s", got)
	}
}
