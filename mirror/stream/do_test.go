package stream

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"tandem/engine/action"
	"tandem/internal/scrcpy"
)

// recorder is a Toucher that writes down what it was asked to send.
type recorder struct{ sent []string }

func (r *recorder) Touch(_ context.Context, a byte, x, y int) error {
	r.sent = append(r.sent, fmt.Sprintf("touch %d %d,%d", a, x, y))
	return nil
}
func (r *recorder) Key(_ context.Context, code int) error {
	r.sent = append(r.sent, fmt.Sprintf("key %d", code))
	return nil
}
func (r *recorder) Paste(_ context.Context, text string) error {
	r.sent = append(r.sent, "paste "+text)
	return nil
}

func TestDoSendsTextAndKeysOverTheControlSocket(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		a       action.Action
		handled bool
		sent    []string
	}{
		{action.Action{Type: action.TypeText, Text: "你好"}, true, []string{"paste 你好"}},
		{action.Action{Type: action.TypeText, Text: "搜索", Submit: true}, true, []string{"paste 搜索", "key 66"}},
		{action.Action{Type: action.Key, Key: "back"}, true, []string{"key 4"}},
		{action.Action{Type: action.Key, Key: "no_such_key"}, false, nil},
		{action.Action{Type: action.Tap, X: 1, Y: 2}, false, nil},
	} {
		var r recorder
		handled, err := Do(ctx, &r, c.a)
		if err != nil || handled != c.handled || !reflect.DeepEqual(r.sent, c.sent) {
			t.Errorf("%+v: handled %v err %v sent %q; want %v %q", c.a, handled, err, r.sent, c.handled, c.sent)
		}
	}
}

func TestTouchPhaseNamesScrcpysActions(t *testing.T) {
	var r recorder
	for _, p := range []string{"down", "move", "up", "cancel"} {
		if err := TouchPhase(context.Background(), &r, p, 10, 20); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		fmt.Sprintf("touch %d 10,20", scrcpy.ActionDown), fmt.Sprintf("touch %d 10,20", scrcpy.ActionMove),
		fmt.Sprintf("touch %d 10,20", scrcpy.ActionUp), fmt.Sprintf("touch %d 10,20", scrcpy.ActionCancel),
	}
	if !reflect.DeepEqual(r.sent, want) {
		t.Errorf("sent %q", r.sent)
	}
	if err := TouchPhase(context.Background(), &r, "hover", 1, 1); err == nil {
		t.Error("an unknown phase is refused")
	}
}
