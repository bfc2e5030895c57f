package app

import (
	"time"

	"tandem/backend"
)

// ListDevices returns phones, virtual phones and this computer's displays.
// An adb problem is shown as an error only when there is nothing to list
// (the list says what is wrong with each device).
func (a *DevicesAPI) ListDevices() (_ []backend.DeviceEntry, err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(15 * time.Second)
	defer cancel()
	list, err := a.b.ListDevices(ctx)
	if len(list) > 0 {
		return list, nil
	}
	return list, err
}

// ConnectDevice connects a phone over Wi-Fi ("ip:port").
func (a *DevicesAPI) ConnectDevice(addr string) (_ backend.DeviceEntry, err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(20 * time.Second)
	defer cancel()
	return a.b.ConnectDevice(ctx, addr)
}

// StartVirtualPhone starts a virtual phone inside Tandem.
func (a *DevicesAPI) StartVirtualPhone() (_ backend.DeviceEntry, err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(30 * time.Second)
	defer cancel()
	return a.b.StartVirtualPhone(ctx)
}

// Elsewhere lists the devices another Tandem drives now, each with its run
// as far as its record says; "elsewhere" events keep the list current.
func (a *DevicesAPI) Elsewhere() []backend.ElsewhereRun {
	return a.b.Elsewhere()
}
