package model

import "testing"

// stubBudget is a dialect budget as Qwen2.5-VL's cookbook sets it.
type stubBudget struct{ Dialect }

func (stubBudget) ImageBudget() ImageBudget {
	return ImageBudget{MinPixels: 4 * 28 * 28, MaxPixels: 16384 * 28 * 28, Factor: 28, Format: "png", KeepLast: 1}
}

// DashScope keeps 1280 visual tokens of an image unless asked otherwise:
// a larger screenshot would be shrunk there and the model's coordinates
// would belong to another image. A local server gets the cookbook's size.
func TestBudgetHeldToWhatDashScopeKeeps(t *testing.T) {
	for _, c := range []struct {
		base string
		want int
	}{
		{"https://dashscope.aliyuncs.com/compatible-mode/v1", 1280 * 28 * 28},
		{"https://dashscope-intl.aliyuncs.com/compatible-mode/v1", 1280 * 28 * 28},
		{"http://127.0.0.1:8000/v1", 16384 * 28 * 28},
	} {
		cl, err := NewClient(ClientConfig{BaseURL: c.base, APIKey: "sk-x", Model: "qwen2.5-vl-72b-instruct"})
		if err != nil {
			t.Fatal(err)
		}
		if got := budgetOf(stubBudget{}, cl).MaxPixels; got != c.want {
			t.Errorf("%s: max pixels %d, want %d", c.base, got, c.want)
		}
	}
}
