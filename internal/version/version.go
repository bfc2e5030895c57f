// Package version is the one source of Tandem's version and commit, shown by
// `tandem version` and the About box.
package version

import (
	"runtime/debug"
	"strings"
)

// Version is the release version; `make build` may override it with
// -ldflags "-X tandem/internal/version.Version=...".
var Version = "0.1.0"

// commit is set by `make build` with -ldflags "-X tandem/internal/version.commit=<sha>";
// when empty, the Go toolchain's VCS stamp is used.
var commit = ""

// Info is the version and the commit the binary was built from.
type Info struct {
	Version  string `json:"version"`
	Commit   string `json:"commit"`
	Modified bool   `json:"modified"`
	Go       string `json:"go"`
}

// Get reads the commit from the Go build info (vcs stamping).
func Get() Info {
	info := Info{Version: Version, Commit: "unknown"}
	bi, ok := debug.ReadBuildInfo()
	if ok {
		info.Go = bi.GoVersion
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Commit = s.Value
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
	}
	if commit != "" {
		info.Commit, info.Modified = strings.TrimSuffix(commit, "-dirty"), strings.HasSuffix(commit, "-dirty")
	}
	return info
}

// String is the one-line form: "tandem 0.1.0 (commit abc1234)".
func (i Info) String() string {
	c := i.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	if i.Modified {
		c += "+dirty"
	}
	return "tandem " + i.Version + " (commit " + c + ")"
}
