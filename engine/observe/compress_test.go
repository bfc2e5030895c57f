package observe

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"image"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// Real dumps; see testdata/ui_dumps/SOURCES.md for where each comes from.
func dumps(t testing.TB) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob("testdata/ui_dumps/*.xml")
	if err != nil || len(files) < 9 {
		t.Fatalf("dumps: %v %d", err, len(files))
	}
	m := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m[strings.TrimSuffix(filepath.Base(f), ".xml")] = b
	}
	return m
}

var sharedTokens = sync.OnceValues(NewTokens)

func tokens(t testing.TB) *Tokens {
	tk, err := sharedTokens()
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func TestCompressGolden(t *testing.T) {
	for name, dump := range dumps(t) {
		t.Run(name, func(t *testing.T) {
			c, err := Compress(dump, tokens(t), CompressOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.MarshalIndent(c, "", " ")
			got = append(got, '\n')
			golden := filepath.Join("testdata", "golden", name+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("compact state differs from %s (run with -update after checking):\n%s", golden, got)
			}
		})
	}
}

// rawNode is an independent reading of the dump (encoding/xml into structs),
// so the coverage check does not trust the compressor's own parser.
type rawNode struct {
	Clickable string    `xml:"clickable,attr"`
	Long      string    `xml:"long-clickable,attr"`
	Enabled   string    `xml:"enabled,attr"`
	Bounds    string    `xml:"bounds,attr"`
	Text      string    `xml:"text,attr"`
	Desc      string    `xml:"content-desc,attr"`
	Nodes     []rawNode `xml:"node"`
}

func flatten(ns []rawNode, out *[]rawNode) {
	for _, n := range ns {
		*out = append(*out, n)
		flatten(n.Nodes, out)
	}
}

func TestCompressKeepsEveryTappableNode(t *testing.T) {
	for name, dump := range dumps(t) {
		var h struct {
			Nodes []rawNode `xml:"node"`
		}
		d := newLenientDecoder(dump)
		if err := d.Decode(&h); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var all []rawNode
		flatten(h.Nodes, &all)
		c, err := Compress(dump, nil, CompressOptions{})
		if err != nil {
			t.Fatal(err)
		}
		screen := image.Rect(0, 0, c.Screen[0], c.Screen[1])
		tappable := 0
		for _, n := range all {
			if (n.Clickable != "true" && n.Long != "true") || n.Enabled == "false" {
				continue
			}
			r, ok := parseBounds(n.Bounds)
			r = r.Intersect(screen)
			if !ok || r.Empty() {
				continue
			}
			tappable++
			kept := false
			for _, e := range c.Elements {
				if len(e.Actions) > 0 && r.In(e.Rect()) {
					kept = true
					break
				}
			}
			if !kept {
				t.Errorf("%s: tappable node %q/%q %v is in no kept element", name, n.Text, n.Desc, r)
			}
		}
		t.Logf("%s: %d nodes, %d tappable, %d elements", name, len(all), tappable, len(c.Elements))
	}
}

func TestCompressRatio(t *testing.T) {
	for name, dump := range dumps(t) {
		c, err := Compress(dump, tokens(t), CompressOptions{})
		if err != nil {
			t.Fatal(err)
		}
		nodes := bytes.Count(dump, []byte("<node "))
		ratio := float64(c.Tokens) / float64(c.RawTokens)
		t.Logf("%s: %d nodes, %d -> %d tokens (%.1f%%)", name, nodes, c.RawTokens, c.Tokens, 100*ratio)
		if nodes >= 100 && ratio > 0.25 {
			t.Errorf("%s: %d nodes compress to %.1f%% of the raw tokens, want <= 25%%", name, nodes, 100*ratio)
		}
	}
}

func TestCompressCases(t *testing.T) {
	d := dumps(t)
	// A dialog's dump: the root is not full-screen; screen inferred from it
	// unless the device size is given.
	c, err := Compress(d["05_wework_invite_dialog"], nil, CompressOptions{})
	if err != nil || c.Screen != [2]int{686, 1057} {
		t.Fatalf("inferred screen %v %v", c.Screen, err)
	}
	c, _ = Compress(d["05_wework_invite_dialog"], nil, CompressOptions{Screen: image.Pt(720, 1608)})
	if c.Screen != [2]int{720, 1608} || !hasElement(c, "邀请", "tap") || !hasElement(c, "取消", "tap") {
		t.Fatalf("dialog %+v", c)
	}
	// Labels pulled up from children of unlabelled clickable rows.
	c, _ = Compress(d["01_futu_trader_position_history"], nil, CompressOptions{})
	rows := 0
	for _, e := range c.Elements {
		if len(e.Actions) > 0 && e.Text != "" && e.Type == "item" {
			rows++
		}
	}
	if rows < 5 {
		t.Errorf("futu: %d labelled rows, want the list rows to carry their children's text", rows)
	}
	// U+00A0 normalized, CJK kept.
	c, _ = Compress(d["whatsapp"], nil, CompressOptions{})
	for _, e := range c.Elements {
		if strings.ContainsRune(e.Text, '\u00a0') {
			t.Errorf("no-break space kept in %q", e.Text)
		}
	}
	c, _ = Compress(d["04_vivo_launcher_home"], nil, CompressOptions{})
	if !hasElement(c, "微信", "tap") || !hasElement(c, "番茄免费小说", "tap") {
		t.Errorf("launcher icons missing: %s", c.Text())
	}
	// A game: nothing actionable, one label: the caller should look.
	c, _ = Compress(d["game_marvel_sparse"], nil, CompressOptions{})
	if len(c.Elements) != 1 || c.Elements[0].Text != "Game view" || c.Rotation != 1 {
		t.Errorf("game %+v", c)
	}
}

func hasElement(c *Compact, text, action string) bool {
	for _, e := range c.Elements {
		if strings.Contains(e.Text, text) {
			for _, a := range e.Actions {
				if a == action {
					return true
				}
			}
		}
	}
	return false
}

func TestCompressMaxTokens(t *testing.T) {
	dump := dumps(t)["wework_messages_zh"]
	full, _ := Compress(dump, tokens(t), CompressOptions{})
	for _, limit := range []int{full.Tokens / 2, full.Tokens / 4, 50} {
		c, err := Compress(dump, tokens(t), CompressOptions{MaxTokens: limit})
		if err != nil {
			t.Fatal(err)
		}
		if c.Tokens > limit && len(c.Elements) > 0 {
			t.Errorf("limit %d: %d tokens", limit, c.Tokens)
		}
		for i, e := range c.Elements {
			if e.I != i {
				t.Fatalf("indices not dense after fitting")
			}
		}
	}
}

func TestCompressBadInput(t *testing.T) {
	for _, in := range []string{"", "hello", "{}", "<html><body/></html>", "<hierarchy><node bounds=\"[0,0][1,1]\">",
		"<?xml version='1.0'?><hierarchy rotation=\"0\"><node></hierarchy>"} {
		if _, err := Compress([]byte(in), nil, CompressOptions{}); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
	c, err := Compress([]byte(`<hierarchy rotation="0"/>`), nil, CompressOptions{})
	if err != nil || len(c.Elements) != 0 {
		t.Errorf("empty dump: %v %+v", err, c)
	}
	c, err = Compress([]byte(`<hierarchy><node text="a&amp;b&nbsp;c" clickable="true" bounds="[0,0][10,10]"/><node text="x" bounds="junk"/></hierarchy>`), nil, CompressOptions{})
	if err != nil || len(c.Elements) != 1 || c.Elements[0].Text != "a&b c" {
		t.Errorf("entities: %v %+v", err, c)
	}
}

// A dump of 40,000 nodes compresses whole (every row kept); how fast is
// BenchmarkCompress's figure, not a busy machine's.
func TestCompressLargeDump(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<hierarchy rotation="0"><node class="android.widget.FrameLayout" bounds="[0,0][1080,2400]">`)
	for i := range 20000 {
		fmt.Fprintf(&b, `<node text="row %d" class="android.widget.TextView" bounds="[0,%d][1080,%d]"/>`, i%50, i%2400, i%2400+1)
		fmt.Fprintf(&b, `<node text="" clickable="true" bounds="[0,%d][540,%d]"/>`, i%2400, i%2400+1)
	}
	b.WriteString(`</node></hierarchy>`)
	c, err := Compress([]byte(b.String()), nil, CompressOptions{})
	if err != nil || len(c.Elements) < 20000 {
		t.Fatalf("%v, %d elements", err, len(c.Elements))
	}
}

// FuzzCompress starts from small seeds, so it runs fast (well over 100k
// executions a minute); the real dumps and the huge inputs are table tests
// (TestCompressBounds and the golden tests).
func FuzzCompress(f *testing.F) {
	for _, seed := range []string{
		`<hierarchy><node bounds="[-5,-5][99999999999,3]" clickable="true"/></hierarchy>`,
		`<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="1"><node index="0" text="" class="android.widget.FrameLayout" package="com.android.settings" bounds="[0,0][1080,2400]"><node text="Wi‑Fi" clickable="true" bounds="[0,200][1080,320]"><node text="On" bounds="[900,220][1060,300]"/></node><node class="android.widget.EditText" text="搜索" bounds="[40,40][1040,160]"/></node></hierarchy>`,
		`<hierarchy><node scrollable="true" bounds="[0,0][100,100]"><node long-clickable="true" content-desc="photo" bounds="[0,0][50,50]"/><node checkable="true" checked="true" text="x" bounds="[50,50][100,100]"/></node></hierarchy>`,
		`<hierarchy><node bounds="[0,0][10,10]"><node><node><node text="deep" bounds="[1,1][2,2]"/></node></node></node></hierarchy>`,
		`<hierarchy><foo><node text="a&amp;b" bounds="[0,0][5,5]"/></foo></hierarchy>`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, dump []byte) {
		c, err := Compress(dump, nil, CompressOptions{MaxLabel: 10})
		if err != nil {
			return
		}
		screen := image.Rect(0, 0, c.Screen[0], c.Screen[1])
		for i, e := range c.Elements {
			if e.I != i || !e.Rect().In(screen) || e.Rect().Empty() {
				t.Fatalf("element %+v on %v", e, screen)
			}
		}
		if _, err := json.Marshal(c); err != nil {
			t.Fatal(err)
		}
		_ = c.Text()
	})
}

// BenchmarkCompress: one op compresses one real dump (round robin), token
// counts included; tokens-ratio is compact over raw tokens summed over all.
func BenchmarkCompress(b *testing.B) {
	var ds [][]byte
	for _, d := range dumps(b) {
		ds = append(ds, d)
	}
	tk := tokens(b)
	var raw, compact float64
	i := 0
	for b.Loop() {
		c, err := Compress(ds[i%len(ds)], tk, CompressOptions{})
		if err != nil {
			b.Fatal(err)
		}
		raw += float64(c.RawTokens)
		compact += float64(c.Tokens)
		i++
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
	b.ReportMetric(compact/raw, "tokens-ratio")
}

func newLenientDecoder(b []byte) *xml.Decoder {
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = false
	d.Entity = xml.HTMLEntity
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	return d
}

// TestCompressBounds: inputs past the compressor's bounds end at once with
// an error saying which bound, instead of taking seconds and hundreds of MB
// (a 99k-deep dump took 3 s and 318 MB).
func TestCompressBounds(t *testing.T) {
	deep := func(n int) []byte {
		return []byte("<hierarchy>" + strings.Repeat(`<node bounds="[0,0][10,10]">`, n) + strings.Repeat("</node>", n) + "</hierarchy>")
	}
	wide := func(n int) []byte {
		return []byte("<hierarchy>" + strings.Repeat(`<node text="a" bounds="[0,0][10,10]"/>`, n) + "</hierarchy>")
	}
	big := []byte("<hierarchy><node text=\"" + strings.Repeat("x", MaxDumpBytes) + "\" bounds=\"[0,0][9,9]\"/></hierarchy>")
	cases := []struct {
		name string
		dump []byte
		want string // "" for success
	}{
		{"deep within the bound", deep(MaxDepth - 1), ""},
		{"99k deep", deep(99_000), "nested deeper than"},
		{"just past the depth", deep(MaxDepth + 1), "nested deeper than"},
		{"100001 nodes", wide(100_001), "more than 100000 nodes"},
		{"larger than the size bound", big, "larger than"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compress(tc.dump, nil, CompressOptions{})
			switch {
			case tc.want == "" && err != nil:
				t.Fatal(err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrNotDump)):
				t.Fatalf("err %v, want one saying %q", err, tc.want)
			}
		})
	}
}
