package model

import (
	"encoding/json"

	openai "github.com/sashabaranov/go-openai"
)

// The request and reply in go-openai's types, the library the client
// speaks the chat-completions API through: the one place that converts.

// wireMessages are msgs as the library sends them: Text as "content",
// Parts as the content array (text and image_url parts, in order).
func wireMessages(msgs []Message) []openai.ChatCompletionMessage {
	out := make([]openai.ChatCompletionMessage, 0, len(msgs))
	for _, m := range msgs {
		w := openai.ChatCompletionMessage{Role: string(m.Role), Content: m.Text}
		for _, p := range m.Parts {
			if p.ImageURL != "" {
				w.MultiContent = append(w.MultiContent, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL,
					ImageURL: &openai.ChatMessageImageURL{URL: p.ImageURL}})
				continue
			}
			w.MultiContent = append(w.MultiContent, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: p.Text})
		}
		out = append(out, w)
	}
	return out
}

// wireTools are tools as function definitions.
func wireTools(tools []Tool) []openai.Tool {
	var out []openai.Tool
	for _, t := range tools {
		out = append(out, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: t.Parameters}})
	}
	return out
}

// wireToolChoice is the tool_choice field: absent when empty.
func wireToolChoice(c string) any {
	if c == "" {
		return nil
	}
	return c
}

// toolCalls are the library's calls in the model package's words.
func toolCalls(calls []openai.ToolCall) []ToolCall {
	var out []ToolCall
	for _, c := range calls {
		out = append(out, ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
	}
	return out
}

// ReplyOfJSON reads a chat-completion response body, or one message of it
// (with tool_calls or a role), as the client reads a reply; ok is false
// when raw is neither.
func ReplyOfJSON(raw []byte) (_ Reply, ok bool) {
	var resp openai.ChatCompletionResponse
	if json.Unmarshal(raw, &resp) == nil && len(resp.Choices) > 0 {
		m := resp.Choices[0].Message
		return Reply{Content: m.Content, Reasoning: m.ReasoningContent, ToolCalls: toolCalls(m.ToolCalls)}, true
	}
	var m openai.ChatCompletionMessage
	if json.Unmarshal(raw, &m) == nil && (len(m.ToolCalls) > 0 || m.Role != "") {
		return Reply{Content: m.Content, Reasoning: m.ReasoningContent, ToolCalls: toolCalls(m.ToolCalls)}, true
	}
	return Reply{}, false
}

// MarshalJSON is the prompt as the client sends it: its messages, tools and
// tool_choice in the chat-completions API's shape (the golden requests of
// the dialects are this).
func (p Prompt) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"messages": wireMessages(p.Messages), "tools": wireTools(p.Tools), "tool_choice": wireToolChoice(p.ToolChoice)})
}
