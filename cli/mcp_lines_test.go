package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The real `tandem mcp` answers a bad line with the JSON-RPC error (id
// null) and goes on serving; it ends, with success, only when its client
// closes stdin (issue 49: the first bad line ended it).
func TestTandemMCPAnswersABadLineAndGoesOn(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "mcp", "--adb-port", "1")
	cmd.Env = append(os.Environ(), childEnv+"=1", "TANDEM_DATA_DIR="+t.TempDir())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	replies := make(chan map[string]any, 16)
	go func() {
		defer close(replies)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				replies <- m
			}
		}
	}()
	send := func(line string) {
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatalf("tandem mcp no longer reads: %v\n%s", err, stderr.String())
		}
	}
	reply := func() map[string]any {
		select {
		case m, ok := <-replies:
			if !ok {
				t.Fatalf("tandem mcp ended its output\n%s", stderr.String())
			}
			return m
		case <-ctx.Done():
			t.Fatal("no answer from tandem mcp")
		}
		return nil
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := reply(); m["id"] != float64(1) {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, bad := range []string{"garbage", `{"jsonrpc":"2.0","id":2,"meth`, `[{"jsonrpc":"2.0","id":3,"method":"tools/list"}]`, `{"jsonrpc":"1.0","id":4,"method":"tools/list"}`} {
		send(bad)
		if m := reply(); m["id"] != nil || m["error"] == nil {
			t.Fatalf("%q answered %v", bad, m)
		}
		send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(10+i) + `,"method":"tools/list"}`)
		if m := reply(); m["id"] != float64(10+i) || !strings.Contains(toJSON(m["result"]), `"run_task"`) {
			t.Fatalf("tools/list after %q: %v", bad, m)
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("tandem mcp: %v\n%s", err, stderr.String())
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
