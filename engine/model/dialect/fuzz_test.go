package dialect

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"tandem/engine/model"
)

// fuzzParse feeds arbitrary replies to one dialect: it must not panic, must
// answer quickly, and every action it returns must be valid on the screen.
func fuzzParse(f *testing.F, name, variant string, dirs ...string) {
	for _, d := range dirs {
		files, _ := filepath.Glob(filepath.Join("testdata/replies", d, "*.txt"))
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(string(b))
		}
	}
	d, err := New(name, variant)
	if err != nil {
		f.Fatal(err)
	}
	g := model.Geometry{Screen: phone, Elements: jsonElements}
	f.Fuzz(func(t *testing.T, s string) {
		// Go's regexp runs in linear time, so no input can make the parser
		// backtrack for ever; a hang would show as the fuzzer's own timeout.
		p, err := d.Parse(model.Reply{Content: s}, g)
		if err != nil {
			if !errors.As(err, new(*model.ParseError)) {
				t.Fatalf("error %T, want *model.ParseError", err)
			}
			return
		}
		if len(p.Actions) == 0 {
			t.Fatal("no actions and no error")
		}
		for _, a := range p.Actions {
			if err := a.Validate(phone); err != nil {
				t.Fatalf("invalid action %v: %v", a, err)
			}
		}
		_ = d.StreamDone(s)
	})
}

func FuzzParseTools(f *testing.F)   { fuzzParse(f, "tools", "rel1000", "openai") }
func FuzzParseAutoGLM(f *testing.F) { fuzzParse(f, "autoglm", "", "autoglm") }
func FuzzParseUITARS(f *testing.F)  { fuzzParse(f, "uitars", "1.5", "uitars") }
func FuzzParseJSON(f *testing.F)    { fuzzParse(f, "json", "", "json") }

func BenchmarkParse(b *testing.B) {
	byDialect := map[string][]goldenCase{}
	for _, c := range goldenCases() {
		byDialect[c.dialect] = append(byDialect[c.dialect], c)
	}
	for _, name := range Names {
		b.Run(name, func(b *testing.B) {
			type input struct {
				d   model.Dialect
				g   model.Geometry
				raw string
			}
			var ins []input
			for _, c := range byDialect[name] {
				raw, err := os.ReadFile(filepath.Join("testdata/replies", c.file))
				if err != nil {
					b.Fatal(err)
				}
				d, err := New(c.dialect, c.variant)
				if err != nil {
					b.Fatal(err)
				}
				ins = append(ins, input{d, model.Geometry{Screen: c.screen, Image: c.image, Elements: jsonElements}, string(raw)})
			}
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				in := ins[i%len(ins)]
				_, _ = in.d.Parse(model.Reply{Content: in.raw}, in.g)
			}
			b.ReportMetric(float64(time.Since(start).Microseconds())/float64(b.N), "µs/op")
		})
	}
}
