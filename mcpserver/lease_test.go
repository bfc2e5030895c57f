package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"tandem/backend"
	"tandem/devices"
)

// While another Tandem drives the phone (its lease, held as `tandem run`
// holds it), list_devices says the phone is in use and by whom, and act
// taps nothing and names the holder. Once it lets go, act acts.
func TestAPhoneAnotherTandemDrivesIsInUse(t *testing.T) {
	t.Setenv("TANDEM_RUNTIME_DIR", t.TempDir())
	r := newRig(t)
	cs := r.client(t, nil)
	ctx := context.Background()
	other := backend.NewDevices("127.0.0.1:"+strconv.Itoa(r.env.Port), "")
	release, err := other.Lease(ctx, r.env.Serial, devices.Holder{Door: "run"}, false)
	if err != nil {
		t.Fatal(err)
	}
	holder := fmt.Sprintf("tandem run (process %d)", os.Getpid())

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_devices", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("list_devices: %v %+v", err, res)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var list DevicesOut
	if err := json.Unmarshal(raw, &list); err != nil || len(list.Devices) == 0 {
		t.Fatalf("list_devices: %s %v", raw, err)
	}
	if d := list.Devices[0]; d.State != "in_use" || d.HeldBy != holder {
		t.Fatalf("a phone another Tandem drives is listed as %q held by %q, want in_use by %q", d.State, d.HeldBy, holder)
	}

	act := &mcp.CallToolParams{Name: "act", Arguments: map[string]any{"device": r.env.Serial, "action": map[string]any{"type": "tap", "x": 500, "y": 500}}}
	before := len(r.phone.Events())
	res, err = cs.CallTool(ctx, act)
	if err != nil || !res.IsError || !strings.Contains(fmt.Sprint(res.Content[0]), "in use by "+holder) {
		t.Fatalf("act on a held phone: %v %+v", err, res)
	}
	if n := len(r.phone.Events()) - before; n != 0 {
		t.Fatalf("the refused act reached the phone: %d inputs", n)
	}

	release()
	res, err = cs.CallTool(ctx, act)
	if err != nil || res.IsError || taps(r.phone) != 1 {
		t.Fatalf("act once the phone is free: %v %+v, %d taps", err, res, taps(r.phone))
	}
}
