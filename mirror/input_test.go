package mirror

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestServeInputWantsTheTokenAndADevice(t *testing.T) {
	_, s := startServer(t)
	var got []string
	s.ServeInput(func(device string, body []byte) (int, string) {
		got = append(got, device+" "+string(body))
		return http.StatusOK, "done"
	})
	post := func(url, body string) (int, string) {
		t.Helper()
		resp, err := http.Post(url, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	url := s.InputURL("127.0.0.1:5555")
	if code, reply := post(url, `{"action":{"type":"tap"}}`); code != http.StatusOK || reply != "done" {
		t.Fatalf("with the token: %d %q", code, reply)
	}
	noToken := url[:strings.Index(url, "?")]
	if code, _ := post(noToken, `{}`); code != http.StatusUnauthorized {
		t.Errorf("without the token: %d", code)
	}
	if code, _ := post(strings.Replace(url, "token=", "token=x", 1), `{}`); code != http.StatusUnauthorized {
		t.Errorf("with a wrong token: %d", code)
	}
	if code, _ := post(strings.Replace(url, "/input/", "/input/zz", 1), `{}`); code != http.StatusNotFound {
		t.Errorf("a device id that is not one: %d", code)
	}
	if code, _ := post(url, strings.Repeat("x", maxInputBody+1)); code != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over the bound: %d", code)
	}
	if len(got) != 1 || got[0] != `127.0.0.1:5555 {"action":{"type":"tap"}}` {
		t.Errorf("the handler got %q", got)
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d", resp.StatusCode)
	}
}
