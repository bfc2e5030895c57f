package backend

import (
	"context"
	"strconv"
	"testing"
	"time"

	"tandem/engine/action"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// An adb server named in Settings (a second private server standing in
// for another computer's): its phone is listed with its host beside the
// local one, its mirror shows that phone, and the person's tap on it
// reaches that phone, not the local one.
func TestSettingsAddAnotherComputersPhones(t *testing.T) {
	local, lenv := vphonetest.Start(t, vphone.WithSize(360, 800))
	remote, renv := vphonetest.Start(t, vphone.WithSize(360, 800))
	for _, p := range []*vphone.Phone{local, remote} {
		if err := p.Launch(vphone.PkgCounter); err != nil {
			t.Fatal(err)
		}
	}
	b := New(Config{ConfigDir: t.TempDir(), DataDir: t.TempDir(), KeyFile: true, ADB: "127.0.0.1:" + strconv.Itoa(lenv.Port)})
	t.Cleanup(b.Shutdown)
	host := "127.0.0.1:" + strconv.Itoa(renv.Port)
	s, _, _ := b.settings.Load()
	s.ADBServers = []string{" " + host + " ", host, ""}
	saved, err := b.SaveSettings(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(saved.ADBServers) != 1 || saved.ADBServers[0] != host {
		t.Fatalf("saved %q", saved.ADBServers)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	list, err := b.ListDevices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	id := renv.Serial + "@" + host
	found := map[string]string{}
	for _, e := range list {
		found[e.ID] = e.Host
	}
	if h, ok := found[lenv.Serial]; !ok || h != "" {
		t.Fatalf("local phone: %v %q in %+v", ok, h, list)
	}
	if h, ok := found[id]; !ok || h != host {
		t.Fatalf("the other computer's phone: %v %q in %+v", ok, h, list)
	}
	if err := b.desks.Watch(ctx, "test", id); err != nil {
		t.Fatal(err)
	}
	for b.hub.PathOf(id).Path == "" {
		select {
		case <-ctx.Done():
			t.Fatal("the other computer's phone's mirror never started")
		case <-time.After(20 * time.Millisecond):
		}
	}
	r, ok := remote.Bounds("+1")
	if !ok {
		r, ok = remote.BoundsOfText("+1")
	}
	if !ok {
		t.Fatal("no +1 on the phone")
	}
	c := r.Min.Add(r.Max).Div(2)
	if err := b.desks.Do(ctx, id, action.Action{Type: action.Tap, X: c.X, Y: c.Y}); err != nil {
		t.Fatal(err)
	}
	if remote.State().Counter != 1 || local.State().Counter != 0 {
		t.Fatalf("counters: the other computer's %d, the local %d", remote.State().Counter, local.State().Counter)
	}
}
