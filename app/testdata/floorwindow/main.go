// Command floorwindow is the least a Wails window on WebKitGTK does for a
// change: a page of one box that takes a colour from an event, as Tandem's
// page takes the engine's. It is built with Tandem's window settings (no
// GL) and driven on stdin, one colour a line; BenchmarkWindowFloor measures
// it the way BenchmarkWindowPause measures Tandem, so the two tell the
// page's cost from the platform's.
package main

import (
	"bufio"
	"context"
	"log"
	"os"
	"testing/fstest"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// page is the whole page: a box in the top left corner, white until told.
const page = `<!doctype html><html><head><meta charset="utf-8"><title>Floor</title></head>
<body style="margin:0;background:#fff"><div id="box" style="position:fixed;left:0;top:0;width:200px;height:100px;background:#fff"></div>
<script>window.runtime.EventsOn('colour', (c) => { document.getElementById('box').style.background = c })</script></body></html>`

func main() {
	err := wails.Run(&options.App{
		Title:            "Floor",
		Width:            1280,
		Height:           820,
		BackgroundColour: &options.RGBA{R: 255, G: 255, B: 255, A: 255},
		AssetServer:      &assetserver.Options{Assets: fstest.MapFS{"index.html": {Data: []byte(page)}}},
		OnStartup:        func(ctx context.Context) { go relay(ctx) },
		Linux:            &linux.Options{ProgramName: "floorwindow", WebviewGpuPolicy: linux.WebviewGpuPolicyNever},
	})
	if err != nil {
		log.Fatal(err)
	}
}

// relay sends each line of stdin to the page as the colour event, and
// closes the window when stdin ends.
func relay(ctx context.Context) {
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		runtime.EventsEmit(ctx, "colour", in.Text())
	}
	runtime.Quit(ctx)
}
