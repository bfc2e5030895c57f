package observe

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tiktoken-go/tokenizer"
)

var updateVocab = flag.Bool("update-vocab", false, "rewrite o200k.bin from the tokenizer library")

// libraryTokens is the tokenizer library's o200k_base codec (it loads the
// vocabulary as a map into this test process).
func libraryTokens(t *testing.T) tokenizer.Codec {
	t.Helper()
	c, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestVocabTable: o200k.bin holds the library's vocabulary, id by id.
func TestVocabTable(t *testing.T) {
	c := libraryTokens(t)
	var tokens [][]byte
	for id, gap := uint(0), 0; gap < 64; id++ {
		s, err := c.Decode([]uint{id})
		if err != nil {
			gap++
			tokens = append(tokens, nil)
			continue
		}
		gap = 0
		tokens = append(tokens, []byte(s))
	}
	for len(tokens) > 0 && tokens[len(tokens)-1] == nil {
		tokens = tokens[:len(tokens)-1]
	}
	want := buildVocab(tokens)
	if *updateVocab {
		if err := os.WriteFile("o200k.bin", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(o200kTable, want) {
		t.Fatalf("o200k.bin is not the library's vocabulary (%d tokens); run with -update-vocab", len(tokens))
	}
	v := newVocab(o200kTable)
	for _, id := range []uint32{0, 1000, 199997} {
		if got := v.rank(string(v.token(id))); got != id {
			t.Errorf("rank of token %d = %d", id, got)
		}
	}
}

// TestTokensCountIsTheLibrarys: the counter gives the library's count, on
// the UI dumps, prompts in English and Chinese, and pieces long enough for
// the heap merge.
func TestTokensCountIsTheLibrarys(t *testing.T) {
	c := libraryTokens(t)
	tk, err := NewTokens()
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"", "hello world", "打开微信，给张三发消息：明天见", "Tap the ‘Send’ button 🙂 at (540, 1200).",
		strings.Repeat("a", 300), strings.Repeat("ab1 ", 50), strings.Repeat("xyzq", 40), "\xff\xfe", "don't  \n\n  they'll",
		strings.Repeat("的", 120), strings.Repeat("=", 200) + "\r\n"}
	dumps, _ := filepath.Glob("testdata/ui_dumps/*.xml")
	for _, d := range dumps {
		b, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	for i, s := range texts {
		want, err := c.Count(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := tk.Count(s); got != want {
			t.Errorf("text %d (%.30q): %d tokens, the library %d", i, s, got, want)
		}
	}
}

// TestTokensLeaveTheHeapFree: counting tokens puts no vocabulary on the heap
// for the garbage collector to walk at every cycle (the library's map held
// 7 MB of it for the life of the process). Run in a process of its own, so
// that the library's tests here do not load it first.
func TestTokensLeaveTheHeapFree(t *testing.T) {
	if os.Getenv("TANDEM_TOKENS_HEAP") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestTokensLeaveTheHeapFree$", "-test.v")
		cmd.Env = append(os.Environ(), "TANDEM_TOKENS_HEAP=1")
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if errors.As(err, &exit) || !bytes.Contains(out, []byte("--- PASS")) {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	tk, err := NewTokens()
	if err != nil {
		t.Fatal(err)
	}
	n := tk.Count("Tap the ‘Send’ button at (540, 1200). 打开微信")
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 1<<20 {
		t.Errorf("a counter and one count (%d tokens) hold %d KB of heap", n, grew>>10)
	}
	runtime.KeepAlive(tk)
}
