package mirror

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

func TestServeRecordsOnlyFramesWithToken(t *testing.T) {
	_, s := startServer(t)
	dir := t.TempDir()
	run := filepath.Join(dir, "20261121-101010-abcd1234")
	if err := os.MkdirAll(filepath.Join(run, "frames"), 0o700); err != nil {
		t.Fatal(err)
	}
	jpg := []byte("\xff\xd8\xff\xe0 not really a jpeg")
	if err := os.WriteFile(filepath.Join(run, "frames", "00003.jpg"), jpg, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, "record.jsonl"), []byte(`{"secret":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s.ServeRecords(dir)
	base, tok := s.FramesURL(), "?token="+s.Token()
	cases := []struct {
		name, url string
		status    int
	}{
		{"frame", base + "20261121-101010-abcd1234/frames/00003.jpg" + tok, 200},
		{"no token", base + "20261121-101010-abcd1234/frames/00003.jpg", 401},
		{"wrong token", base + "20261121-101010-abcd1234/frames/00003.jpg?token=x", 401},
		{"missing frame", base + "20261121-101010-abcd1234/frames/00004.jpg" + tok, 404},
		{"the record itself", base + "20261121-101010-abcd1234/record.jsonl" + tok, 404},
		{"traversal", base + "..%2f..%2fetc/frames/00003.jpg" + tok, 404},
		{"dot run", base + "../frames/00003.jpg" + tok, 404},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, err := http.Get(c.url)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d (%s)", resp.StatusCode, c.status, body)
			}
			if c.status == 200 && (string(body) != string(jpg) || resp.Header.Get("Content-Type") != "image/jpeg") {
				t.Fatalf("served %q as %s", body, resp.Header.Get("Content-Type"))
			}
		})
	}
}
