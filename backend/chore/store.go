package chore

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Store keeps the chores in one JSON file (chores.json in Tandem's config
// folder) and the scheduler's mark of how far it has looked (schedule.json
// beside it). Every change reads the file again first and replaces it
// whole (written beside it, then renamed), so the window and a command
// line that edit chores one after the other both keep their change, and a
// crash mid-write leaves the old file.
type Store struct {
	dir string
	mu  sync.Mutex
}

// MaxChores bounds the list a file may hold.
const MaxChores = 500

// NewStore keeps chores in dir.
func NewStore(dir string) *Store { return &Store{dir: dir} }

type file struct {
	Chores []Chore `json:"chores"`
}

func (s *Store) path() string { return filepath.Join(s.dir, "chores.json") }

func (s *Store) read() ([]Chore, error) {
	b, err := os.ReadFile(s.path())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f file
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("the chores file %s cannot be read (%v); it is left as it is", s.path(), err)
	}
	if len(f.Chores) > MaxChores {
		f.Chores = f.Chores[:MaxChores]
	}
	return f.Chores, nil
}

func (s *Store) write(list []Chore) error {
	b, err := json.MarshalIndent(file{Chores: list}, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(s.path(), b)
}

func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".chores-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}

// List returns the chores by name.
func (s *Store) List() ([]Chore, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	list, err := s.read()
	sort.SliceStable(list, func(i, j int) bool { return strings.ToLower(list[i].Name) < strings.ToLower(list[j].Name) })
	return list, err
}

// Get finds a chore by its id or its name (any case).
func (s *Store) Get(key string) (Chore, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	list, err := s.read()
	if err != nil {
		return Chore{}, err
	}
	if i := find(list, key); i >= 0 {
		return list[i], nil
	}
	return Chore{}, fmt.Errorf("%w: %q", ErrNotFound, key)
}

func find(list []Chore, key string) int {
	key = strings.TrimSpace(key)
	for i, c := range list {
		if c.ID == key {
			return i
		}
	}
	for i, c := range list {
		if strings.EqualFold(c.Name, key) {
			return i
		}
	}
	return -1
}

// Save adds c (no ID yet) or replaces the chore with its ID, and returns
// it as saved. Names are unique whatever their case.
func (s *Store) Save(c Chore, now time.Time) (Chore, error) {
	c.Name, c.Goal = strings.TrimSpace(c.Name), strings.TrimSpace(c.Goal)
	if err := c.Check(); err != nil {
		return Chore{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	list, err := s.read()
	if err != nil {
		return Chore{}, err
	}
	for _, o := range list {
		if o.ID != c.ID && strings.EqualFold(o.Name, c.Name) {
			return Chore{}, fmt.Errorf("%w: %q", ErrNameTaken, c.Name)
		}
	}
	c.Updated = now
	i := -1
	if c.ID != "" {
		i = find(list, c.ID)
	}
	switch {
	case i >= 0:
		c.Created = list[i].Created
		list[i] = c
	case len(list) >= MaxChores:
		return Chore{}, fmt.Errorf("at most %d chores can be kept", MaxChores)
	default:
		c.ID, c.Created = newID(), now
		list = append(list, c)
	}
	return c, s.write(list)
}

// Delete removes the chore with this id or name.
func (s *Store) Delete(key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	list, err := s.read()
	if err != nil {
		return err
	}
	i := find(list, key)
	if i < 0 {
		return fmt.Errorf("%w: %q", ErrNotFound, key)
	}
	return s.write(append(list[:i], list[i+1:]...))
}

func newID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Looked is how far the scheduler has looked: every slot up to this time
// was run, or shown as missed (zero: it never looked).
func (s *Store) Looked() time.Time {
	var st struct {
		Looked time.Time `json:"looked"`
	}
	if b, err := os.ReadFile(filepath.Join(s.dir, "schedule.json")); err == nil {
		_ = json.Unmarshal(b, &st)
	}
	return st.Looked
}

// SetLooked keeps how far the scheduler has looked.
func (s *Store) SetLooked(t time.Time) error {
	b, err := json.Marshal(struct {
		Looked time.Time `json:"looked"`
	}{t})
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(s.dir, "schedule.json"), b)
}
