package mcpserver

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"tandem/backend"
)

// The same server over Streamable HTTP, inside the running app when the
// person turns it on: bound to 127.0.0.1 only, every request carrying the
// bearer token shown in Settings, and — against DNS rebinding, as the MCP
// specification asks (basic/transports, "Security Warning") — a Host that
// names this loopback port and no Origin from a web page. A refused
// request reaches no tool.

// NewToken is a fresh bearer token for the HTTP server.
func NewToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "tdm_" + hex.EncodeToString(b), nil
}

// Handler serves srv over Streamable HTTP at /mcp behind the token and the
// Origin and Host checks, for a listener on 127.0.0.1:port.
func Handler(srv *mcp.Server, token string, port int) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{})
	return guard(h, token, port)
}

// guard refuses a request with a foreign Host or any Origin (a browser
// page; MCP clients send none) or without the bearer token.
func guard(next http.Handler, token string, port int) http.Handler {
	hosts := map[string]bool{"127.0.0.1:" + strconv.Itoa(port): true, "localhost:" + strconv.Itoa(port): true}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path != "/mcp":
			http.NotFound(w, r)
		case !hosts[strings.ToLower(r.Host)]:
			http.Error(w, "this server answers only at 127.0.0.1:"+strconv.Itoa(port), http.StatusForbidden)
		case r.Header.Get("Origin") != "":
			http.Error(w, "requests from web pages are refused", http.StatusForbidden)
		case token == "" || subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1:
			w.Header().Set("WWW-Authenticate", `Bearer realm="tandem"`)
			http.Error(w, "the bearer token from Tandem's Settings is missing or wrong", http.StatusUnauthorized)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// HTTP is the app's MCP server over HTTP while it runs.
type HTTP struct {
	srv  *http.Server
	done chan struct{}
	Port int
}

// ErrPortTaken means another program listens on the chosen port.
var ErrPortTaken = errors.New("the MCP port is taken by another program: choose another in Settings")

// ListenHTTP serves b's MCP server on 127.0.0.1:port with token until
// Close; window says the app's window is there to ask the person.
func ListenHTTP(b *backend.Backend, port int, token string, window bool) (*HTTP, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) {
			return nil, fmt.Errorf("%w (%v)", ErrPortTaken, err)
		}
		return nil, err
	}
	h := &HTTP{srv: &http.Server{Handler: Handler(New(b, Options{Window: window}), token, port), ReadHeaderTimeout: 10 * time.Second},
		done: make(chan struct{}), Port: port}
	go func() {
		defer close(h.done)
		_ = h.srv.Serve(ln)
	}()
	return h, nil
}

// Close stops the server (runs it started go on: they are the backend's).
func (h *HTTP) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := h.srv.Shutdown(ctx); err != nil {
		_ = h.srv.Close()
	}
	<-h.done
}
