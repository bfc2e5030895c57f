package modeltest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

func client(s *Server) *openai.Client {
	cfg := openai.DefaultConfig("sk-test")
	cfg.BaseURL = s.URL
	return openai.NewClientWithConfig(cfg)
}

func TestNonStreaming(t *testing.T) {
	s := New(t, Reply{Content: "你好", Usage: &openai.Usage{PromptTokens: 7, CompletionTokens: 2, TotalTokens: 9}})
	resp, err := client(s).CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "m",
		Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "goal: open 微信"}}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Choices[0].Message.Content != "你好" || resp.Usage.PromptTokens != 7 {
		t.Fatalf("got %+v", resp)
	}
	reqs := s.Requests()
	if len(reqs) != 1 || !strings.Contains(reqs[0].Text(), "open 微信") || reqs[0].Header.Get("Authorization") != "Bearer sk-test" {
		t.Fatalf("recorded %+v", reqs)
	}
}

func TestStreamingToolCallsAndUsage(t *testing.T) {
	// The second arguments' midpoint falls inside 好: the split must not
	// cut a character (a JSON string would carry U+FFFD instead).
	for _, args := range []string{`{"x":500,"y":300}`, `{"text":"你好，世界"}`} {
		streamToolCall(t, args)
	}
}

func streamToolCall(t *testing.T, arguments string) {
	t.Helper()
	tc := openai.ToolCall{ID: "c1", Type: "function", Function: openai.FunctionCall{Name: "tap", Arguments: arguments}}
	s := New(t, Reply{Content: "Thought: tap it", Reasoning: "hmm", ToolCalls: []openai.ToolCall{tc},
		Usage: &openai.Usage{PromptTokens: 11, CompletionTokens: 5}})
	st, err := client(s).CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{Model: "m",
		Messages:      []openai.ChatCompletionMessage{{Role: "user", Content: "x"}},
		StreamOptions: &openai.StreamOptions{IncludeUsage: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var content, reasoning, args string
	var usage *openai.Usage
	for {
		r, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if r.Usage != nil {
			usage = r.Usage
		}
		for _, c := range r.Choices {
			content += c.Delta.Content
			reasoning += c.Delta.ReasoningContent
			for _, d := range c.Delta.ToolCalls {
				args += d.Function.Arguments
			}
		}
	}
	if content != "Thought: tap it" || reasoning != "hmm" || args != tc.Function.Arguments {
		t.Fatalf("content %q reasoning %q args %q", content, reasoning, args)
	}
	if usage == nil || usage.PromptTokens != 11 {
		t.Fatalf("usage %+v", usage)
	}
}

func TestErrorReply(t *testing.T) {
	s := New(t, Reply{Status: http.StatusTooManyRequests, Message: "slow down", RetryAfter: "1"})
	_, err := client(s).CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "m",
		Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "x"}}})
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 429 || apiErr.Message != "slow down" {
		t.Fatalf("err %v", err)
	}
}

func TestFuncScriptSeesRequest(t *testing.T) {
	s := NewFunc(t, func(r Request) Reply { return Reply{Content: "echo " + r.Chat.Model} })
	resp, err := client(s).CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "qwen",
		Messages: []openai.ChatCompletionMessage{{Role: "user", MultiContent: []openai.ChatMessagePart{
			{Type: openai.ChatMessagePartTypeText, Text: "look"},
			{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "data:image/png;base64,AAAA"}}}}}})
	if err != nil || resp.Choices[0].Message.Content != "echo qwen" {
		t.Fatalf("%v %+v", err, resp)
	}
	if imgs := s.Requests()[0].Images(); len(imgs) != 1 || s.Requests()[0].Text() != "look\n" {
		t.Fatalf("images %v text %q", imgs, s.Requests()[0].Text())
	}
}
