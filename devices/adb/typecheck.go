package adb

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"io"
	"strings"

	"tandem/engine/action"
	"tandem/engine/device"
)

// TypeChecked implements device.TypeChecker: it types a as Do does, reads
// the focused field from the UI tree, and when the field does not end with
// the text (a keyboard that dropped or changed characters, an IME that
// autocorrected, a broadcast that never arrived) empties it and types it
// once more by the other input path: ADB Keyboard for text `input text`
// typed, `input text` for plain text ADB Keyboard typed, ADB Keyboard's
// plain ADB_INPUT_TEXT for other text it first sent as base64. A field it
// cannot read (no UI tree, nothing focused, a password) is not judged.
func (d *Device) TypeChecked(ctx context.Context, a action.Action) error {
	before, _ := d.focusedText(ctx)
	if err := d.Do(ctx, a); err != nil {
		return err
	}
	if a.Submit || strings.Contains(a.Text, "\n") {
		return nil // Enter moved on: the field may rightly be empty or gone
	}
	got, ok := d.focusedText(ctx)
	if !ok || strings.HasSuffix(got, a.Text) {
		return nil
	}
	want := a.Text
	if !a.Clear && before != "" && strings.HasPrefix(got, before) && got != before+a.Text {
		want = before + a.Text // the field held text of its own: keep it
	}
	if err := d.retype(ctx, want); err != nil {
		return err
	}
	got, ok = d.focusedText(ctx)
	if !ok || strings.HasSuffix(got, a.Text) {
		return nil
	}
	return &device.TypedMismatch{Want: a.Text, Got: got}
}

// retype empties the focused field and types text by the path the first
// try did not take.
func (d *Device) retype(ctx context.Context, text string) error {
	kbErr := d.useKeyboard(ctx)
	switch {
	case plainASCII(text) && kbErr == nil:
		// `input text` typed it first: ADB Keyboard now.
		_, err := d.run(ctx, "am broadcast -a ADB_CLEAR_TEXT && am broadcast -a ADB_INPUT_B64 --es msg "+base64.StdEncoding.EncodeToString([]byte(text)))
		return err
	case plainASCII(text):
		if err := d.clearField(ctx, text); err != nil {
			return err
		}
		_, err := d.run(ctx, strings.Join(inputTextCmds(text), " && "))
		return err
	case kbErr != nil:
		return kbErr
	}
	_, err := d.run(ctx, "am broadcast -a ADB_CLEAR_TEXT && am broadcast -a ADB_INPUT_TEXT --es msg "+shellQuote(text))
	return err
}

// focusedText is the text of the focused editable field in the UI tree;
// false when there is none to read.
func (d *Device) focusedText(ctx context.Context) (string, bool) {
	tree, err := d.UITree(ctx)
	if err != nil {
		return "", false
	}
	return focusedField(tree)
}

// focusedField reads a uiautomator dump for its focused EditText.
func focusedField(tree []byte) (string, bool) {
	dec := xml.NewDecoder(bytes.NewReader(tree))
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) || err != nil {
			return "", false
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "node" {
			continue
		}
		var text, class string
		var focused, password bool
		for _, at := range se.Attr {
			switch at.Name.Local {
			case "text":
				text = at.Value
			case "class":
				class = at.Value
			case "focused":
				focused = at.Value == "true"
			case "password":
				password = at.Value == "true"
			}
		}
		if focused && strings.Contains(class, "EditText") {
			return text, !password
		}
	}
}
