package backend

import (
	"errors"
	"os"
	"strings"
	"testing"
)

type brokenRing struct{}

func (brokenRing) Get(string, string) (string, error) { return "", errors.New("no secret service") }
func (brokenRing) Set(string, string, string) error   { return errors.New("no secret service") }
func (brokenRing) Delete(string, string) error        { return errors.New("no secret service") }

type memRing map[string]string

func (m memRing) Get(s, u string) (string, error) {
	v, ok := m[s+"/"+u]
	if !ok {
		return "", errors.New("not found")
	}
	return v, nil
}
func (m memRing) Set(s, u, p string) error { m[s+"/"+u] = p; return nil }
func (m memRing) Delete(s, u string) error { delete(m, s+"/"+u); return nil }

func TestSecretsFallBackToA0600File(t *testing.T) {
	dir := t.TempDir()
	s := &Secrets{ring: brokenRing{}, file: dir + "/secrets.json"}
	if err := s.Set("openai", "sk-test-1234567890abcd"); err != nil {
		t.Fatal(err)
	}
	if s.Backend() != "file" {
		t.Fatalf("backend %s", s.Backend())
	}
	fi, err := os.Stat(s.file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v %v", fi, err)
	}
	got, err := s.Get("openai")
	if err != nil || got != "sk-test-1234567890abcd" {
		t.Fatalf("got %q %v", got, err)
	}
	if _, err := s.Get("zhipu"); !errors.Is(err, ErrNoSecret) {
		t.Fatalf("want ErrNoSecret, got %v", err)
	}
	if err := s.Delete("openai"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get("openai"); !errors.Is(err, ErrNoSecret) {
		t.Fatalf("after delete: %v", err)
	}
}

func TestSecretsUseTheKeyringWhenItWorks(t *testing.T) {
	dir := t.TempDir()
	ring := memRing{}
	s := &Secrets{ring: ring, file: dir + "/secrets.json"}
	if err := s.Set("qwen", "sk-abcdefghijklmnop"); err != nil {
		t.Fatal(err)
	}
	if s.Backend() != "keyring" || ring["tandem/qwen"] != "sk-abcdefghijklmnop" {
		t.Fatalf("backend %s ring %v", s.Backend(), ring)
	}
	if _, err := os.Stat(s.file); err == nil {
		t.Fatal("key also written to the file")
	}
}

func TestSecretsDamagedFileIsAClearError(t *testing.T) {
	dir := t.TempDir()
	s := &Secrets{ring: brokenRing{}, file: dir + "/secrets.json"}
	if err := os.WriteFile(s.file, []byte("{oops"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get("x"); err == nil || !strings.Contains(err.Error(), "enter the API key again") {
		t.Fatalf("got %v", err)
	}
	if err := s.Set("x", "sk-0123456789abcdef"); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Get("x"); err != nil || v != "sk-0123456789abcdef" {
		t.Fatalf("got %q %v", v, err)
	}
}

func TestMaskedNeverShowsTheWholeKey(t *testing.T) {
	for _, k := range []string{"sk-proj-abcdefghijklmnopqrstuvwxyz0123", "abcdefghijkl", "短密钥但是很长很长的中文内容哦"} {
		m := Masked(k)
		if strings.Contains(m, k[3:len(k)-4]) && len(k) > 8 {
			t.Errorf("%q masked as %q shows the middle", k, m)
		}
		if m == k {
			t.Errorf("%q not masked", k)
		}
	}
	if Masked("short") != "••••" || Masked("") != "" {
		t.Fatal("short keys")
	}
	if got := Masked("sk-proj-abcdefghijklmnop7f3a"); got != "sk-…7f3a" {
		t.Fatalf("got %q", got)
	}
}
