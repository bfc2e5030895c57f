package modeltest_test

import (
	"context"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"tandem/internal/modeltest"
)

// How a test uses the server: script the replies, point the client at s.URL,
// then assert what the prompt contained.
func TestUsage(t *testing.T) {
	s := modeltest.New(t,
		modeltest.Reply{Status: 429, Message: "busy", RetryAfter: "0"}, // first call: rate limited
		modeltest.Reply{Content: `<answer>do(action="Back")</answer>`,
			Usage: &openai.Usage{PromptTokens: 1200, CompletionTokens: 9}},
	)
	cfg := openai.DefaultConfig("sk-test")
	cfg.BaseURL = s.URL
	c := openai.NewClientWithConfig(cfg)
	req := openai.ChatCompletionRequest{Model: "autoglm-phone",
		Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "goal: go back"}}}
	if _, err := c.CreateChatCompletion(context.Background(), req); err == nil {
		t.Fatal("the scripted 429 did not arrive")
	}
	resp, err := c.CreateChatCompletion(context.Background(), req)
	if err != nil || resp.Choices[0].Message.Content != `<answer>do(action="Back")</answer>` || resp.Usage.PromptTokens != 1200 {
		t.Fatalf("%v %+v", err, resp)
	}
	if r := s.Requests(); len(r) != 2 || r[1].Text() != "goal: go back\n" || r[1].Chat.Model != "autoglm-phone" {
		t.Fatalf("recorded %+v", r)
	}
}
