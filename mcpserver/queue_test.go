package mcpserver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/sashabaranov/go-openai"

	"tandem/backend"
	"tandem/internal/modeltest"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// get_run of a run whose model call waits its turn behind another run's
// request (a profile of one request at a time) says how many are ahead.
func TestGetRunSaysThePlaceInTheModelsQueue(t *testing.T) {
	r := newRig(t)
	second, err := vphone.New(vphone.WithSize(360, 800))
	if err != nil {
		t.Fatal(err)
	}
	if err := second.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { second.Close() })
	env2 := vphonetest.Env{ADB: r.env.ADB, Port: r.env.Port, Serial: second.Addr(), Address: second.Addr()}
	if err := vphonetest.Connect(context.Background(), env2); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	srv := modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply {
		select {
		case <-release:
		case <-time.After(time.Minute):
		}
		return modeltest.Reply{Content: "Done.", ToolCalls: []openai.ToolCall{call("finish", `{"summary":"ok","success":true}`)}}
	})
	p, err := r.b.SaveProfile(backend.Profile{Name: "one at a time", BaseURL: srv.URL, Model: "local", Dialect: "tools",
		Variant: "rel1000", MaxInFlight: 1}, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := r.b.StartRun(ctx, r.env.Serial, "first", backend.RunChoice{Profile: p.ID}); err != nil {
		t.Fatal(err)
	}
	for len(srv.Requests()) == 0 && ctx.Err() == nil {
		time.Sleep(5 * time.Millisecond) // polling until the first request is at the server
	}
	snap, err := r.b.StartRun(ctx, env2.Serial, "second", backend.RunChoice{Profile: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	cs := r.client(t, nil)
	var got RunOut
	for got.Model == nil || got.Model.Ahead != 1 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_run", Arguments: map[string]any{"id": snap.ID}})
		if err != nil {
			t.Fatal(err)
		}
		got = runOut(t, res)
		if ctx.Err() != nil {
			t.Fatalf("get_run never said the run waits its turn: %+v", got)
		}
		time.Sleep(20 * time.Millisecond) // polling get_run as a client would
	}
	if !strings.Contains(got.Model.Message, "1 ahead") || got.State != "Planning" {
		t.Fatalf("get_run while queued: %+v %+v", got, got.Model)
	}
	close(release)
}
