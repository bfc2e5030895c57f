package backend

import "testing"

func TestLocaleFromEnv(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, "en"},
		{map[string]string{"LANG": "zh_CN.UTF-8"}, "zh-CN"},
		{map[string]string{"LANG": "zh_TW.UTF-8"}, "zh-CN"},
		{map[string]string{"LANG": "de_DE.UTF-8"}, "en"},
		{map[string]string{"LANG": "zh_CN.UTF-8", "LC_ALL": "en_US.UTF-8"}, "en"},
		{map[string]string{"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, "zh-CN"},
		{map[string]string{"LANGUAGE": "zh_CN:en"}, "zh-CN"},
	}
	for _, tt := range tests {
		if got := LocaleFromEnv(func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("%v: got %s want %s", tt.env, got, tt.want)
		}
	}
}
