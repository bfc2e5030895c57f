package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Fuzz targets for what an MCP client sends on stdio: `go test` runs
// their seeds as unit tests; `go test -fuzz FuzzX ./mcpserver` explores.

var messageSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":"a","result":{}}`,
	`{"jsonrpc":"1.0","id":1,"method":"x"}`,
	`{"jsonrpc":"2.0","id":{"o":1},"method":"x"}`,
	`[{"jsonrpc":"2.0","id":1,"method":"x"}]`,
	`{"jsonrpc":"2.0","id":1,"method":"x"`,
	`garbage`, `"\u0000"`, `{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}`,
	strings.Repeat("[", 100) + strings.Repeat("]", 100),
	`{"jsonrpc":"2.0","id":1,"method":"x","params":"\"}]]]]"}`,
}

// FuzzDecode: every line is a message or a JSON-RPC error code with words.
func FuzzDecode(f *testing.F) {
	for _, s := range messageSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		msg, code, why := decode(b)
		switch {
		case code == 0 && msg == nil:
			t.Fatal("neither a message nor an error")
		case code != 0 && (msg != nil || why == ""):
			t.Fatalf("error %d %q with message %v", code, why, msg)
		case code != 0 && code != jsonrpc.CodeParseError && code != jsonrpc.CodeInvalidRequest:
			t.Fatalf("code %d", code)
		}
	})
}

// FuzzLines: whatever the lines, the connection answers each bad one with
// one JSON-RPC error line, hands on only messages, and reads on to the
// input's end.
func FuzzLines(f *testing.F) {
	f.Add([]byte(strings.Join(messageSeeds, "\n")), 1<<10)
	f.Add([]byte("\n\r\n  \n{}\n"), 64)
	f.Add([]byte(strings.Repeat("x", 300)+"\n"+messageSeeds[0]+"\n"), 100)
	f.Add([]byte(messageSeeds[0]), 16) // no newline at the end
	f.Fuzz(fuzzLinesOnce)
}

func fuzzLinesOnce(t *testing.T, in []byte, max int) {
	{
		if max < 1 || max > 1<<16 {
			return
		}
		var out syncWriter
		tr := &lineTransport{in: bytes.NewReader(in), out: &out, max: max}
		c, err := tr.Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for {
			msg, err := c.Read(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if msg == nil {
				t.Fatal("a nil message")
			}
		}
		for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if l == "" {
				continue
			}
			var r refusal
			if err := json.Unmarshal([]byte(l), &r); err != nil || r.JSONRPC != "2.0" || r.Error.Code == 0 || r.ID != nil {
				t.Fatalf("answer %q: %v", l, err)
			}
		}
	}
}

// syncWriter is a buffer written from one goroutine, read from another.
type syncWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
