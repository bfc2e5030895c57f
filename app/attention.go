package app

import (
	"context"

	wruntime "github.com/wailsapp/wails/v2/pkg/runtime"
)

// The window tells the backend whether it is in front of the person, so a
// run that needs them raises a desktop notification only when it is not
// (backend/attention.go); a click on the notification brings the window
// to the front and tells the page which run asked ("attention").

// WindowFront is the page's focus and visibility: front is true while
// the window has the focus and is shown.
func (a *RunsAPI) WindowFront(front bool) { a.b.WindowFront(front) }

// raiser brings the window to the front (GTK: gtk_window_present) and
// names the run the person clicked about.
func raiser(ctx context.Context) func(run string) {
	return func(run string) {
		wruntime.WindowUnminimise(ctx)
		wruntime.WindowShow(ctx)
		wruntime.EventsEmit(ctx, "attention", run)
	}
}

// WindowShows names the devices the window shows now (the one device of
// its single view, every tile side by side): a request on another device
// raises a notification even with the window in front.
func (a *RunsAPI) WindowShows(devices []string) { a.b.WindowShows(devices) }
