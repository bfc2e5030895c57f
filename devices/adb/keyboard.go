package adb

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"tandem/engine/device"
)

// adbIME is ADB Keyboard's input method id (senzhk/ADBKeyBoard).
const adbIME = "com.android.adbkeyboard/.AdbIME"

// installHint tells the user how to make non-ASCII typing possible.
const installHint = "install ADB Keyboard on the phone: download ADBKeyboard.apk from " +
	"https://github.com/senzhk/ADBKeyBoard/releases and run `adb install ADBKeyboard.apk`; " +
	"Tandem switches to it only while typing and restores your keyboard afterwards"

// typeText types text into the focused field. Printable ASCII goes through
// `input text`; anything else needs ADB Keyboard. Lines are typed one by
// one with ENTER between them; submit presses ENTER at the end.
func (d *Device) typeText(ctx context.Context, text string, submit bool) error {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Split(text, "\n")
	var cmds []string
	if plainASCII(text) {
		for i, line := range lines {
			if i > 0 {
				cmds = append(cmds, "input keyevent 66")
			}
			cmds = append(cmds, inputTextCmds(line)...)
		}
	} else {
		if err := d.useKeyboard(ctx); err != nil {
			return err
		}
		for i, line := range lines {
			if i > 0 {
				cmds = append(cmds, "input keyevent 66")
			}
			if line != "" {
				cmds = append(cmds, "am broadcast -a ADB_INPUT_B64 --es msg "+base64.StdEncoding.EncodeToString([]byte(line)))
			}
		}
	}
	if submit {
		cmds = append(cmds, "input keyevent 66")
	}
	if len(cmds) == 0 {
		return nil
	}
	_, err := d.run(ctx, strings.Join(cmds, " && "))
	return err
}

// clearDels is how many characters the fallback clear deletes.
const clearDels = 128

// clearField empties the focused field before text is typed, as
// Open-AutoGLM's client does (phone_agent/adb/input.py: ADB Keyboard's
// ADB_CLEAR_TEXT). Without ADB Keyboard, plain text may still be typed:
// the field is then emptied from its end, up to clearDels characters.
func (d *Device) clearField(ctx context.Context, text string) error {
	err := d.useKeyboard(ctx)
	if err == nil {
		_, err = d.run(ctx, "am broadcast -a ADB_CLEAR_TEXT")
		return err
	}
	if !errors.Is(err, device.ErrNeedsKeyboard) || !plainASCII(text) {
		return err
	}
	_, err = d.run(ctx, "input keyevent 123 "+strings.TrimSpace(strings.Repeat("67 ", clearDels)))
	return err
}

// plainASCII reports whether `input text` can type s (printable ASCII and newlines).
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '\n' && (c < 0x20 || c > 0x7e) {
			return false
		}
	}
	return true
}

// inputTextCmds escapes one line for `input text`: spaces become %s, and the
// argument is single-quoted for the phone's shell. `input` turns every "%s"
// into a space and has no escape for a literal one, so the text is split
// between '%' and 's' and typed in pieces.
func inputTextCmds(line string) []string {
	cmds := strings.Split(line, "%s")
	// Put the '%' back on each piece but the last, and the 's' on the next.
	for i := range cmds {
		if i < len(cmds)-1 {
			cmds[i] += "%"
		}
		if i > 0 {
			cmds[i] = "s" + cmds[i]
		}
	}
	var out []string
	for _, c := range cmds {
		if c == "" {
			continue
		}
		out = append(out, "input text "+shellQuote(strings.ReplaceAll(c, " ", "%s")))
	}
	return out
}

// shellQuote single-quotes s for /system/bin/sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// savedKeyboard is what the state file remembers about one phone.
type savedKeyboard struct {
	Serial string `json:"serial"`
	IME    string `json:"ime"`     // the user's keyboard
	Enable bool   `json:"enabled"` // whether ADB Keyboard was enabled before Tandem
}

// useKeyboard makes ADB Keyboard the current input method, remembering the
// user's first (in memory and in the state file, before switching).
func (d *Device) useKeyboard(ctx context.Context) error {
	d.mu.Lock()
	active := d.kbActive
	d.mu.Unlock()
	if active {
		return nil
	}
	res, err := d.run(ctx, "settings get secure default_input_method; echo "+markEnd+"; ime list -a -s; echo "+markEnd+"; ime list -s")
	if err != nil {
		return err
	}
	parts := strings.SplitN(string(res.Stdout), markEnd, 3)
	if len(parts) != 3 {
		return fmt.Errorf("adb: unexpected answer about input methods: %q", clip(string(res.Stdout), 200))
	}
	current := strings.TrimSpace(parts[0])
	if !hasLine(parts[1], adbIME) {
		return fmt.Errorf("%w: ADB Keyboard is not installed on %s, so only plain ASCII can be typed; %s",
			device.ErrNeedsKeyboard, d.serial, installHint)
	}
	if current != adbIME {
		saved := savedKeyboard{Serial: d.serial, IME: current, Enable: hasLine(parts[2], adbIME)}
		if err := d.saveKeyboard(saved); err != nil {
			return err
		}
		// From here on Close must put the user's keyboard back, even if
		// the switch below fails half-way.
		d.mu.Lock()
		d.origIME = current
		d.mu.Unlock()
		if _, err := d.run(ctx, "ime enable "+adbIME+" && ime set "+adbIME); err != nil {
			return err
		}
		if err := d.waitIME(ctx, adbIME); err != nil {
			return err
		}
	}
	d.mu.Lock()
	d.kbActive = true
	d.mu.Unlock()
	return nil
}

