package backend

import (
	"errors"
	"os"

	"tandem/internal/scrcpy"
	"tandem/mirror/stream"
)

// The scrcpy-server file. Which one the mirror uses, first that is set:
// TANDEM_SCRCPY_SERVER (Config.ScrcpyServer: a per-launch override, as an
// environment variable is for a script or a test, so it wins over what is
// stored), the file chosen in Settings (Settings.ScrcpyServer), else the
// usual install paths (stream.JarPaths). A file chosen in Settings is
// checked when saved: it exists, its release can be read from it, and
// Tandem speaks that release (2.0 to 4.1); the environment's file is
// checked only when the mirror starts (the mirror's label then says why
// it fell back).

// ScrcpyServer is what Settings shows of a scrcpy-server file.
type ScrcpyServer struct {
	Path    string `json:"path"`    // the file checked; "" none
	Version string `json:"version"` // its release, when read
	// Problem is "" (Tandem speaks it), "missing", "not_server",
	// "too_old" (1.x) or "too_new" (5.x and later).
	Problem string `json:"problem"`
	Text    string `json:"text"` // the problem in English, with the error's own words
	// Env is TANDEM_SCRCPY_SERVER when set: that file wins over the setting.
	Env string `json:"env"`
	// Found: no file was chosen, and Path is the one the usual install
	// paths hold ("" when none does); its problem is said, never refused.
	Found bool `json:"found"`
}

// scrcpyProblems are the values of ScrcpyServer.Problem other than "".
var scrcpyProblems = []string{"missing", "not_server", "too_old", "too_new"}

// ScrcpyError is a scrcpy-server file Settings cannot use; Say gives it
// the code "scrcpy.<problem>" with the version and the path.
type ScrcpyError struct{ Server ScrcpyServer }

func (e *ScrcpyError) Error() string { return e.Server.Text }

// CheckScrcpyServer says whether the scrcpy-server file at path can be
// used, from the file alone (no phone needed); with no path, which file
// the usual install paths hold and whether it can be.
func (b *Backend) CheckScrcpyServer(path string) ScrcpyServer {
	found := false
	if path == "" {
		path, _ = stream.FindJarIn("", b.desks.jarPaths)
		found = true
	}
	s := checkScrcpy(&b.desks.versions, path)
	s.Env, s.Found = b.desks.scrcpyJar, found
	return s
}

func checkScrcpy(versions *stream.JarVersions, path string) ScrcpyServer {
	s := ScrcpyServer{Path: path}
	if path == "" {
		return s
	}
	v, err := versions.Check(path)
	s.Version = v
	if err == nil {
		return s
	}
	s.Text = err.Error()
	switch {
	case errors.Is(err, os.ErrNotExist):
		s.Problem = "missing"
	case errors.Is(err, scrcpy.ErrTooOld):
		s.Problem = "too_old"
	case errors.Is(err, scrcpy.ErrTooNew):
		s.Problem = "too_new"
	default:
		s.Problem = "not_server"
	}
	return s
}

// checkScrcpySetting refuses a changed scrcpy-server file Tandem cannot use.
func (b *Backend) checkScrcpySetting(before, after string) error {
	if after == "" || after == before {
		return nil
	}
	if s := checkScrcpy(&b.desks.versions, after); s.Problem != "" {
		return &ScrcpyError{Server: s}
	}
	return nil
}
