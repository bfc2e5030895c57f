package mcpserver

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// BenchmarkMCPVersusMobileMCP: Tandem's MCP server (`tandem mcp`, the
// built binary) and @mobilenext/mobile-mcp 1.0.4 (bench/mobile-mcp, `make
// bench-mcp` installs it) side by side on the same virtual phone behind
// the same adb server, each started as its client would start it, on the
// calls both have: a screenshot, a tap, the screen's elements. Each
// reports its median ms per call (b.N calls; `make bench-mcp` runs 50).
func BenchmarkMCPVersusMobileMCP(b *testing.B) {
	bin := os.Getenv("TANDEM_BIN")
	peer, _ := filepath.Abs(filepath.Join("..", "bench", "mobile-mcp", "node_modules", "@mobilenext", "mobile-mcp", "lib", "index.js"))
	if _, err := os.Stat(peer); bin == "" || err != nil {
		b.Skip("needs TANDEM_BIN and bench/mobile-mcp installed: make bench-mcp")
	}
	phone, env := vphonetest.Start(b, vphone.WithSize(1080, 2400))
	if err := phone.Launch(vphone.PkgList); err != nil {
		b.Fatal(err)
	}
	adbHome := b.TempDir() // mobile-mcp finds adb as $ANDROID_HOME/platform-tools/adb
	if err := os.MkdirAll(filepath.Join(adbHome, "platform-tools"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.Symlink(env.ADB, filepath.Join(adbHome, "platform-tools", "adb")); err != nil {
		b.Fatal(err)
	}
	port := strconv.Itoa(env.Port)
	cfg, data := b.TempDir(), b.TempDir()
	server := func(name string) *exec.Cmd {
		c := exec.Command("node", peer)
		if name == "tandem" {
			c = exec.Command(bin, "mcp", "--adb-port", port)
		}
		c.Env = append(os.Environ(), "ANDROID_ADB_SERVER_PORT="+port, "ANDROID_HOME="+adbHome, "TANDEM_CONFIG_DIR="+cfg, "TANDEM_DATA_DIR="+data)
		return c
	}
	calls := map[string]map[string]*mcp.CallToolParams{
		"tandem": {
			"screenshot": {Name: "screenshot", Arguments: map[string]any{"device": env.Serial}},
			"tap":        {Name: "act", Arguments: map[string]any{"device": env.Serial, "action": map[string]any{"type": "tap", "x": 500, "y": 950}}},
			"elements":   {Name: "ui_state", Arguments: map[string]any{"device": env.Serial}},
		},
		"mobile-mcp": {
			"screenshot": {Name: "mobile_take_screenshot", Arguments: map[string]any{"device": env.Serial}},
			"tap":        {Name: "mobile_click_on_screen_at_coordinates", Arguments: map[string]any{"device": env.Serial, "x": 540, "y": 2280}},
			"elements":   {Name: "mobile_list_elements_on_screen", Arguments: map[string]any{"device": env.Serial}},
		},
	}
	for _, call := range []string{"screenshot", "tap", "elements"} {
		for _, name := range []string{"tandem", "mobile-mcp"} {
			b.Run(call+"/"+name, func(b *testing.B) {
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(),
					&mcp.CommandTransport{Command: server(name)}, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer cs.Close()
				ctx := context.Background()
				if res, err := cs.CallTool(ctx, calls[name][call]); err != nil || res.IsError { // warm: the first call opens the device
					b.Fatalf("%s %s: %v %+v", name, call, err, res)
				}
				ms := make([]float64, 0, b.N)
				b.ResetTimer()
				for range b.N {
					t0 := time.Now()
					res, err := cs.CallTool(ctx, calls[name][call])
					if err != nil || res.IsError {
						b.Fatalf("%s %s: %v %+v", name, call, err, res)
					}
					ms = append(ms, float64(time.Since(t0).Microseconds())/1000)
				}
				sort.Float64s(ms)
				b.ReportMetric(ms[len(ms)/2], "ms-median")
			})
		}
	}
}
