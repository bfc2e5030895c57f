package devguard

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// TestGate: what a page on another site, a DNS-rebound name or a request
// without the token gets, against the app's own page.
func TestGate(t *testing.T) {
	backend := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Cookie") != "" {
			t.Error("the token cookie reached the backend")
		}
		io.WriteString(w, "bindings")
	})
	const token = "0123456789abcdef"
	gate := httptest.NewUnstartedServer(nil)
	port := gate.Listener.Addr().(*net.TCPAddr).Port
	gate.Config.Handler = New(token, port, backend)
	gate.Start()
	defer gate.Close()
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	self := base

	cases := []struct {
		name   string
		path   string
		host   string
		origin string
		cookie string
		want   int
	}{
		{"first load with the token", "/?token=" + token, "", "", "", 200},
		{"later load with the cookie", "/wails/ipc.js", "", "", token, 200},
		{"same-origin request", "/x", "", self, token, 200},
		{"localhost name", "/x", "localhost:" + strconv.Itoa(port), "", token, 200},
		{"no token", "/", "", "", "", 401},
		{"wrong token", "/?token=nope", "", "", "", 401},
		{"wrong cookie", "/", "", "", "nope", 401},
		{"another site's page, even with the cookie", "/wails/ipc", "", "https://evil.example", token, 403},
		{"a null origin", "/x", "", "null", token, 403},
		{"DNS rebinding", "/?token=" + token, "evil.example:" + strconv.Itoa(port), "", "", 403},
		{"another port", "/?token=" + token, "127.0.0.1:1", "", "", 403},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", base+tc.path, nil)
			if tc.host != "" {
				req.Host = tc.host
			}
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.cookie != "" {
				req.AddCookie(&http.Cookie{Name: Cookie, Value: tc.cookie})
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.want || (tc.want == 200) != (string(body) == "bindings") {
				t.Fatalf("status %d body %q, want %d", resp.StatusCode, body, tc.want)
			}
			if tc.path == "/?token="+token && tc.want == 200 {
				c := resp.Header.Get("Set-Cookie")
				if !strings.Contains(c, "HttpOnly") || !strings.Contains(c, "SameSite=Strict") {
					t.Fatalf("cookie %q", c)
				}
			}
		})
	}
}

func TestLoopback(t *testing.T) {
	for in, want := range map[string]string{"127.0.0.1:34115": "127.0.0.1:34115", "0.0.0.0:8080": "127.0.0.1:8080",
		"localhost:9": "127.0.0.1:9", ":7": "127.0.0.1:7"} {
		if got, _, err := Loopback(in); err != nil || got != want {
			t.Errorf("%q: %q %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "127.0.0.1", "h:0", "h:x"} {
		if _, _, err := Loopback(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// A gate whose server is not attached yet refuses what it always refuses,
// and tells the app's own page to wait; then it serves.
func TestGateBeforeTheServer(t *testing.T) {
	const token = "0123456789abcdef"
	g := New(token, 8080, nil)
	get := func(origin string) int {
		req := httptest.NewRequest("GET", "http://127.0.0.1:8080/?token="+token, nil)
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		w := httptest.NewRecorder()
		g.ServeHTTP(w, req)
		return w.Code
	}
	if c := get("https://evil.example"); c != http.StatusForbidden {
		t.Fatalf("another site before the server: %d", c)
	}
	if c := get(""); c != http.StatusServiceUnavailable {
		t.Fatalf("the app's page before the server: %d", c)
	}
	g.Attach(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	if c := get(""); c != http.StatusOK {
		t.Fatalf("the app's page once attached: %d", c)
	}
}

// fakeEcho and fakeDevServer are shaped as Wails v2.11.0's echo server and
// its DevWebServer, which holds it unexported.
type fakeEcho struct{ hits int }

func (e *fakeEcho) ServeHTTP(http.ResponseWriter, *http.Request) { e.hits++ }

type fakeDevServer struct {
	other  int
	server *fakeEcho
}

// WailsServer finds the server where Wails keeps it, and says so when it
// is not there.
func TestWailsServer(t *testing.T) {
	e := &fakeEcho{}
	ctx := context.WithValue(context.Background(), "frontend", &fakeDevServer{server: e}) //nolint:staticcheck // Wails' own string key
	h, err := WailsServer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	if e.hits != 1 {
		t.Fatal("the handler found is not the server")
	}
	for _, v := range []any{nil, "x", &struct{ other int }{}, &fakeDevServer{}} {
		ctx := context.WithValue(context.Background(), "frontend", v) //nolint:staticcheck // Wails' own string key
		if _, err := WailsServer(ctx); err == nil {
			t.Errorf("%T: found a server", v)
		}
	}
}
