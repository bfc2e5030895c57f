package observe

import (
	"fmt"

	"github.com/dlclark/regexp2/v2"
	// The split pattern's matcher, generated and registered with regexp2 by
	// the tokenizer's codec package (none of its vocabularies is loaded).
	_ "github.com/tiktoken-go/tokenizer/codec"
)

// o200kSplit is o200k_base's pre-tokenizer pattern (the codec's, verbatim,
// so that regexp2 finds its generated matcher).
const o200kSplit = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// Tokens counts text tokens locally with the o200k_base encoding (GPT-4o's).
// Other models' tokenizers differ by a few tens of percent on Chinese text;
// the count is for budgets and estimates, which is why usage computed from
// it is marked Estimated. The vocabulary is o200kTable, outside the heap.
type Tokens struct {
	split *regexp2.Regexp
	vocab vocab
}

// NewTokens builds a counter. It is safe for concurrent use.
func NewTokens() (*Tokens, error) {
	re, err := regexp2.Compile(o200kSplit, regexp2.None)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	return &Tokens{split: re, vocab: newVocab(o200kTable)}, nil
}

// Count returns the number of tokens in s. Invalid UTF-8 is counted by
// bytes rather than failing: a count is never worth an error.
func (t *Tokens) Count(s string) int {
	if s == "" {
		return 0
	}
	n := 0
	m, err := t.split.FindStringMatch(s)
	for ; m != nil && err == nil; m, err = t.split.FindNextMatch(m) {
		n += t.vocab.bpeCount(m.String())
	}
	if err != nil {
		return len(s)
	}
	return n
}

// ImageTokens estimates the tokens of one image of w x h pixels sent at high
// detail, by OpenAI's documented tile rule: fit within 2048x2048, scale the
// shortest side down to 768, then 85 + 170 per 512-px tile. (Qwen-style
// servers charge one token per 28x28 px instead; they also report usage, so
// the estimate is only used when a server does not.)
func ImageTokens(w, h int) int {
	if w <= 0 || h <= 0 {
		return 0
	}
	fw, fh := float64(w), float64(h)
	if s := 2048 / max(fw, fh); s < 1 {
		fw, fh = fw*s, fh*s
	}
	if s := 768 / min(fw, fh); s < 1 {
		fw, fh = fw*s, fh*s
	}
	tiles := ceilDiv(int(fw+0.5), 512) * ceilDiv(int(fh+0.5), 512)
	return 85 + 170*tiles
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
