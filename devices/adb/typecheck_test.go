package adb

import (
	"context"
	"errors"
	"testing"
	"time"

	"tandem/engine/action"
	"tandem/engine/device"
	"tandem/vphone"
	"tandem/vphone/screens"
)

// A keyboard that drops characters: the typed text is read back from the
// focused field and typed again by ADB Keyboard, so the field reads as
// the model asked; plain Do leaves it short. Chinese goes through ADB
// Keyboard and is read back too.
func TestTypedTextIsReadBack(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		checked    bool
		want       string
	}{
		{"plain Do loses characters", "Return library books", false, ""},
		{"checked: retyped by ADB Keyboard", "Return library books", true, "Return library books"},
		{"checked: Chinese", "给妈妈买生日礼物", true, "给妈妈买生日礼物"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := startPhone(t)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			r.phone.SetChaos(screens.Chaos{DropChars: 0.5, Seed: 1})
			if err := r.phone.Launch(screens.PkgTodo); err != nil {
				t.Fatal(err)
			}
			add, _ := r.phone.BoundsOfText("Add task")
			r.phone.Tap((add.Min.X+add.Max.X)/2, (add.Min.Y+add.Max.Y)/2) // the form opens with Title focused
			a := action.Action{Type: action.TypeText, Text: tc.text}
			var err error
			if tc.checked {
				err = r.dev.TypeChecked(ctx, a)
			} else {
				err = r.dev.Do(ctx, a)
			}
			if err != nil {
				t.Fatal(err)
			}
			got, ok := r.dev.focusedText(ctx)
			switch {
			case !ok:
				t.Fatal("no focused field to read")
			case tc.want != "" && got != tc.want:
				t.Fatalf("the field reads %q, want %q", got, tc.want)
			case tc.want == "" && got == tc.text:
				t.Fatalf("the chaos dropped nothing (%q): the test proves nothing", got)
			}
		})
	}
}

// Without ADB Keyboard the second try goes through `input text` again;
// when that loses characters too, the step says what the field reads.
func TestTypedTextMismatchIsTold(t *testing.T) {
	r := startPhone(t, vphone.WithoutADBKeyboard())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r.phone.SetChaos(screens.Chaos{DropChars: 0.5, Seed: 2})
	if err := r.phone.Launch(screens.PkgTodo); err != nil {
		t.Fatal(err)
	}
	add, _ := r.phone.BoundsOfText("Add task")
	r.phone.Tap((add.Min.X+add.Max.X)/2, (add.Min.Y+add.Max.Y)/2)
	err := r.dev.TypeChecked(ctx, action.Action{Type: action.TypeText, Text: "Return library books"})
	var mm *device.TypedMismatch
	if !errors.As(err, &mm) || mm.Want != "Return library books" || mm.Got == mm.Want {
		t.Fatalf("err %v, want a TypedMismatch naming what the field reads", err)
	}
}
