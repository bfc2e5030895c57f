// Package tsgen writes TypeScript interfaces for the Go structs that cross
// the bridge to the UI, read by reflection from their JSON encoding (field
// names from json tags, omitempty as optional, types that marshal as text
// as strings).
//
// Why a package of its own: the UI's types were copied by hand from the Go
// structs and drifted (a field added in Go was missing in TypeScript). The
// generated file is checked in and pinned by a test in the package that owns
// the roots (app), and the UI's hand-written types are checked against it
// at compile time (frontend/src/lib/gen/check.ts), so a change on either
// side fails the suite until both agree.
package tsgen

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"
)

var (
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	timeType      = reflect.TypeFor[time.Time]()
	durationType  = reflect.TypeFor[time.Duration]()
)

// Import names structs another generated module declares: a module that
// reaches them imports them from From instead of declaring them again.
type Import struct {
	From  string
	Types []any
}

// Generate returns a TypeScript module declaring an interface for each root
// struct and every struct it reaches. Names are the Go type names; where two
// packages use the same name, both are prefixed with their package's name
// (Settings → BackendSettings, EngineSettings). header is written first. A
// root that is an Import is not declared: its types are imported.
func Generate(header string, roots ...any) (string, error) {
	g := &gen{seen: map[reflect.Type]bool{}}
	var imports []string
	imported := map[reflect.Type]string{}
	for _, r := range roots {
		if im, ok := r.(Import); ok {
			var names []string
			for _, x := range im.Types {
				t := reflect.TypeOf(x)
				g.seen[t], imported[t] = true, t.Name()
				names = append(names, t.Name())
			}
			sort.Strings(names)
			imports = append(imports, fmt.Sprintf("import type { %s } from '%s'\n", strings.Join(names, ", "), im.From))
			continue
		}
		t := reflect.TypeOf(r)
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || t.Name() == "" {
			return "", fmt.Errorf("tsgen: root %s is not a named struct", t)
		}
		g.collect(t)
	}
	g.name = names(g.order)
	for t, n := range imported {
		g.name[t] = n
	}
	var b strings.Builder
	b.WriteString(header)
	for _, im := range imports {
		b.WriteString(im)
	}
	sorted := append([]reflect.Type(nil), g.order...)
	sort.Slice(sorted, func(i, j int) bool { return g.name[sorted[i]] < g.name[sorted[j]] })
	for _, t := range sorted {
		fmt.Fprintf(&b, "\n/** %s */\nexport interface %s {\n", t.String(), g.name[t])
		for _, f := range fields(t) {
			opt := ""
			if f.optional {
				opt = "?"
			}
			fmt.Fprintf(&b, "  %s%s: %s\n", f.name, opt, g.ts(f.typ))
		}
		b.WriteString("}\n")
	}
	return b.String(), nil
}

type gen struct {
	seen  map[reflect.Type]bool
	order []reflect.Type
	name  map[reflect.Type]string
}

type field struct {
	name     string
	typ      reflect.Type
	optional bool
}

// plain reports whether t is written as a JSON string by its own methods.
func plain(t reflect.Type) bool {
	return t == timeType || t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler)
}

func (g *gen) collect(t reflect.Type) {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		g.collect(t.Elem())
		return
	case reflect.Struct:
	default:
		return
	}
	if plain(t) || t.Implements(jsonMarshaler) || g.seen[t] {
		return
	}
	g.seen[t] = true
	if t.Name() != "" { // an anonymous struct is written inline
		g.order = append(g.order, t)
	}
	for _, f := range fields(t) {
		g.collect(f.typ)
	}
}

// fields lists a struct's JSON fields in declaration order, embedded
// structs' fields inline, as encoding/json does.
func fields(t reflect.Type) []field {
	var out []field
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			et := ft
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				out = append(out, fields(et)...)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		optional := strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
		if strings.Contains(opts, "string") {
			ft = reflect.TypeFor[string]()
		}
		out = append(out, field{name: name, typ: ft, optional: optional})
	}
	return out
}

func (g *gen) ts(t reflect.Type) string {
	switch {
	case t == durationType:
		return "number"
	case plain(t):
		return "string"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.ts(t.Elem())
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string" // base64
		}
		return g.ts(t.Elem()) + "[]"
	case reflect.Map:
		return "Record<string, " + g.ts(t.Elem()) + ">"
	case reflect.Struct:
		if n, ok := g.name[t]; ok {
			return n
		}
		if t.Name() == "" {
			var parts []string
			for _, f := range fields(t) {
				opt := ""
				if f.optional {
					opt = "?"
				}
				parts = append(parts, f.name+opt+": "+g.ts(f.typ))
			}
			return "{ " + strings.Join(parts, "; ") + " }"
		}
	default: // the others need nothing here
	}
	return "unknown"
}

// names gives each struct its Go name, prefixed with its package's name
// where two share one.
func names(types []reflect.Type) map[reflect.Type]string {
	count := map[string]int{}
	for _, t := range types {
		count[t.Name()]++
	}
	out := map[reflect.Type]string{}
	for _, t := range types {
		n := t.Name()
		if count[n] > 1 {
			pkg := t.PkgPath()
			pkg = pkg[strings.LastIndex(pkg, "/")+1:]
			n = strings.ToUpper(pkg[:1]) + pkg[1:] + n
		}
		out[t] = n
	}
	return out
}
