//go:build dev

package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"tandem/internal/devguard"
)

// devSetup puts internal/devguard's gate on the address the dev server was
// asked for (-devserver or $devserver), bound to 127.0.0.1, and makes it
// the only listener: Wails' own server gets no port (it would answer any
// page, token or not) and is served by the gate in this process, found in
// the context Wails hands the window's start (devguard.WailsServer). The
// per-launch token is $TANDEM_DEV_TOKEN (the browser suite's harness picks
// one per launch) or a fresh random one; the URL to open is printed.
// Without a dev server address it does nothing.
func devSetup() (devHooks, error) {
	addr := os.Getenv("devserver")
	args, flagAddr := cutFlag(os.Args[1:], "devserver")
	if addr == "" {
		addr = flagAddr
	}
	if addr == "" {
		return devHooks{stop: func() {}}, nil
	}
	bind, port, err := devguard.Loopback(addr)
	if err != nil {
		return devHooks{}, err
	}
	token := os.Getenv("TANDEM_DEV_TOKEN")
	if token == "" {
		if token, err = devguard.NewToken(); err != nil {
			return devHooks{}, err
		}
	}
	ln, err := net.Listen("tcp", bind)
	if err != nil {
		return devHooks{}, err
	}
	// Wails starts its server on the devserver address it reads ($devserver
	// before its flag, internal/app/app_dev.go), and on none without one.
	// Behind a frontend dev server (`wails dev`) it needs one to know the
	// page's port: it is given the gate's, which it cannot bind (the gate
	// holds it), so it logs that once and serves nowhere but here. The flag
	// is taken out of the arguments so its parser, which stops at an
	// unknown flag, reads the rest.
	os.Unsetenv("devserver")
	if _, front := cutFlag(os.Args[1:], "frontenddevserverurl"); front != "" || os.Getenv("frontenddevserverurl") != "" {
		os.Setenv("devserver", bind)
		fmt.Println("tandem-dev: Wails' own server is served by the gate; its error binding " + bind + " is expected")
	}
	os.Args = append(os.Args[:1], args...)
	gate := devguard.New(token, port, nil)
	srv := &http.Server{Handler: gate, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	fmt.Printf("tandem-dev: open http://127.0.0.1:%s/?token=%s\n", strconv.Itoa(port), token)
	startup := func(ctx context.Context) {
		h, err := devguard.WailsServer(ctx)
		if err != nil {
			fmt.Fprintln(os.Stderr, "tandem-dev: the gate cannot serve the app:", err)
			return
		}
		gate.Attach(h)
	}
	return devHooks{startup: startup, stop: func() { _ = srv.Close() }}, nil
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
