package backend

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"testing"
)

func TestParseAdbDevices(t *testing.T) {
	out := "* daemon not running; starting now at tcp:5037\r\n* daemon started successfully\r\nList of devices attached\r\nemulator-5554\tdevice\r\nR58M\tunauthorized\r\n\r\n"
	want := []AdbDevice{{"emulator-5554", "device"}, {"R58M", "unauthorized"}}
	if got := ParseAdbDevices(out); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if got := ParseAdbDevices("List of devices attached\n\n"); len(got) != 0 {
		t.Fatalf("no devices: got %v", got)
	}
}

func TestProbesFromEnv(t *testing.T) {
	env := func(v string) func(string) string { return func(string) string { return v } }
	if p, err := ProbesFromEnv(env("")); err != nil || !reflect.DeepEqual(p, DefaultProbes) {
		t.Fatalf("default: %v %v", p, err)
	}
	if p, err := ProbesFromEnv(env("A=1, B=65535")); err != nil || !reflect.DeepEqual(p, []Probe{{"A", 1}, {"B", 65535}}) {
		t.Fatalf("two: %v %v", p, err)
	}
	for _, bad := range []string{"A", "A=x", "=1", "A=0", "A=70000"} {
		if _, err := ProbesFromEnv(env(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func port(t *testing.T, url string) int {
	_, p, _ := net.SplitHostPort(url[len("http://"):])
	n, err := strconv.Atoi(p)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestFindModelServers(t *testing.T) {
	openai := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"object":"list","data":[{"id":"qwen2.5-vl-7b"}]}`))
	}))
	defer openai.Close()
	ollama := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/tags" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"models":[{"name":"llava:7b"}]}`))
	}))
	defer ollama.Close()
	notModels := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"hello":1}`))
	}))
	defer notModels.Close()
	// A closed port: listen, note the port, close.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().(*net.TCPAddr).Port
	l.Close()

	probes := []Probe{{"Ollama", port(t, ollama.URL)}, {"Closed", closed}, {"Other", port(t, notModels.URL)}, {"vLLM", port(t, openai.URL)}}
	got := FindModelServers(context.Background(), http.DefaultClient, probes)
	want := []ModelServer{
		{Name: "Ollama", BaseURL: ollama.URL + "/v1", Models: []string{"llava:7b"}},
		{Name: "vLLM", BaseURL: openai.URL + "/v1", Models: []string{"qwen2.5-vl-7b"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

func TestWelcomeDismiss(t *testing.T) {
	a := New(Config{ConfigDir: t.TempDir(), DataDir: t.TempDir()})
	s, err := a.DismissWelcome()
	if err != nil || !s.WelcomeDone {
		t.Fatalf("DismissWelcome: %+v %v", s, err)
	}
	loaded, err := a.GetSettings()
	if err != nil || !loaded.Settings.WelcomeDone {
		t.Fatalf("not stored: %+v %v", loaded, err)
	}
}

func TestGuessDialect(t *testing.T) {
	cases := []struct{ model, dialect, variant string }{
		{"UI-TARS-1.5-7B", "uitars", "1.5"},
		{"bytedance/ui-tars-7b-sft", "uitars", "1.0"},
		{"doubao-1.5-ui-tars-250328", "uitars", "doubao"},
		{"autoglm-phone-9b", "autoglm", ""},
		{"qwen2.5-vl:7b", "tools", "abs"}, // Qwen2.5-VL's agent tool: pixels of the resized image
		{"qwen2.5vl:7b", "tools", "abs"},
		{"Qwen/Qwen3-VL-8B-Instruct", "tools", "rel999"}, // Qwen3-VL cookbook: the 0-999 grid
		{"", "tools", "rel1000"},
	}
	for _, c := range cases {
		if d, v := guessDialect(c.model); d != c.dialect || v != c.variant {
			t.Errorf("guessDialect(%q) = %s/%s, want %s/%s", c.model, d, v, c.dialect, c.variant)
		}
	}
}

func TestUseLocalModelMakesTheActiveProfile(t *testing.T) {
	a := testApp(t)
	p, err := a.UseLocalModel(ModelServer{Name: "Ollama", BaseURL: "http://127.0.0.1:11434/v1", Models: []string{"qwen2.5-vl:7b"}}, "qwen2.5-vl:7b")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "Ollama · qwen2.5-vl:7b" || p.Dialect != "tools" || p.BaseURL != "http://127.0.0.1:11434/v1" || p.MaxInFlight != 1 {
		t.Fatalf("profile %+v", p)
	}
	loaded, err := a.GetSettings()
	if err != nil || loaded.Settings.ActiveProfile != p.ID {
		t.Fatalf("active profile %q, want %q (%v)", loaded.Settings.ActiveProfile, p.ID, err)
	}
	if _, key, err := a.profile(p.ID); err != nil || key != "" {
		t.Fatalf("a local model needs no key: %q %v", key, err)
	}
}

// `adb devices` that raced the server the app was starting (it failed that
// second) is asked again once the server's port answers: the welcome says
// the server is fine, not "did not answer" (issue 49 item 12).
func TestTheWelcomeAsksAdbAgainOnceItsServerAnswers(t *testing.T) {
	calls := 0
	devices := func(context.Context) ([]byte, error) {
		calls++
		if calls == 1 {
			return nil, errors.New("exit status 1: cannot connect to daemon")
		}
		return []byte("List of devices attached\nemulator-5554\tdevice\n"), nil
	}
	st := checkAdbWith(t.Context(), AdbStatus{Installed: true}, devices, func(context.Context) error { return nil })
	if !st.ServerOK || st.Error != "" || len(st.Devices) != 1 || calls != 2 {
		t.Fatalf("status %+v after %d calls", st, calls)
	}
	// A server that never answers is said so, after one try.
	calls = 0
	never := func(ctx context.Context) error { return context.DeadlineExceeded }
	st = checkAdbWith(t.Context(), AdbStatus{Installed: true}, func(context.Context) ([]byte, error) { calls++; return nil, errors.New("no") }, never)
	if st.ServerOK || st.Error == "" || calls != 1 {
		t.Fatalf("status %+v after %d calls", st, calls)
	}
}
