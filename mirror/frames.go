package mirror

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Recorded frames (the JPEGs a run's record keeps) are served from the same
// loopback server and token as the live stream, so the timeline can show a
// thumbnail of the screen each step was chosen on without the Wails bridge
// carrying images.

var (
	runIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
	framePattern = regexp.MustCompile(`^frames/[0-9]{1,9}\.jpg$`)
	// a run's video and its clips (backend/video.go), which History plays
	videoPattern = regexp.MustCompile(`^(video-[0-9]{1,16}|clip-steps-[0-9]{1,9}-[0-9]{1,9})\.mp4$`)
)

// ServeRecords serves GET /frames/<run>/frames/<n>.jpg?token=… from
// dir/<run>/frames/<n>.jpg, and the run's videos (/frames/<run>/video-<ms>.mp4,
// with ranges, so a player seeks); nothing else under dir is reachable.
func (s *Server) ServeRecords(dir string) {
	s.mux.HandleFunc("GET /frames/", func(w http.ResponseWriter, r *http.Request) {
		if !s.authorized(r) {
			http.Error(w, "missing or wrong token", http.StatusUnauthorized)
			return
		}
		run, frame, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/frames/"), "/")
		isVideo := videoPattern.MatchString(frame)
		if !ok || !runIDPattern.MatchString(run) || !framePattern.MatchString(frame) && !isVideo {
			http.Error(w, "no such frame", http.StatusNotFound)
			return
		}
		f, err := os.Open(filepath.Join(dir, run, filepath.FromSlash(frame)))
		if err != nil {
			http.Error(w, "no such frame", http.StatusNotFound)
			return
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil || !st.Mode().IsRegular() {
			http.Error(w, "no such frame", http.StatusNotFound)
			return
		}
		if isVideo { // a live run's video grows: not cached
			w.Header().Set("Content-Type", "video/mp4")
			w.Header().Set("Cache-Control", "no-store")
		} else {
			w.Header().Set("Content-Type", "image/jpeg")
			w.Header().Set("Cache-Control", "private, max-age=86400, immutable")
		}
		// The webview's page comes from another origin (wails:// or the dev server).
		w.Header().Set("Access-Control-Allow-Origin", "*")
		http.ServeContent(w, r, "", st.ModTime(), f)
	})
}

// FramesURL is the base of recorded-frame URLs: append "<run>/<frame>?token=<Token()>".
func (s *Server) FramesURL() string { return "http://" + s.ln.Addr().String() + "/frames/" }
