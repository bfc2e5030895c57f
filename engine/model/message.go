package model

// The request and reply in the model package's own words. The dialects
// build and read these; only the client (client.go, wire.go) knows the
// chat-completions library they travel through, so a dialect, a test or
// the app never depends on that library's types.

// Role is who speaks a message.
type Role string

// The roles a request uses.
const (
	System    Role = "system"
	User      Role = "user"
	Assistant Role = "assistant"
)

// Message is one message of a request: its whole content as Text, or as
// Parts (texts and images, in order) when it has any.
type Message struct {
	Role  Role
	Text  string
	Parts []Part
}

// Part is one piece of a message: a text, or an image (ImageURL, usually a
// data: URL).
type Part struct {
	Text     string
	ImageURL string
}

// TextPart is a text piece of a message.
func TextPart(s string) Part { return Part{Text: s} }

// ImagePart is an image piece of a message, at url.
func ImagePart(url string) Part { return Part{ImageURL: url} }

// Tool is a function the model may call: its name, what it does, and its
// parameters as a JSON schema.
type Tool struct {
	Name        string
	Description string
	Parameters  any
}

// ToolCall is one function call in a reply.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string // JSON, as the model wrote it
}
