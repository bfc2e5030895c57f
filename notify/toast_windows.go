package notify

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"unicode/utf16"
)

// On Windows a note is a toast, shown through Windows PowerShell's access
// to the WinRT notification API (ToastNotificationManager,
// https://learn.microsoft.com/uwp/api/windows.ui.notifications.toastnotificationmanager),
// so no library and no app registration are needed: the toast is sent
// under PowerShell's own app id, which every Windows 10 and 11 has. The
// script stays alive a while after showing the toast to hear its Activated
// event, which is the person's click.
//
// Not tested on a real Windows: under Wine (make wine-test) there is no
// PowerShell, and Show says so.

// powershellApp is the app id Windows PowerShell's toasts go under.
const powershellApp = `{1AC14E77-02E7-4E5D-B744-2EB1AE5198B7}\WindowsPowerShell\v1.0\powershell.exe`

// toastScript shows the toast in TANDEM_TOAST_XML, prints "shown", then
// waits up to ten minutes for a click and prints "activated".
const toastScript = `$ErrorActionPreference = 'Stop'
[Windows.UI.Notifications.ToastNotificationManager, Windows.UI.Notifications, ContentType = WindowsRuntime] | Out-Null
[Windows.Data.Xml.Dom.XmlDocument, Windows.Data.Xml.Dom.XmlDocument, ContentType = WindowsRuntime] | Out-Null
$xml = New-Object Windows.Data.Xml.Dom.XmlDocument
$xml.LoadXml($env:TANDEM_TOAST_XML)
$toast = New-Object Windows.UI.Notifications.ToastNotification $xml
Register-ObjectEvent -InputObject $toast -EventName Activated -SourceIdentifier tandemClick | Out-Null
[Windows.UI.Notifications.ToastNotificationManager]::CreateToastNotifier($env:TANDEM_TOAST_APP).Show($toast)
[Console]::Out.WriteLine('shown')
if (Wait-Event -SourceIdentifier tandemClick -Timeout 600) { [Console]::Out.WriteLine('activated') }
`

// Notifier shows toasts and hears their clicks.
type Notifier struct {
	clicked func(tag string)

	mu     sync.Mutex
	closed bool
	procs  map[*exec.Cmd]bool // the scripts still waiting for a click
}

// New makes a notifier; clicked (nil: none) hears the tag of a toast the
// person clicked.
func New(clicked func(tag string)) *Notifier {
	return &Notifier{clicked: clicked, procs: map[*exec.Cmd]bool{}}
}

// encoded is the script as -EncodedCommand takes it: UTF-16LE, base64.
func encoded(script string) string {
	u := utf16.Encode([]rune(script))
	b := make([]byte, 2*len(u))
	for i, c := range u {
		b[2*i], b[2*i+1] = byte(c), byte(c>>8)
	}
	return base64.StdEncoding.EncodeToString(b)
}

// Show shows the toast and returns once Windows took it.
func (n *Notifier) Show(ctx context.Context, note Note) error {
	n.mu.Lock()
	closed := n.closed
	n.mu.Unlock()
	if closed {
		return errors.New("the notifier is closed")
	}
	cmd := exec.Command("powershell.exe", "-NoProfile", "-NonInteractive", "-ExecutionPolicy", "Bypass",
		"-EncodedCommand", encoded(toastScript))
	cmd.Env = append(os.Environ(), "TANDEM_TOAST_XML="+toastXML(note), "TANDEM_TOAST_APP="+powershellApp)
	cmd.SysProcAttr = &syscall.SysProcAttr{HideWindow: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("no toast without Windows PowerShell: %w", err)
	}
	n.mu.Lock()
	n.procs[cmd] = true
	n.mu.Unlock()
	lines := make(chan string, 1) // one line, never waited on
	go n.follow(cmd, note.Tag, bufio.NewScanner(out), lines)
	select {
	case line, ok := <-lines:
		if ok && line == "shown" {
			return nil
		}
		why := strings.TrimSpace(stderr.String())
		if why == "" {
			why = "Windows PowerShell said nothing (is it the real one?)"
		}
		return fmt.Errorf("the toast was not shown: %s", why)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// follow reads the script's lines: the first is handed to Show, a later
// "activated" is the click. It reaps the script when it ends.
func (n *Notifier) follow(cmd *exec.Cmd, tag string, sc *bufio.Scanner, first chan<- string) {
	told := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case !told:
			told = true
			first <- line
		case line == "activated" && n.clicked != nil:
			n.clicked(tag)
		}
	}
	if !told {
		close(first)
	}
	_ = cmd.Wait()
	n.mu.Lock()
	delete(n.procs, cmd)
	n.mu.Unlock()
}

// Close ends the scripts still waiting for a click.
func (n *Notifier) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.closed = true
	for cmd := range n.procs {
		_ = cmd.Process.Kill()
	}
	return nil
}
