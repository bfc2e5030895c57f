package devguard

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"unsafe"
)

// WailsServer returns Wails' development server (its HTTP handler: the
// assets, /wails/ipc.js and /wails/runtime.js, the /wails/ipc WebSocket
// that calls the bound methods) from the context Wails hands OnStartup, so
// the gate can serve it in the same process and Wails need not listen on a
// port of its own.
//
// Wails keeps it out of reach: in Wails v2.11.0 (internal/app/app_dev.go)
// the dev build puts its *devserver.DevWebServer into the app's context as
// "frontend"; that struct's unexported field `server` is the *echo.Echo
// holding every route (internal/frontend/devserver/devserver.go, whose Run
// registers them all before the window, and so OnStartup, starts, and
// starts the echo server on a port only when given a devserver address).
// The field is read by reflection; if a Wails upgrade moves it, this says
// so and the gate serves nothing (it never falls back to a port of Wails').
func WailsServer(ctx context.Context) (http.Handler, error) {
	fe := ctx.Value("frontend") // Wails' own key (a string, as Wails sets it)
	v := reflect.ValueOf(fe)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("devguard: Wails' context holds no dev server (%T): is this the dev build?", fe)
	}
	f := v.Elem().FieldByName("server")
	if !f.IsValid() || f.Kind() != reflect.Pointer || f.IsNil() {
		return nil, fmt.Errorf("devguard: %T has no server field as in Wails v2.11.0 (see devguard.WailsServer)", fe)
	}
	// An unexported field cannot be read through reflect's Interface; the
	// pointer it holds is read through its address instead.
	h, ok := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface().(http.Handler)
	if !ok {
		return nil, fmt.Errorf("devguard: %T's server (%s) is not an HTTP handler", fe, f.Type())
	}
	return h, nil
}
