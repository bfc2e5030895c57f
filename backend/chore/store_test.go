package chore

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestStoreKeepsChoresAcrossOpens(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC)
	s := NewStore(dir)
	a, err := s.Save(Chore{Name: "Water plants", Goal: "Add a to-do: water the plants"}, now)
	if err != nil || a.ID == "" || !a.Created.Equal(now) {
		t.Fatalf("save: %+v %v", a, err)
	}
	if _, err := s.Save(Chore{Name: "water PLANTS", Goal: "x"}, now); !errors.Is(err, ErrNameTaken) {
		t.Fatalf("a second chore of the same name (other case): %v", err)
	}
	a.Name = "Water the plants"
	later := now.Add(time.Hour)
	if _, err := s.Save(a, later); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save(Chore{Name: "Alarm", Goal: "Set an alarm at 7"}, later); err != nil {
		t.Fatal(err)
	}

	s2 := NewStore(dir) // another door, the same file
	list, err := s2.List()
	if err != nil || len(list) != 2 || list[0].Name != "Alarm" || list[1].Name != "Water the plants" {
		t.Fatalf("list %+v %v", list, err)
	}
	got, err := s2.Get("water the plants")
	if err != nil || got.ID != a.ID || !got.Created.Equal(now) || !got.Updated.Equal(later) {
		t.Fatalf("get by name: %+v %v", got, err)
	}
	if err := s2.Delete(a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(a.Name); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleted chore found: %v", err)
	}
}

func TestStoreLeavesADamagedFileAlone(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "chores.json")
	if err := os.WriteFile(p, []byte(`{"chores": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := NewStore(dir)
	if _, err := s.List(); err == nil {
		t.Fatal("a damaged file reads as no chores")
	}
	if _, err := s.Save(Chore{Name: "n", Goal: "g"}, time.Now()); err == nil {
		t.Fatal("a save over a damaged file replaced it")
	}
	if b, _ := os.ReadFile(p); string(b) != `{"chores": [` {
		t.Errorf("the damaged file was changed: %q", b)
	}
}

func TestLookedIsKept(t *testing.T) {
	s := NewStore(t.TempDir())
	if !s.Looked().IsZero() {
		t.Fatal("a new store has looked")
	}
	now := time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC)
	if err := s.SetLooked(now); err != nil {
		t.Fatal(err)
	}
	if !NewStore(s.dir).Looked().Equal(now) {
		t.Error("looked not kept")
	}
}