func hasLine(s, want string) bool {
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) == want {
			return true
		}
	}
	return false
}

// waitIME polls until the phone reports want as its input method.
func (d *Device) waitIME(ctx context.Context, want string) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	for {
		res, err := d.run(ctx, "settings get secure default_input_method")
		if err == nil && strings.TrimSpace(string(res.Stdout)) == want {
			return nil
		}
		if ctx.Err() != nil {
			if err != nil {
				return err
			}
			return fmt.Errorf("adb: the phone did not switch its keyboard to %s", want)
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// RestoreKeyboard gives the user's keyboard back if Tandem switched it.
// The engine calls it when a person takes over; Close calls it too.
func (d *Device) RestoreKeyboard(ctx context.Context) error {
	d.mu.Lock()
	orig := d.origIME
	if orig == "" {
		d.kbActive = false // ours was already the user's keyboard, or never used
	}
	d.mu.Unlock()
	if orig == "" {
		return nil
	}
	saved, err := d.loadKeyboard()
	if err != nil || saved == nil {
		saved = &savedKeyboard{Serial: d.serial, IME: orig, Enable: true}
	}
	if err := d.restore(ctx, *saved); err != nil {
		return err
	}
	d.mu.Lock()
	d.kbActive, d.origIME = false, ""
	d.mu.Unlock()
	return nil
}

func (d *Device) restore(ctx context.Context, s savedKeyboard) error {
	var cmd string
	switch {
	case s.IME == "" || s.IME == "null":
		cmd = "ime disable " + adbIME
	case !s.Enable:
		cmd = "ime set " + shellQuote(s.IME) + " && ime disable " + adbIME
	default:
		cmd = "ime set " + shellQuote(s.IME)
	}
	if _, err := d.srv.Shell(ctx, d.serial, d.v2, cmd); err != nil {
		return fmt.Errorf("restoring the keyboard of %s to %s: %w", d.serial, s.IME, err)
	}
	return d.forgetKeyboard()
}

// recoverKeyboard runs at Open: a state file for this phone means an earlier
// Tandem switched the keyboard and never switched it back (a crash). If ADB
// Keyboard is still the current one, the user's keyboard is put back.
func (d *Device) recoverKeyboard(ctx context.Context) error {
	saved, err := d.loadKeyboard()
	if err != nil || saved == nil {
		return err
	}
	res, err := d.run(ctx, "settings get secure default_input_method")
	if err != nil {
		return err
	}
	if strings.TrimSpace(string(res.Stdout)) != adbIME {
		return d.forgetKeyboard() // the user already changed it
	}
	if err := d.restore(ctx, *saved); err != nil {
		return err
	}
	d.recovered = saved.IME
	return nil
}

// keyboardFile is the state file for this phone; "" without a state dir.
func (d *Device) keyboardFile() string {
	if d.stateDir == "" {
		return ""
	}
	var b strings.Builder
	for _, r := range d.serial {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-') {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, "_%x", r)
		}
	}
	return filepath.Join(d.stateDir, "keyboard-"+b.String()+".json")
}

func (d *Device) saveKeyboard(s savedKeyboard) error {
	p := d.keyboardFile()
	if p == "" {
		return nil
	}
	if err := os.MkdirAll(d.stateDir, 0o700); err != nil {
		return fmt.Errorf("adb: state dir: %w", err)
	}
	b, _ := json.Marshal(s)
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("adb: saving the keyboard: %w", err)
	}
	return os.Rename(tmp, p)
}

func (d *Device) loadKeyboard() (*savedKeyboard, error) {
	p := d.keyboardFile()
	if p == "" {
		return nil, nil
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("adb: reading %s: %w", p, err)
	}
	var s savedKeyboard
	if err := json.Unmarshal(b, &s); err != nil || s.Serial != d.serial {
		// A damaged or foreign file cannot be acted on; drop it.
		return nil, d.forgetKeyboard()
	}
	return &s, nil
}

func (d *Device) forgetKeyboard() error {
	p := d.keyboardFile()
	if p == "" {
		return nil
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("adb: %w", err)
	}
	return nil
}
