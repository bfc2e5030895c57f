// Package devguard puts a gate in front of the development binary's HTTP
// server (the `dev`-tagged build the browser suite drives). Wails' dev
// server answers any page: its IPC WebSocket accepts every Origin, so a
// page on another site could call the app's bound methods, read the mirror
// token, watch the phone and tap it. The gate:
//
//   - binds 127.0.0.1 only, whatever address was asked for;
//   - demands the per-launch token, as the mirror server does: on the
//     first page load as ?token=, then as a SameSite=Strict, HttpOnly
//     cookie the gate sets (a page on another site never sends it);
//   - refuses a Host that is not this address (DNS rebinding) and an
//     Origin that is not this address (cross-site fetches and WebSockets).
//
// The gate is the only listener: Wails' own dev server is not started on a
// port of its own (a second port would answer any page, token or not: a
// page on another site found one by scanning 1000 ports in 31 s). The gate
// hands the requests it lets through to Wails' server in the same process
// (WailsServer, wails.go). The packaged app has no HTTP server and is not
// affected.
package devguard

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
)

// Cookie is the name of the cookie that carries the token after the first
// page load.
const Cookie = "tandem_dev_token"

// NewToken returns a fresh random token.
func NewToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// Gate is the handler in front of the dev server.
type Gate struct {
	token string
	port  int
	next  atomic.Pointer[http.Handler]
}

// New returns a gate for a server reached at 127.0.0.1:port (or
// localhost:port) that passes allowed requests to next; with next nil,
// to the handler Attach gives it later (until then they wait: 503).
func New(token string, port int, next http.Handler) *Gate {
	g := &Gate{token: token, port: port}
	if next != nil {
		g.Attach(next)
	}
	return g
}

// Attach sets the handler allowed requests go to.
func (g *Gate) Attach(next http.Handler) { g.next.Store(&next) }

func (g *Gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.hostOK(r.Host) {
		http.Error(w, "devguard: wrong Host", http.StatusForbidden)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !g.originOK(o) {
		http.Error(w, "devguard: cross-origin request refused", http.StatusForbidden)
		return
	}
	q := r.URL.Query().Get("token")
	switch {
	case q != "" && g.same(q):
		http.SetCookie(w, &http.Cookie{Name: Cookie, Value: g.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	case g.cookieOK(r):
	default:
		http.Error(w, "devguard: missing or wrong token (open the URL the dev binary printed)", http.StatusUnauthorized)
		return
	}
	next := g.next.Load()
	if next == nil {
		http.Error(w, "devguard: the app is still starting", http.StatusServiceUnavailable)
		return
	}
	r.Header.Del("Cookie") // the backend has no use for the token
	(*next).ServeHTTP(w, r)
}

func (g *Gate) same(s string) bool {
	return subtle.ConstantTimeCompare([]byte(s), []byte(g.token)) == 1
}

func (g *Gate) cookieOK(r *http.Request) bool {
	c, err := r.Cookie(Cookie)
	return err == nil && g.same(c.Value)
}

func (g *Gate) hostOK(host string) bool {
	h, p, err := net.SplitHostPort(host)
	if err != nil || p != strconv.Itoa(g.port) {
		return false
	}
	return h == "127.0.0.1" || h == "localhost"
}

func (g *Gate) originOK(origin string) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Scheme == "http" && u.Path == "" && g.hostOK(u.Host)
}

// Loopback returns addr with its host replaced by 127.0.0.1 (the gate binds
// nothing else), and its port; "" or a missing port is an error.
func Loopback(addr string) (string, int, error) {
	_, p, err := net.SplitHostPort(strings.TrimSpace(addr))
	if err != nil {
		return "", 0, fmt.Errorf("devguard: address %q: %w", addr, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port <= 0 || port > 65535 {
		return "", 0, fmt.Errorf("devguard: address %q: bad port", addr)
	}
	return net.JoinHostPort("127.0.0.1", p), port, nil
}
