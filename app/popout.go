package app

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	wruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"tandem/engine/action"
	"tandem/mirror"
)

// The mirror popped out into its own window. Wails v2 gives a process one
// window, so the pop-out is this program started again with PopoutEnv set:
// a small window that shows the device's stream from this app's loopback
// server and posts the person's clicks back to it (mirror.Server's
// ServeInput), both with the per-launch token, which travels in the
// child's environment (readable only by the same user), never on its
// command line. Who may touch the device is decided here, by the same rule
// as the main window's mirror: with no task running or in Manual a click is
// the person's input; while the agent drives, a click takes over and is not
// passed on. The pop-out closes with the app.

// PopoutEnv carries a pop-out window's PopoutConfig (base64 JSON).
const PopoutEnv = "TANDEM_POPOUT"

// PopoutConfig is what a pop-out window needs to show and touch a device.
type PopoutConfig struct {
	Device string `json:"device"`
	Name   string `json:"name"`
	Stream string `json:"stream"` // the stream's URL, token included
	Input  string `json:"input"`  // where input is posted, token included
	Lang   string `json:"lang"`   // "en" or "zh-CN"
	Theme  string `json:"theme"`  // "light", "dark", or "" to follow the system
}

// popoutInput is one input the pop-out posts: a finished gesture, key or
// text, as the main window's mirror sends them (the backend's
// postedInput takes it to its input manager).
type popoutInput struct {
	Action action.Action `json:"action"`
}

// PopOut opens the device's mirror in a window of its own (again, if one
// is open: the old one closes).
func (a *MirrorAPI) PopOut(id string) (err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(15 * time.Second)
	defer cancel()
	viewer := "popout:" + id
	stream, err := a.b.Watch(ctx, viewer, id)
	if err != nil {
		return err
	}
	input, err := a.b.InputURL(id)
	if err != nil {
		return err
	}
	cfg := PopoutConfig{Device: id, Name: a.b.DeviceName(ctx, id), Stream: stream, Input: input, Lang: a.b.UILang(), Theme: a.b.UITheme()}
	// The pop-out's watch ends with its window.
	return a.popouts.open(id, cfg, func() { a.b.Unwatch(viewer) })
}

// popouts are the pop-out windows this app started, one per device.
type popouts struct {
	mu    sync.Mutex
	procs map[string]*os.Process
	// start starts a pop-out window (startPopout; tests swap it).
	start func(cfg PopoutConfig) (*os.Process, error)
}

// open starts a pop-out for id, closing the one it had; closed runs when
// the window is gone (closed by the person, or with the app).
func (p *popouts) open(id string, cfg PopoutConfig, closed func()) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if old := p.procs[id]; old != nil {
		_ = old.Kill()
	}
	start := p.start
	if start == nil {
		start = startPopout
	}
	proc, err := start(cfg)
	if err != nil {
		return fmt.Errorf("open the pop-out window: %w", err)
	}
	if p.procs == nil {
		p.procs = map[string]*os.Process{}
	}
	p.procs[id] = proc
	go func() { // reaped when the person closes it
		_, _ = proc.Wait()
		p.mu.Lock()
		last := p.procs[id] == proc
		if last {
			delete(p.procs, id)
		}
		p.mu.Unlock()
		if last {
			closed()
		}
	}()
	return nil
}

// closeAll closes every pop-out (the app is closing).
func (p *popouts) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, proc := range p.procs {
		_ = proc.Kill()
		delete(p.procs, id)
	}
}

// startPopout starts this program again as a pop-out window for cfg.
func startPopout(cfg PopoutConfig) (*os.Process, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), PopoutEnv+"="+base64.StdEncoding.EncodeToString(raw))
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return cmd.Process, nil
}

// Popout is the pop-out window's side: what the page there may ask.
type Popout struct {
	cfg    PopoutConfig
	client *http.Client
}

// Config is the device the window shows and where its stream is.
func (p *Popout) Config() PopoutConfig { return p.cfg }

// Send posts the person's input to the app: "done", or "took_over" when
// the agent was driving (the click took over and was not passed on).
func (p *Popout) Send(act action.Action) (string, error) {
	body, err := json.Marshal(popoutInput{Action: act})
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.cfg.Input, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		return "", errors.New("Tandem's main window does not answer: " + strings.TrimPrefix(err.Error(), "Post "))
	}
	defer resp.Body.Close()
	reply, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		return "", errors.New(strings.TrimSpace(string(reply))) // the app's words (a said error) for the page to word
	}
	return string(reply), nil
}

// Press sends a press on the pop-out's mirror as the gesture the one rule
// (mirror.Press) makes of it: "done", or "took_over" as Send.
func (p *Popout) Press(press mirror.Press) (string, error) {
	act, err := press.Gesture()
	if err != nil {
		return "", err
	}
	return p.Send(act)
}

// ReadPopoutConfig reads a pop-out's configuration from PopoutEnv's value.
func ReadPopoutConfig(v string) (PopoutConfig, error) {
	raw, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		return PopoutConfig{}, fmt.Errorf("pop-out: %w", err)
	}
	var cfg PopoutConfig
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return PopoutConfig{}, fmt.Errorf("pop-out: %w", err)
	}
	if cfg.Device == "" || cfg.Stream == "" || cfg.Input == "" {
		return PopoutConfig{}, errors.New("pop-out: the configuration names no device")
	}
	return cfg, nil
}

// RunPopout opens a pop-out window for cfg; assets is the built frontend,
// which sees the Popout binding and shows the pop-out's page. The window
// closes itself once the app's server no longer answers (the app closed,
// or was killed before it could close its pop-outs).
func RunPopout(assets fs.FS, cfg PopoutConfig) error {
	p := &Popout{cfg: cfg, client: &http.Client{}}
	return wails.Run(&options.App{
		OnStartup: func(ctx context.Context) {
			go func() {
				watchApp(ctx, cfg.Input, time.Second)
				wruntime.Quit(ctx)
			}()
		},
		Title:            "Tandem — " + cfg.Name,
		Width:            420,
		Height:           860,
		MinWidth:         240,
		MinHeight:        320,
		BackgroundColour: &options.RGBA{R: 24, G: 26, B: 31, A: 255},
		AssetServer:      &assetserver.Options{Assets: assets},
		Bind:             []any{p},
		Linux:            &linux.Options{ProgramName: "tandem", Icon: windowIcon, WebviewGpuPolicy: gpuPolicy},
	})
}

// watchApp returns once the server of url has refused two connections in a
// row (checked every interval), or ctx ends.
func watchApp(ctx context.Context, url string, interval time.Duration) {
	host := strings.TrimPrefix(url, "http://")
	if i := strings.IndexByte(host, '/'); i >= 0 {
		host = host[:i]
	}
	misses := 0
	for misses < 2 {
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
		c, err := (&net.Dialer{Timeout: interval}).DialContext(ctx, "tcp", host)
		if err != nil {
			misses++
			continue
		}
		c.Close()
		misses = 0
	}
}
