package mirror

import (
	"io"
	"net/http"
	"strings"
)

// The person's input from a window that has no bindings of its own to the
// app (the mirror popped out into its own window, another process) comes
// back on the same loopback server and token as the frames it shows.

// maxInputBody bounds one input's JSON (a text to type is the largest).
const maxInputBody = 64 << 10

// InputFunc handles one input for device; it returns the HTTP status and
// a short body (a code the pop-out words, or the error's words).
type InputFunc func(device string, body []byte) (status int, reply string)

// ServeInput serves POST /input/<device>?token=… with f.
func (s *Server) ServeInput(f InputFunc) {
	s.mux.HandleFunc("POST /input/", func(w http.ResponseWriter, r *http.Request) {
		if !s.authorized(r) {
			http.Error(w, "missing or wrong token", http.StatusUnauthorized)
			return
		}
		id, err := decodeID(strings.TrimPrefix(r.URL.Path, "/input/"))
		if err != nil || id == "" {
			http.Error(w, "no such device", http.StatusNotFound)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxInputBody))
		if err != nil {
			http.Error(w, "input too large", http.StatusRequestEntityTooLarge)
			return
		}
		status, reply := f(id, body)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, reply)
	})
}

// InputURL is where a device's input is posted, token included.
func (s *Server) InputURL(device string) string {
	return "http://" + s.ln.Addr().String() + "/input/" + encodeID(device) + "?token=" + s.token
}
