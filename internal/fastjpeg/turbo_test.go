//go:build cgo && linux

package fastjpeg

import "testing"

// TestTurboIsFound: on Linux the system's libjpeg-turbo (WebKitGTK's own)
// is found, so no step quietly pays image/jpeg's seven times the CPU.
func TestTurboIsFound(t *testing.T) {
	if !Turbo() {
		t.Fatal("libjpeg.so.62 not opened: install libjpeg62-turbo (scripts/setup.sh does)")
	}
}
