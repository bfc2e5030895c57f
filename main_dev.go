//go:build dev

package main

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"tandem/internal/devguard"
)

// devSetup puts internal/devguard's gate on the address the dev server was
// asked for (-devserver or $devserver), bound to 127.0.0.1, and moves Wails'
// own server to a random 127.0.0.1 port behind it. The per-launch token is
// $TANDEM_DEV_TOKEN (the browser suite's harness picks one per launch) or a
// fresh random one; the URL to open is printed. Without a dev server
// address it does nothing.
func devSetup() (func(), error) {
	addr := os.Getenv("devserver")
	args, flagAddr := cutFlag(os.Args[1:], "devserver")
	if addr == "" {
		addr = flagAddr
	}
	if addr == "" {
		return func() {}, nil
	}
	bind, port, err := devguard.Loopback(addr)
	if err != nil {
		return nil, err
	}
	token := os.Getenv("TANDEM_DEV_TOKEN")
	if token == "" {
		if token, err = devguard.NewToken(); err != nil {
			return nil, err
		}
	}
	ln, err := net.Listen("tcp", bind)
	if err != nil {
		return nil, err
	}
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ln.Close()
		return nil, err
	}
	innerAddr := inner.Addr().String()
	inner.Close() // Wails binds it next; it takes no listener from us
	// Wails reads $devserver before its flag; the flag is taken out of the
	// arguments so its parser, which stops at an unknown flag, reads the rest.
	os.Setenv("devserver", innerAddr)
	os.Args = append(os.Args[:1], args...)
	target := &url.URL{Scheme: "http", Host: innerAddr}
	srv := &http.Server{Handler: devguard.Proxy(token, port, target), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	fmt.Printf("tandem-dev: open http://127.0.0.1:%s/?token=%s\n", strconv.Itoa(port), token)
	return func() { _ = srv.Close() }, nil
}

// cutFlag removes -name VALUE, --name VALUE, -name=VALUE or --name=VALUE
// from args and returns the rest and VALUE.
func cutFlag(args []string, name string) ([]string, string) {
	var out []string
	val := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		bare := strings.TrimLeft(a, "-")
		switch {
		case (a == "-"+name || a == "--"+name) && i+1 < len(args):
			val = args[i+1]
			i++
		case strings.HasPrefix(a, "-") && strings.HasPrefix(bare, name+"="):
			val = strings.TrimPrefix(bare, name+"=")
		default:
			out = append(out, a)
		}
	}
	return out, val
}
