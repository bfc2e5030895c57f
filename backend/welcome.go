package backend

// The first-start welcome: what a new person needs before a first run — is
// adb there and does it see a phone, can the virtual phone stand in, and is a
// local model server already running (so no cloud key is needed).

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"tandem/engine/model"
)

// AdbDevice is one line of `adb devices`.
type AdbDevice struct {
	Serial string `json:"serial"`
	State  string `json:"state"` // "device", "unauthorized", "offline", ...
}

// AdbStatus says how far adb gets: installed, server answering, devices.
type AdbStatus struct {
	Installed bool        `json:"installed"`
	Path      string      `json:"path"`
	ServerOK  bool        `json:"serverOk"`
	Devices   []AdbDevice `json:"devices"`
	Error     string      `json:"error"`
}

// ModelServer is a local OpenAI-compatible server found on 127.0.0.1.
type ModelServer struct {
	Name    string   `json:"name"`    // "Ollama", "LM Studio", "vLLM"
	BaseURL string   `json:"baseUrl"` // e.g. http://127.0.0.1:11434/v1
	Models  []string `json:"models"`
}

// WelcomeStatus is what the welcome shows.
type WelcomeStatus struct {
	Adb          AdbStatus     `json:"adb"`
	ModelServers []ModelServer `json:"modelServers"`
	VPhone       bool          `json:"vphone"` // this build can start the virtual phone
}

// Probe is one local server to look for.
type Probe struct {
	Name string
	Port int
}

// DefaultProbes are the usual ports of local model servers.
var DefaultProbes = []Probe{{"Ollama", 11434}, {"LM Studio", 1234}, {"vLLM", 8000}}

// ProbesFromEnv reads TANDEM_PROBE_PORTS ("Name=port,Name=port"; tests point
// it at their own server) and falls back to DefaultProbes.
func ProbesFromEnv(getenv func(string) string) ([]Probe, error) {
	v := strings.TrimSpace(getenv("TANDEM_PROBE_PORTS"))
	if v == "" {
		return DefaultProbes, nil
	}
	var out []Probe
	for _, part := range strings.Split(v, ",") {
		name, port, ok := strings.Cut(strings.TrimSpace(part), "=")
		n, err := strconv.Atoi(port)
		if !ok || name == "" || err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("TANDEM_PROBE_PORTS: %q is not Name=port", part)
		}
		out = append(out, Probe{Name: name, Port: n})
	}
	return out, nil
}

// WelcomeCheck looks at adb and the local model servers, in parallel, within
// a few seconds.
func (a *Backend) WelcomeCheck() (_ WelcomeStatus, err error) {
	probes, err := ProbesFromEnv(os.Getenv)
	if err != nil {
		return WelcomeStatus{}, err
	}
	ctx, cancel := context.WithTimeout(a.context(), 20*time.Second) // an adb server starting meanwhile is waited for (checkAdbWith)
	defer cancel()
	st := WelcomeStatus{VPhone: true}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); st.Adb = CheckAdb(ctx, adbPort(a.devices)) }()
	go func() { defer wg.Done(); st.ModelServers = FindModelServers(ctx, http.DefaultClient, probes) }()
	wg.Wait()
	return st, nil
}

// DismissWelcome records that the welcome was seen, so it is not shown again.
func (a *Backend) DismissWelcome() (_ Settings, err error) {
	return a.settings.Update(func(s *Settings) error {
		s.WelcomeDone = true
		return nil
	})
}

// CheckAdb finds adb on PATH and runs `adb devices`, which also starts the
// server when it is not running.
func CheckAdb(ctx context.Context, port int) AdbStatus {
	var st AdbStatus
	path, err := exec.LookPath("adb")
	if err != nil {
		st.Error = "adb is not installed"
		return st
	}
	st.Installed, st.Path = true, path
	devices := func(ctx context.Context) ([]byte, error) {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return exec.CommandContext(ctx, path, "-P", strconv.Itoa(port), "devices").Output()
	}
	return checkAdbWith(ctx, st, devices, func(ctx context.Context) error { return serverListens(ctx, port) })
}

// checkAdbWith asks devices for the list; when it fails and the server's
// port then answers (the app started its server that same second, and
// `adb devices` raced it: issue 49 item 12), it asks once more before it
// says the server did not answer.
func checkAdbWith(ctx context.Context, st AdbStatus, devices func(context.Context) ([]byte, error), listens func(context.Context) error) AdbStatus {
	out, err := devices(ctx)
	if err != nil {
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		if listens(wctx) == nil {
			out, err = devices(ctx)
		}
		cancel()
	}
	if err != nil {
		st.Error = fmt.Sprintf("adb devices: %v", err)
		return st
	}
	st.ServerOK = true
	st.Devices = ParseAdbDevices(string(out))
	return st
}

