package stream

import (
	"fmt"
	"os"
	"sync"
	"time"

	"tandem/internal/scrcpy"
)

// JarVersions remembers the release each scrcpy-server file holds, keyed
// by its path, size and modification time (a file replaced in place is
// read again). The release is read from the jar itself, or learned from a
// server's refusal when the jar hides it. The zero value is ready; a nil
// one remembers nothing.
type JarVersions struct {
	mu sync.Mutex
	m  map[jarKey]string
}

type jarKey struct {
	path  string
	size  int64
	mtime time.Time
}

func keyOf(path string) (jarKey, bool) {
	st, err := os.Stat(path)
	if err != nil {
		return jarKey{}, false
	}
	return jarKey{path, st.Size(), st.ModTime()}, true
}

// lookup is the release of the jar at path (whose bytes are jar): the
// remembered one, else the one the jar names; known is false when neither
// says.
func (c *JarVersions) lookup(path string, jar []byte) (version string, known bool) {
	k, ok := keyOf(path)
	if c != nil && ok {
		c.mu.Lock()
		v, hit := c.m[k]
		c.mu.Unlock()
		if hit {
			return v, true
		}
	}
	v, err := scrcpy.JarVersion(jar)
	if err != nil {
		return "", false
	}
	c.put(k, ok, v)
	return v, true
}

// remember keeps what a server said of itself.
func (c *JarVersions) remember(path, version string) {
	k, ok := keyOf(path)
	c.put(k, ok, version)
}

func (c *JarVersions) put(k jarKey, ok bool, v string) {
	if c == nil || !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) > 64 { // a handful of files in a lifetime
		c.m = map[jarKey]string{}
	}
	c.m[k] = v
}

// Check says which release the scrcpy-server file at path holds, from the
// file alone (no phone), and whether Tandem speaks it: a missing file, a
// file that is not a scrcpy-server jar, a 1.x or a 4.x server are errors
// (wrapping os.ErrNotExist, scrcpy.ErrNoVersion, scrcpy.ErrTooOld,
// scrcpy.ErrTooNew). The version is returned with the last two.
func (c *JarVersions) Check(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("scrcpy-server at %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("scrcpy-server at %s: %w (not a file)", path, scrcpy.ErrNoVersion)
	}
	jar, err := readJar(path)
	if err != nil {
		return "", err
	}
	v, known := c.lookup(path, jar)
	if !known {
		return "", fmt.Errorf("%s: %w", path, scrcpy.ErrNoVersion)
	}
	_, err = scrcpy.ProtoOf(v)
	return v, err
}
