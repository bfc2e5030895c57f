package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"tandem/backend"
	"tandem/engine"
)

// A sensitive act the person denies ends as denied: Stopped for that
// reason, never "Failed", no model asked, nothing pressed, and History
// words it so (issue 49 item 15).
func TestADeniedActEndsDeniedNotFailed(t *testing.T) {
	r := newRig(t)
	r.shop(t) // the shop at its checkout, and a model that would pay
	var x, y int
	if err := json.Unmarshal([]byte(at(t, r.phone, "pay_button")), &struct{ X, Y *int }{&x, &y}); err != nil {
		t.Fatal(err)
	}
	cs := r.client(t, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"choice": "deny", "text": "not now"}}, nil
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "act", Arguments: map[string]any{"device": r.env.Serial,
		"action": map[string]any{"type": "tap", "x": x, "y": y}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("%+v", res.Content[0])
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var o ActOut
	if err := json.Unmarshal(raw, &o); err != nil {
		t.Fatal(err)
	}
	if o.Done || !o.Denied || o.Run == nil || o.Run.State != "Stopped" || o.Run.Why != engine.CauseDenied {
		t.Fatalf("the act came back as %s", raw)
	}
	if r.phone.State().Paid || taps(r.phone) != 0 {
		t.Fatalf("paid %v, %d taps", r.phone.State().Paid, taps(r.phone))
	}
	past, err := backend.PastRuns(r.b.Config().Runs())
	if err != nil || len(past) != 1 {
		t.Fatalf("history %+v %v", past, err)
	}
	if p := past[0]; p.State != "Stopped" || p.Why == nil || p.Why.Code != engine.CauseDenied || strings.Contains(p.Summary, "could not") {
		t.Fatalf("History lists it as %+v", p)
	}
}