// serverListens waits until the adb server's port on this computer takes
// a connection, or ctx ends; it tries again at most every 200 ms.
func serverListens(ctx context.Context, port int) error {
	var d net.Dialer
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		c, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			return c.Close()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// ParseAdbDevices reads `adb devices` output (LF or CRLF).
func ParseAdbDevices(out string) []AdbDevice {
	devs := []AdbDevice{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "List of devices") || strings.HasPrefix(line, "*") {
			continue
		}
		f := strings.Fields(line)
		if len(f) >= 2 {
			devs = append(devs, AdbDevice{Serial: f[0], State: f[1]})
		}
	}
	return devs
}

// FindModelServers asks each probe's /v1/models (and Ollama's /api/tags) on
// 127.0.0.1 in parallel with a short timeout; servers that answer are kept,
// in probe order.
func FindModelServers(ctx context.Context, client *http.Client, probes []Probe) []ModelServer {
	found := make([]*ModelServer, len(probes))
	var wg sync.WaitGroup
	for i, p := range probes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pctx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
			defer cancel()
			base := fmt.Sprintf("http://127.0.0.1:%d", p.Port)
			if models, err := getModels(pctx, client, base+"/v1/models"); err == nil {
				found[i] = &ModelServer{Name: p.Name, BaseURL: base + "/v1", Models: models}
				return
			}
			if models, err := getModels(pctx, client, base+"/api/tags"); err == nil {
				found[i] = &ModelServer{Name: p.Name, BaseURL: base + "/v1", Models: models}
			}
		}()
	}
	wg.Wait()
	out := []ModelServer{}
	for _, f := range found {
		if f != nil {
			out = append(out, *f)
		}
	}
	return out
}

// getModels reads {"data":[{"id":..}]} (OpenAI) or {"models":[{"name":..}]} (Ollama).
func getModels(ctx context.Context, client *http.Client, url string) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", url, resp.Status)
	}
	var body struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
		Models []struct {
			Name string `json:"name"`
		} `json:"models"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	if body.Data == nil && body.Models == nil {
		return nil, fmt.Errorf("%s: not a model list", url)
	}
	models := []string{}
	for _, d := range body.Data {
		models = append(models, d.ID)
	}
	for _, m := range body.Models {
		models = append(models, m.Name)
	}
	return models, nil
}

// UseLocalModel makes a profile for a model a local server offers (the
// welcome's "Use it") and makes it the active one. The reply format is
// guessed from the model's name; Settings can change it.
func (a *Backend) UseLocalModel(server ModelServer, modelName string) (_ Profile, err error) {
	dialect, variant := guessDialect(modelName)
	at := 0 // requests at once: the preset's of the server found at its address
	for _, pr := range model.Presets() {
		if pr.BaseURL == server.BaseURL {
			at = pr.MaxInFlight
		}
	}
	p, err := a.SaveProfile(Profile{Name: server.Name + " · " + modelName, BaseURL: server.BaseURL,
		Model: modelName, Dialect: dialect, Variant: variant, MaxInFlight: at}, "")
	if err != nil {
		return Profile{}, err
	}
	loaded, err := a.GetSettings()
	if err != nil {
		return p, err
	}
	s := loaded.Settings
	s.ActiveProfile = p.ID
	_, err = a.SaveSettings(s)
	return p, err
}

// guessDialect picks the reply format a model of this name most likely
// speaks: UI-TARS and AutoGLM have their own; anything else gets tool calls,
// which every OpenAI-compatible server with a recent VLM supports.
func guessDialect(modelName string) (dialect, variant string) {
	m := strings.ToLower(modelName)
	switch {
	case strings.Contains(m, "tars") && strings.Contains(m, "doubao"):
		return "uitars", "doubao"
	case strings.Contains(m, "tars") && strings.Contains(m, "1.5"):
		return "uitars", "1.5"
	case strings.Contains(m, "ui-tars"), strings.Contains(m, "uitars"), strings.Contains(m, "ui_tars"):
		return "uitars", "1.0"
	case strings.Contains(m, "autoglm"):
		return "autoglm", ""
	case strings.Contains(m, "qwen2.5-vl"), strings.Contains(m, "qwen2.5vl"), strings.Contains(m, "qwen2_5_vl"):
		// Qwen2.5-VL's agent tool answers in pixels of the resized image
		// (QwenLM/Qwen2.5-VL cookbooks/utils/agent_function_call.py).
		return "tools", "abs"
	case strings.Contains(m, "qwen3-vl"), strings.Contains(m, "qwen3vl"):
		// Qwen3-VL's cookbook states a 999x999 screen (cookbooks/mobile_agent.ipynb).
		return "tools", "rel999"
	}
	return "tools", "rel1000"
}
