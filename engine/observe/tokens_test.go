package observe

import "testing"

func TestImageTokens(t *testing.T) {
	// perf-anchors row 37: 1080x2400 -> 768x1707 -> 8 tiles -> 1445; 1080x1920 -> 1105.
	for _, tt := range []struct{ w, h, want int }{{1080, 2400, 1445}, {1080, 1920, 1105}, {512, 512, 255}, {0, 10, 0}} {
		if got := ImageTokens(tt.w, tt.h); got != tt.want {
			t.Errorf("ImageTokens(%d,%d) = %d want %d", tt.w, tt.h, got, tt.want)
		}
	}
}

func TestTokensCount(t *testing.T) {
	tk, err := NewTokens()
	if err != nil {
		t.Fatal(err)
	}
	if n := tk.Count("hello world"); n != 2 {
		t.Errorf("hello world = %d tokens", n)
	}
	if n := tk.Count("打开微信"); n < 2 || n > 8 {
		t.Errorf("CJK count %d", n)
	}
	if tk.Count("") != 0 || tk.Count("\xff\xfe") == 0 {
		t.Error("edge counts wrong")
	}
}
