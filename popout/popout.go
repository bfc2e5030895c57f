// Package popout is the mirror popped out of Tandem's window: a second
// window process, a door of its own. Wails v2 gives a process one window,
// so the pop-out is this program started again with Env set (by the
// window's door, app/popout.go): a small window that shows the device's
// stream from the app's loopback server and posts the person's clicks back
// to it (mirror.Server's ServeInput, which hands them to backend.Hand),
// both with the per-launch token, which travels in the child's environment
// (readable only by the same user), never on its command line. It decides
// nothing: who may touch the device is the backend's input manager's rule,
// the same as for the main window's mirror, and its answer ("done",
// "took_over") comes back in the reply. It holds no backend: it is apart
// so the second process links no Tandem but the mirror's gesture rule.
package popout

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
	"strings"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	wruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"tandem/engine/action"
	"tandem/mirror"
)

// Env carries a pop-out window's Config (base64 JSON).
const Env = "TANDEM_POPOUT"

// Config is what a pop-out window needs to show and touch a device.
type Config struct {
	Device string `json:"device"`
	Name   string `json:"name"`
	Stream string `json:"stream"` // the stream's URL, token included
	Input  string `json:"input"`  // where input is posted, token included
	Lang   string `json:"lang"`   // "en" or "zh-CN"
	Theme  string `json:"theme"`  // "light", "dark", or "" to follow the system
}

// Encode is cfg as Env's value.
func (cfg Config) Encode() (string, error) {
	raw, err := json.Marshal(cfg)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(raw), nil
}

// input is one input the pop-out posts: a finished gesture, key or text,
// as the main window's mirror sends them (the backend's postedInput takes
// it to its input manager).
type input struct {
	Action action.Action `json:"action"`
}

// Popout is the pop-out window's side: what the page there may ask.
type Popout struct {
	cfg    Config
	client *http.Client
}

// New is the pop-out window's side for cfg.
func New(cfg Config) *Popout { return &Popout{cfg: cfg, client: &http.Client{}} }

// Config is the device the window shows and where its stream is.
func (p *Popout) Config() Config { return p.cfg }

// Send posts the person's input to the app: "done", or "took_over" when
// the agent was driving (the click took over and was not passed on).
func (p *Popout) Send(act action.Action) (string, error) {
	body, err := json.Marshal(input{Action: act})
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

// ReadConfig reads a pop-out's configuration from Env's value.
func ReadConfig(v string) (Config, error) {
	raw, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		return Config{}, fmt.Errorf("pop-out: %w", err)
	}
	var cfg Config
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return Config{}, fmt.Errorf("pop-out: %w", err)
	}
	if cfg.Device == "" || cfg.Stream == "" || cfg.Input == "" {
		return Config{}, errors.New("pop-out: the configuration names no device")
	}
	return cfg, nil
}

// Run opens a pop-out window for cfg; assets is the built frontend, which
// sees the Popout binding and shows the pop-out's page; look is the main
// window's own Linux options (its icon, its GPU policy). The window closes
// itself once the app's server no longer answers (the app closed, or was
// killed before it could close its pop-outs).
func Run(assets fs.FS, cfg Config, look *linux.Options) error {
	p := New(cfg)
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
		Linux:            look,
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
