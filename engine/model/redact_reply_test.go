package model

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"tandem/internal/modeltest"
)

// replyKeys are keys of the shapes providers issue: OpenAI's, a long
// project key, Zhipu's id.secret.
var replyKeys = []string{testKey, "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "0f1e2d3c4b5a69788796a5b4c3d2e1f0.AbCdEfGh"}

// TestSuccessfulReplyMasksTheKey: a model that repeats the key in a reply
// that succeeds (its text, its reasoning, a tool call's arguments, in the
// forms servers echo it): the key is masked in everything Call returns and
// in every streamed piece, streamed or not, and the rest of the reply is
// kept.
func TestSuccessfulReplyMasksTheKey(t *testing.T) {
	for _, key := range replyKeys {
		for _, stream := range []bool{true, false} {
			t.Run(fmt.Sprintf("%.8s stream=%v", key, stream), func(t *testing.T) {
				s := modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
					k := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
					forms := strings.Join(modeltest.EchoedForms(k), " and ")
					return modeltest.Reply{Content: "Thought: my key is " + forms + ". I tap it.", Reasoning: "the key " + k + " works",
						Chunks: 23, ToolCalls: []openai.ToolCall{{ID: "c1", Type: openai.ToolTypeFunction,
							Function: openai.FunctionCall{Name: "type", Arguments: `{"text":"` + k + `"}`}}}}
				})
				c := newTestClient(t, s.URL, func(c *ClientConfig) { c.APIKey = key })
				var streamed strings.Builder
				res, err := c.Call(context.Background(), userPrompt("x"), stream, func(d string) { streamed.WriteString(d) }, nil)
				if err != nil {
					t.Fatal(err)
				}
				r := res.Reply
				for what, text := range map[string]string{"content": r.Content, "reasoning": r.Reasoning,
					"arguments": r.ToolCalls[0].Arguments, "stream": streamed.String()} {
					assertNoKey(t, text, key)
					if what != "arguments" && what != "reasoning" && stream && !strings.Contains(text, "I tap it.") {
						t.Fatalf("%s lost the rest of the reply: %q", what, text)
					}
				}
				if stream && streamed.String() != r.Content {
					t.Fatalf("the pieces streamed %q\nare not the reply %q", streamed.String(), r.Content)
				}
			})
		}
	}
}

// TestMaskedDeltasHoldNoKey: however a reply is cut into pieces, the pieces
// passed on hold no part of the key; text without the key passes whole,
// byte for byte (Chinese and emoji included); and what is passed on is what
// Redact makes of the whole reply.
func TestMaskedDeltasHoldNoKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 10))
	words := []string{"tap", "the", "按钮", "确认支付", "🙂", "👩‍👩‍👧", " ", "\n", "...", "**", "…", "sk-", "(1,2)", "key:"}
	for i := range 3000 {
		key := replyKeys[i%len(replyKeys)]
		var b strings.Builder
		clean := i%4 == 0
		for range 1 + rng.IntN(40) {
			if !clean && rng.IntN(6) == 0 {
				// A form among words: run into a word, a masked form is
				// no longer one (nor is it for Redact).
				forms := modeltest.EchoedForms(key)
				b.WriteString(" " + forms[rng.IntN(len(forms))] + " ")
				continue
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		full := b.String()
		var got strings.Builder
		m := newMaskedDeltas(key, func(d string) { got.WriteString(d) })
		for rest := full; rest != ""; {
			n := min(len(rest), 1+rng.IntN(12))
			m.write(rest[:n])
			rest = rest[n:]
		}
		m.end()
		assertNoKey(t, got.String(), key)
		if want := Redact(full, key); got.String() != want {
			t.Fatalf("reply %q\npassed on %q\nRedact    %q", full, got.String(), want)
		}
		if clean && Redact(full, key) == full && got.String() != full {
			t.Fatalf("clean text changed: %q -> %q", full, got.String())
		}
	}
}
