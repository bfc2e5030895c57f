package app

import (
	"errors"
	"time"
)

// ListDevices returns phones, virtual phones and this computer's displays.
// An adb problem is shown as an error only when there is nothing to list.
func (a *DevicesAPI) ListDevices() (_ []DeviceEntry, err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(15 * time.Second)
	defer cancel()
	list, err := a.devices.List(ctx)
	if list == nil {
		list = []DeviceEntry{}
	}
	if len(list) > 0 {
		return list, nil
	}
	return list, err
}

// ConnectDevice connects a phone over Wi-Fi ("ip:port").
func (a *DevicesAPI) ConnectDevice(addr string) (_ DeviceEntry, err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(20 * time.Second)
	defer cancel()
	return a.devices.Connect(ctx, addr)
}

// StartVirtualPhone starts a virtual phone inside Tandem and attaches it to
// the adb server, so a person can try the agent without a phone.
func (a *DevicesAPI) StartVirtualPhone() (_ DeviceEntry, err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(30 * time.Second)
	defer cancel()
	serial, err := a.virtual.Start(ctx)
	if err != nil {
		return DeviceEntry{}, err
	}
	list, err := a.devices.List(ctx)
	for _, e := range list {
		if e.ID == serial {
			a.notify.Notify("devices", list)
			return e, nil
		}
	}
	if err == nil {
		err = errors.New("the virtual phone started but the adb server does not list it")
	}
	return DeviceEntry{}, err
}
