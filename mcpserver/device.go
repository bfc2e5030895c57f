package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"tandem/backend"
	"tandem/engine"
	"tandem/engine/action"
	"tandem/internal/encoded"
)

// The grid another agent points in: 0-1000 on each axis, whatever the
// screen's size (screenshot states the screen's pixels too).
const grid = 1000

func (t *tools) addDeviceTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "screenshot", Title: "Screenshot",
		Description: "The device's screen now, as an image. Points for act are in a 0-1000 grid on each axis of this image.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}}, t.screenshot)
	mcp.AddTool(s, &mcp.Tool{Name: "ui_state", Title: "UI state",
		Description: "The phone's screen as Tandem's compact UI state: each element's index, text, type, bounds (device pixels) and actions.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}}, t.uiState)
	mcp.AddTool(s, &mcp.Tool{Name: "act", Title: "Act on a device",
		Description: "One tap, double tap, long press, swipe, typed text, key or app launch on a device with no task running, " +
			"at points in the 0-1000 grid. It passes the person's confirmation policy like any step of a run: a sensitive one " +
			"(a payment, a transfer…) waits for the person's yes.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(true)}}, t.act)
}

// DeviceIn names a device.
type DeviceIn struct {
	Device string `json:"device" jsonschema:"the device's id (list_devices)"`
}

func (t *tools) screenshot(ctx context.Context, _ *mcp.CallToolRequest, in DeviceIn) (*mcp.CallToolResult, any, error) {
	img, size, err := t.b.Screenshot(ctx, in.Device)
	if err != nil {
		return nil, nil, err
	}
	data, mime, err := encode(img)
	if err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.ImageContent{Data: data, MIMEType: mime},
		&mcp.TextContent{Text: fmt.Sprintf("Screen of %s: %dx%d pixels. Points for act go in a 0-%d grid on each axis (x right, y down).",
			in.Device, size.W, size.H, grid)},
	}}, nil, nil
}

// encode is the picture as a client reads it: JPEG for a photo-like
// screen is smaller, PNG keeps text sharp; a phone's screen is mostly
// flat UI, so PNG at the fastest level, or the phone's own PNG when it
// sent one.
func encode(img image.Image) ([]byte, string, error) {
	if data, mime, ok := encoded.Bytes(img); ok {
		return data, mime, nil
	}
	img = encoded.Pixels(img)
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&b, img); err != nil {
		b.Reset()
		if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 85}); err != nil {
			return nil, "", err
		}
		return b.Bytes(), "image/jpeg", nil
	}
	return b.Bytes(), "image/png", nil
}

// UIStateIn is ui_state's input.
type UIStateIn struct {
	Device    string `json:"device" jsonschema:"the device's id (list_devices)"`
	MaxTokens int    `json:"max_tokens,omitempty" jsonschema:"keep the state within this many tokens (0: all of it)"`
}

func (t *tools) uiState(ctx context.Context, _ *mcp.CallToolRequest, in UIStateIn) (*mcp.CallToolResult, any, error) {
	c, err := t.b.UIState(ctx, in.Device, in.MaxTokens)
	if err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: c.JSON()}}}, nil, nil
}

// ActIn is act's input: one action in the 0-1000 grid.
type ActIn struct {
	Device string    `json:"device" jsonschema:"the device's id (list_devices)"`
	Action ActAction `json:"action"`
}

// ActAction is an action in the 0-1000 grid.
type ActAction struct {
	Type string `json:"type" jsonschema:"tap, double_tap, long_press, swipe, type, key or launch"`
	X    int    `json:"x,omitempty" jsonschema:"0-1000, left to right (tap, double_tap, long_press, swipe's start)"`
	Y    int    `json:"y,omitempty" jsonschema:"0-1000, top to bottom"`
	X2   int    `json:"x2,omitempty" jsonschema:"swipe's end, 0-1000"`
	Y2   int    `json:"y2,omitempty" jsonschema:"swipe's end, 0-1000"`
	Text string `json:"text,omitempty" jsonschema:"the text to type (any script)"`
	Key  string `json:"key,omitempty" jsonschema:"back, home, enter, delete, app_switch, …"`
	App  string `json:"app,omitempty" jsonschema:"the app to launch, by name or package"`
	Ms   int    `json:"ms,omitempty" jsonschema:"how long a long press or swipe lasts"`
}

// ActOut is what act did.
type ActOut struct {
	Done   bool    `json:"done" jsonschema:"the action reached the device"`
	Action string  `json:"action" jsonschema:"the action in device pixels"`
	Run    *RunOut `json:"run,omitempty" jsonschema:"a sensitive action ran as a run of its own, which asked the person first"`
	Denied bool    `json:"denied,omitempty" jsonschema:"the person said no to the action: it was not done"`
}

var actTypes = map[string]action.Type{"tap": action.Tap, "double_tap": action.DoubleTap, "long_press": action.LongPress,
	"swipe": action.Swipe, "type": action.TypeText, "key": action.Key, "launch": action.Launch}

func (t *tools) act(ctx context.Context, req *mcp.CallToolRequest, in ActIn) (*mcp.CallToolResult, ActOut, error) {
	typ, ok := actTypes[in.Action.Type]
	if !ok {
		return nil, ActOut{}, fmt.Errorf("act does %q? It does tap, double_tap, long_press, swipe, type, key and launch", in.Action.Type)
	}
	size, err := t.b.ScreenSize(ctx, in.Device)
	if err != nil {
		return nil, ActOut{}, err
	}
	px := func(v, of int) int { return min(max(v, 0), grid) * (of - 1) / grid }
	a := action.Action{Type: typ, Text: in.Action.Text, Key: in.Action.Key, App: in.Action.App, Ms: in.Action.Ms}
	if typ.Pointed() {
		a.X, a.Y = px(in.Action.X, size.W), px(in.Action.Y, size.H)
	}
	if typ == action.Swipe {
		a.X2, a.Y2 = px(in.Action.X2, size.W), px(in.Action.Y2, size.H)
	}
	_, err = t.b.Hand(ctx, in.Device, backend.Input{Act: &a, By: backend.ByMCP(clientName(req.Session))})
	var needs *backend.NeedsPersonError
	if !errors.As(err, &needs) {
		return nil, ActOut{Done: err == nil, Action: a.String()}, err
	}
	// Sensitive: a run of this one action, which asks the person.
	snap, err := t.b.ActAsRun(ctx, in.Device, a, backend.RunChoice{StartedBy: "mcp:" + clientName(req.Session)})
	if err != nil {
		return nil, ActOut{}, err
	}
	run, err := t.b.Run(snap.ID, backend.ByMCP(clientName(req.Session)))
	if err != nil {
		return nil, ActOut{}, err
	}
	out, err := t.follow(ctx, req, run)
	return nil, ActOut{Done: out.Ended && out.Success, Action: a.String(), Run: &out, Denied: out.Why == engine.CauseDenied}, err
}
