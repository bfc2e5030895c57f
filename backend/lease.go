package backend

import (
	"context"
	"strings"

	"tandem/devices"
)

// One driver per device across every Tandem on this computer
// (devices/lease.go): a run holds its device's lease from its start to its
// end, another agent's act and the person's own input on a device with no
// run hold it while they act. Within this process the runs and the input
// manager decide who drives; the lease refuses a driver in another one,
// naming who holds it.

// HeldError says who in another Tandem drives a device (devices.HeldError).
type HeldError = devices.HeldError

// ErrHeld means another Tandem drives the device.
var ErrHeld = devices.ErrHeld

// lease takes device id's lease for this door on behalf of by (a run's
// StartedBy: "mcp:<client>" for an MCP client, "" the door's own person);
// wait waits for another Tandem to let go instead of refusing.
func (b *Backend) lease(ctx context.Context, id, by string, wait bool) (func(), error) {
	if b.runs.world != nil { // a simulation's phones are its own
		return func() {}, nil
	}
	return b.devices.Lease(ctx, id, b.holder(by), wait)
}

// holder is who drives a device for by (a run's StartedBy): this
// process's door, and an MCP client's name.
func (b *Backend) holder(by string) devices.Holder {
	h := devices.Holder{Door: b.cfg.Door}
	if c, ok := strings.CutPrefix(by, "mcp:"); ok {
		h.Client = c
		if h.Door == "" {
			h.Door = "mcp"
		}
	}
	return h
}

// heldElsewhere refuses the person's live input on a device another
// Tandem drives.
func (b *Backend) heldElsewhere(id string) error {
	if b.runs.world != nil {
		return nil
	}
	if h := b.devices.HeldBy(id); h != nil {
		return &devices.HeldError{Device: id, By: *h}
	}
	return nil
}
