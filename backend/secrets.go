package backend

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/zalando/go-keyring"
)

// Secrets keeps API keys out of settings.json, logs and records. The OS
// keyring (Secret Service on Linux, Keychain, Credential Manager) is used
// where it works; otherwise a 0600 file beside the settings. Keys go in and
// never come back out to the UI: the UI only ever sees Masked values.
type Secrets struct {
	ring keyringAPI
	file string

	mu      sync.Mutex
	useFile bool
}

// ErrNoSecret means no key is stored under that name.
var ErrNoSecret = errors.New("no API key stored")

// keyringAPI is the part of go-keyring we use (a seam for tests).
type keyringAPI interface {
	Get(service, user string) (string, error)
	Set(service, user, password string) error
	Delete(service, user string) error
}

type osKeyring struct{}

func (osKeyring) Get(s, u string) (string, error) { return keyring.Get(s, u) }
func (osKeyring) Set(s, u, p string) error        { return keyring.Set(s, u, p) }
func (osKeyring) Delete(s, u string) error        { return keyring.Delete(s, u) }

const keyringService = "tandem"

// NewSecrets stores keys in the OS keyring, falling back to dir/secrets.json.
func NewSecrets(dir string) *Secrets {
	return &Secrets{ring: osKeyring{}, file: filepath.Join(dir, "secrets.json")}
}

// newFileSecrets keeps keys in dir/secrets.json only (Config.KeyFile).
func newFileSecrets(dir string) *Secrets {
	return &Secrets{ring: osKeyring{}, file: filepath.Join(dir, "secrets.json"), useFile: true}
}

// Backend says where keys are kept: "keyring" or "file".
func (s *Secrets) Backend() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.useFile {
		return "file"
	}
	return "keyring"
}

// Set stores the key for name (a model profile's id).
func (s *Secrets) Set(name, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.useFile {
		if err := s.ring.Set(keyringService, name, key); err == nil {
			_ = s.fileDelete(name) // one copy only
			return nil
		}
		s.useFile = true // no usable keyring on this machine
	}
	return s.fileSet(name, key)
}

// Get returns the key for name, or ErrNoSecret.
func (s *Secrets) Get(name string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.useFile {
		v, err := s.ring.Get(keyringService, name)
		if err == nil {
			return v, nil
		}
	}
	m, err := s.fileRead()
	if err != nil {
		return "", err
	}
	v, ok := m[name]
	if !ok {
		return "", ErrNoSecret
	}
	return v, nil
}

// Delete removes the key for name from both places.
func (s *Secrets) Delete(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.ring.Delete(keyringService, name)
	return s.fileDelete(name)
}

func (s *Secrets) fileRead() (map[string]string, error) {
	m := map[string]string{}
	b, err := os.ReadFile(s.file)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read stored keys: %w", err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("the stored keys file %s is damaged; enter the API key again in Settings", s.file)
	}
	return m, nil
}

func (s *Secrets) fileWrite(m map[string]string) error {
	if err := os.MkdirAll(filepath.Dir(s.file), 0o700); err != nil {
		return err
	}
	b, _ := json.Marshal(m)
	tmp := s.file + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("store key: %w", err)
	}
	return os.Rename(tmp, s.file)
}

func (s *Secrets) fileSet(name, key string) error {
	m, err := s.fileRead()
	if err != nil {
		m = map[string]string{} // a damaged file is replaced by one that works
	}
	m[name] = key
	return s.fileWrite(m)
}

func (s *Secrets) fileDelete(name string) error {
	m, err := s.fileRead()
	if err != nil {
		return err
	}
	if _, ok := m[name]; !ok {
		return nil
	}
	delete(m, name)
	return s.fileWrite(m)
}

// Masked shows enough of a key to recognise it and never all of it:
// "sk-…7f3a" (nothing at all for short keys).
func Masked(key string) string {
	r := []rune(key)
	switch {
	case len(r) == 0:
		return ""
	case len(r) < 12:
		return "••••"
	}
	prefix := 3
	return string(r[:prefix]) + "…" + string(r[len(r)-4:])
}
