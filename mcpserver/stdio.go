package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The stdio door reads its lines itself. The SDK's IOTransport ends the
// session at the first line it cannot take (garbage, cut JSON, a batch,
// an id that is an object, another JSON-RPC version, deep nesting, a line
// past its 16 MiB), with no answer; `tandem mcp` then exited and stopped
// the runs it had started (issue 49). Here such a line is answered with
// the JSON-RPC error it deserves, id null, and the session goes on; only
// well-formed messages reach the SDK.

const (
	// maxLine is the most a message may take, its newline excepted.
	maxLine = 16 << 20
	// maxDepth is how deeply a message may nest: far past any tool's
	// arguments, far below what would cost the decoder.
	maxDepth = 64
)

// lineTransport is the stdio transport: one JSON-RPC message a line.
type lineTransport struct {
	in  io.Reader
	out io.Writer
	max int // maxLine, or less in a test
}

func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{out: t.out, lines: make(chan line), closed: make(chan struct{})}
	go c.readLines(bufio.NewReaderSize(t.in, 64<<10), t.max)
	return c, nil
}

// line is one line read: its bytes (without the newline), or that it was
// too long, or the error that ended the input.
type line struct {
	b       []byte
	tooLong bool
	err     error
}

// lineConn is a session's connection: a goroutine reads the lines (a read
// of stdin cannot be cancelled; Close leaves it behind, as the SDK's
// does), Read takes them one at a time, and one lock keeps the SDK's
// writes and the error answers whole lines.
type lineConn struct {
	out    io.Writer
	lines  chan line
	closed chan struct{}
	once   sync.Once

	mu sync.Mutex // over out
}

// readLines sends each line of r to c.lines until r ends or c closes.
func (c *lineConn) readLines(r *bufio.Reader, maxLen int) {
	for {
		l := readLine(r, maxLen)
		select {
		case c.lines <- l:
		case <-c.closed:
			return
		}
		if l.err != nil {
			return
		}
	}
}

// readLine reads one line of at most maxLen bytes; a longer one is read
// to its end and dropped.
func readLine(r *bufio.Reader, maxLen int) line {
	var b []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong && len(b)+len(chunk) > maxLen+1 {
			tooLong, b = true, nil
		}
		if !tooLong {
			b = append(b, chunk...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil && (len(b) == 0 && !tooLong || !errors.Is(err, io.EOF)):
			return line{err: err}
		}
		return line{b: bytes.TrimRight(b, "\r\n"), tooLong: tooLong}
	}
}

// Read returns the next well-formed message, answering the lines before
// it that are not.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var l line
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case l = <-c.lines:
		}
		if l.err != nil {
			return nil, l.err
		}
		if l.tooLong {
			if err := c.refuse(jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: a message may take at most %d MiB", maxLine>>20)); err != nil {
				return nil, err
			}
			continue
		}
		if len(bytes.TrimSpace(l.b)) == 0 {
			continue
		}
		msg, code, why := decode(l.b)
		if code == 0 {
			return msg, nil
		}
		if err := c.refuse(code, why); err != nil {
			return nil, err
		}
	}
}

// refusal is the answer to a line that is not a message: id null.
type refusal struct {
	JSONRPC string    `json:"jsonrpc"`
	ID      *string   `json:"id"`
	Error   wireError `json:"error"`
}

type wireError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

// refuse answers a line that is not a message.
func (c *lineConn) refuse(code int64, why string) error {
	b, err := json.Marshal(refusal{JSONRPC: "2.0", Error: wireError{Code: code, Message: why}})
	if err != nil {
		return err
	}
	return c.writeLine(b)
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.writeLine(b)
}

func (c *lineConn) writeLine(b []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := c.out.Write(append(b, '\n'))
	return err
}

func (c *lineConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *lineConn) SessionID() string { return "" }

// decode reads one line as a JSON-RPC 2.0 message; code is the JSON-RPC
// error (with why) when it is not one.
func decode(b []byte) (msg jsonrpc.Message, code int64, why string) {
	if tooDeep(b, maxDepth) {
		return nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: nested deeper than %d levels", maxDepth)
	}
	if !json.Valid(b) {
		return nil, jsonrpc.CodeParseError, "Parse error: the line is not JSON"
	}
	var m struct {
		JSONRPC *string         `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if bytes.TrimSpace(b)[0] != '{' || json.Unmarshal(b, &m) != nil {
		return nil, jsonrpc.CodeInvalidRequest, "Invalid Request: a message is one JSON object (batches are not taken)"
	}
	if why := shapeError(m.JSONRPC, m.ID, m.Method, m.Result != nil || m.Error != nil); why != "" {
		return nil, jsonrpc.CodeInvalidRequest, "Invalid Request: " + why
	}
	msg, err := jsonrpc.DecodeMessage(b)
	if err != nil {
		return nil, jsonrpc.CodeInvalidRequest, "Invalid Request: " + err.Error()
	}
	return msg, 0, ""
}

// shapeError says what makes an object not a JSON-RPC 2.0 request,
// notification or reply ("" when nothing does).
func shapeError(version *string, id, method json.RawMessage, answers bool) string {
	switch {
	case version == nil || *version != "2.0":
		return `"jsonrpc" must be "2.0"`
	case id != nil && !isID(id):
		return "an id is a string or a number"
	case method != nil && (len(method) == 0 || method[0] != '"'):
		return "a method is a string"
	case method == nil && (!answers || id == nil):
		return "neither a request nor a reply"
	}
	return ""
}

// isID reports whether raw is a string or a number (or null, which a reply
// to a request that could not be read carries).
func isID(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64, nil:
		return true
	}
	return false
}

// tooDeep reports whether b nests arrays and objects deeper than limit.
func tooDeep(b []byte, limit int) bool {
	depth, inString, escaped := 0, false, false
	for _, ch := range b {
		switch {
		case escaped:
			escaped = false
		case inString:
			escaped, inString = ch == '\\', ch != '"'
		case ch == '"':
			inString = true
		case ch == '{' || ch == '[':
			if depth++; depth > limit {
				return true
			}
		case ch == '}' || ch == ']':
			depth--
		}
	}
	return false
}
