//go:build linux

package layout

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// `make lint` beside another checkout's lint on the same machine waits for
// golangci-lint's lock (one per machine, in the temp dir) instead of
// failing with "parallel golangci-lint is running" (issue 27). Without the
// flag golangci-lint gives up after trying for 5 s; the lock is held here
// for longer than that once it has started trying, then let go.
func TestLintWaitsForAnotherLint(t *testing.T) {
	if testing.Short() {
		t.Skip("runs golangci-lint")
	}
	gobin, err := exec.Command("go", "env", "GOPATH").Output()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(strings.TrimSpace(string(gobin)), "bin", "golangci-lint")); err != nil {
		t.Skip("golangci-lint is not installed (make setup-test installs it)")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	tmp := t.TempDir()
	lock, err := os.Create(filepath.Join(tmp, "golangci-lint.lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil { // the other checkout's lint
		t.Fatal(err)
	}
	cmd := exec.Command("make", "-s", "-o", "frontend", "lint", "LINTPKGS=./internal/version/")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "GL_DEBUG=exec")
	var out bytes.Buffer
	cmd.Stdout = &out
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	trying := make(chan struct{})
	var log bytes.Buffer
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), "Locking on file") {
				close(trying)
			}
		}
		exited <- cmd.Wait()
	}()
	// fail ends make (when it still runs) before reading what it wrote.
	fail := func(format string, args ...any) {
		t.Helper()
		_ = cmd.Process.Kill()
		<-exited
		t.Fatalf(format+"\n%s%s", append(args, out.String(), log.String())...)
	}
	select {
	case <-trying:
	case err := <-exited:
		exited <- err
		fail("make lint ended before it tried the lock: %v", err)
	case <-time.After(5 * time.Minute):
		fail("make lint never tried golangci-lint's lock")
	}
	select {
	case err := <-exited:
		exited <- err
		fail("make lint gave up while another lint held the lock: %v", err)
	case <-time.After(8 * time.Second): // golangci-lint alone gives up after 5 s
	}
	_ = syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	select {
	case err := <-exited:
		exited <- err
		if err != nil {
			fail("make lint after the other lint: %v", err)
		}
	case <-time.After(5 * time.Minute):
		fail("make lint did not finish after the lock was let go")
	}
}
