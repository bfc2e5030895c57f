package engine

import (
	"context"

	"tandem/engine/action"
	"tandem/engine/device"
)

// currentApperNames is what Judge asks of a device for the names of the
// app in front (adb's AppLabel).
type currentApperNames interface {
	CurrentApp(ctx context.Context) (string, error)
}

// Judge is the policy's verdict on one action about to be done on dev
// outside a run (an MCP client's single act), by the rules a run applies
// (loopState.sensitive): the label under a pointed action from the UI
// tree read now, the app in front and the names it goes by. A screen that
// cannot be read is never taken for a harmless one.
func Judge(ctx context.Context, dev device.Device, p Policy, a action.Action) Why {
	t := Target{Action: a}
	if p.Off {
		return p.Why(t)
	}
	var tree []byte
	treeDev, hasTree := dev.(device.UITree)
	if hasTree && a.Type.Pointed() && len(p.Words) > 0 {
		for range 2 { // a dump often fails while the screen still moves
			b, err := treeDev.UITree(ctx)
			if err == nil {
				tree = b
				break
			}
		}
		if e, ok := elementAt(tree, a.X, a.Y); ok {
			t.Label = e.Label
		}
	}
	fg, hasApp := dev.(foregrounder)
	if hasApp && len(p.Apps) > 0 {
		if pkg, _, err := fg.ForegroundApp(ctx); err == nil {
			t.App = pkg
		}
		if n, ok := dev.(appNamer); ok && t.App != "" {
			t.Names = n.AppNames(t.App)
		}
		if c, ok := dev.(currentApperNames); ok {
			if name, err := c.CurrentApp(ctx); err == nil && name != "" {
				t.Names = append(t.Names, name)
			}
		}
	}
	if why := p.Why(t); why.By != "" {
		return why
	}
	if hasTree && a.Type.Pointed() && len(p.Words) > 0 && tree == nil {
		return Why{By: "unread", What: "labels", Detail: "the screen's labels could not be read"}
	}
	if hasApp && len(p.Apps) > 0 && t.App == "" {
		return Why{By: "unread", What: "app", Detail: "the app in front could not be read"}
	}
	return Why{}
}
