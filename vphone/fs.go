package vphone

import (
	"errors"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
	"time"
)

// memFS is the phone's storage: what screencap and uiautomator write, and
// what adb push and pull move.
type memFS struct {
	now   func() time.Time
	mu    sync.Mutex
	files map[string]*memFile
	dirs  map[string]time.Time
}

type memFile struct {
	data  []byte
	mode  uint32
	mtime time.Time
}

// File-system errors; errText gives the words Android's toolbox prints.
var (
	errNoEnt = errors.New("no such file or directory")
	errIsDir = errors.New("is a directory")
)

func newMemFS(now func() time.Time) *memFS {
	f := &memFS{now: now, files: map[string]*memFile{}, dirs: map[string]time.Time{}}
	for _, d := range []string{"/", "/sdcard", "/sdcard/Download", "/sdcard/DCIM", "/sdcard/Pictures",
		"/data", "/data/local", "/data/local/tmp", "/system", "/system/bin", "/dev", "/storage", "/storage/emulated", "/storage/emulated/0"} {
		f.dirs[d] = now()
	}
	return f
}

// clean resolves a path the way the phone's shell would from /.
func cleanPath(p string) string {
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	p = path.Clean(p)
	// /sdcard and /storage/emulated/0 are the same storage.
	if rest, ok := strings.CutPrefix(p, "/storage/emulated/0"); ok {
		p = "/sdcard" + rest
	}
	return p
}

func (f *memFS) isDir(p string) bool {
	p = cleanPath(p)
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.dirs[p]
	return ok
}

func (f *memFS) read(p string) ([]byte, error) {
	p = cleanPath(p)
	if p == "/dev/null" {
		return nil, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.dirs[p]; ok {
		return nil, errIsDir
	}
	file, ok := f.files[p]
	if !ok {
		return nil, errNoEnt
	}
	return append([]byte(nil), file.data...), nil
}

func (f *memFS) write(p string, data []byte, mode uint32, appendTo bool) error {
	p = cleanPath(p)
	if p == "/dev/null" {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.dirs[p]; ok {
		return errIsDir
	}
	if _, ok := f.dirs[path.Dir(p)]; !ok {
		return errNoEnt
	}
	if mode == 0 {
		mode = 0o644
	}
	old, ok := f.files[p]
	if ok && appendTo {
		data = append(append([]byte(nil), old.data...), data...)
	}
	f.files[p] = &memFile{data: append([]byte(nil), data...), mode: mode & 0o7777, mtime: f.now()}
	return nil
}

func (f *memFS) remove(p string) error {
	p = cleanPath(p)
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.dirs[p]; ok {
		return errIsDir
	}
	if _, ok := f.files[p]; !ok {
		return errNoEnt
	}
	delete(f.files, p)
	return nil
}

func (f *memFS) mkdirAll(p string) {
	p = cleanPath(p)
	f.mu.Lock()
	defer f.mu.Unlock()
	for d := p; d != "/"; d = path.Dir(d) {
		if _, ok := f.dirs[d]; !ok {
			f.dirs[d] = f.now()
		}
	}
}

// fileInfo is what STAT and LIST report.
type fileInfo struct {
	name  string
	mode  uint32 // with the file type bits
	size  uint32
	mtime time.Time
}

func (f *memFS) stat(p string) (fileInfo, error) {
	p = cleanPath(p)
	f.mu.Lock()
	defer f.mu.Unlock()
	if t, ok := f.dirs[p]; ok {
		return fileInfo{name: path.Base(p), mode: 0o40000 | 0o771, mtime: t}, nil
	}
	if file, ok := f.files[p]; ok {
		return fileInfo{name: path.Base(p), mode: 0o100000 | file.mode, size: uint32(len(file.data)), mtime: file.mtime}, nil
	}
	if p == "/dev/null" {
		return fileInfo{name: "null", mode: 0o20000 | 0o666, mtime: f.now()}, nil
	}
	return fileInfo{}, fs.ErrNotExist
}

// list returns a directory's entries sorted by name.
func (f *memFS) list(p string) ([]fileInfo, error) {
	p = cleanPath(p)
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.dirs[p]; !ok {
		return nil, errNoEnt
	}
	var out []fileInfo
	for d, t := range f.dirs {
		if d != "/" && d != p && path.Dir(d) == p {
			out = append(out, fileInfo{name: path.Base(d), mode: 0o40000 | 0o771, mtime: t})
		}
	}
	for name, file := range f.files {
		if path.Dir(name) == p {
			out = append(out, fileInfo{name: path.Base(name), mode: 0o100000 | file.mode, size: uint32(len(file.data)), mtime: file.mtime})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// errText is how toolbox commands print a file error.
func errText(err error) string {
	switch {
	case errors.Is(err, errNoEnt), errors.Is(err, fs.ErrNotExist):
		return "No such file or directory"
	case errors.Is(err, errIsDir):
		return "Is a directory"
	}
	return err.Error()
}
