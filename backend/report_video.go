package backend

import (
	"encoding/base64"
	"html/template"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// maxEmbeddedVideo is the largest video the HTML report carries inside
// itself (as a data: URL): the report stays one file that can be sent. A
// larger one (more than about eight minutes at the budget) stays beside
// it in the record folder, which the report then plays from.
const maxEmbeddedVideo = 40 << 20

// reportVideo is the run's video as the report plays it.
type reportVideo struct {
	Src      template.URL // data: URL, or the file's name beside the report
	Start    time.Time
	Embedded bool
}

// reportVideoOf is the video the report of run (in dir) plays: the one
// its first step falls in (a resumed run has several), nil when none.
func reportVideoOf(dir string, run RunDetail) *reportVideo {
	vids := runVideos(dir)
	if len(vids) == 0 {
		return nil
	}
	v := vids[0]
	for _, st := range run.Steps {
		if st.At.IsZero() {
			continue
		}
		for _, c := range vids {
			if !c.Start.After(st.At) {
				v = c
			}
		}
		break
	}
	rv := &reportVideo{Src: template.URL(v.Name), Start: v.Start}
	if v.Bytes <= maxEmbeddedVideo {
		if b, err := os.ReadFile(filepath.Join(dir, v.Name)); err == nil {
			rv.Src, rv.Embedded = template.URL("data:video/mp4;base64,"+base64.StdEncoding.EncodeToString(b)), true
		}
	}
	return rv
}

// T is a moment of the run in seconds on the report's video ("" without
// a video or a time): where a step's or an act's mark goes.
func (d reportData) T(at time.Time) string {
	if d.Video == nil || at.IsZero() {
		return ""
	}
	return strconv.FormatFloat(max(at.Sub(d.Video.Start).Seconds(), 0), 'f', 3, 64)
}

// reportVideoScript seeks the video on a click on a step, an act or a
// mark, places the marks once the video's length is known and marks the
// step the playhead is on.
const reportVideoScript = `(function(){
var v=document.getElementById('run-video');if(!v)return;
var rows=[].slice.call(document.querySelectorAll('section[data-t]')),marks=[].slice.call(document.querySelectorAll('.marks a'));
function seek(e){var t=parseFloat(this.dataset.t);if(!isNaN(t)){v.currentTime=t;follow(t);}if(e)e.preventDefault();}
function follow(t){if(typeof t!=='number')t=v.currentTime;var cur=null;rows.forEach(function(r){if(parseFloat(r.dataset.t)<=t+0.001)cur=r;});
rows.forEach(function(r){r.classList.toggle('current',r===cur);});}
rows.concat(marks).forEach(function(r){r.addEventListener('click',seek);});
v.addEventListener('loadedmetadata',function(){var d=v.duration;if(!isFinite(d)||d<=0)return;
marks.forEach(function(m){m.style.left=Math.min(100,parseFloat(m.dataset.t)/d*100)+'%';});});
v.addEventListener('timeupdate',function(){follow();});v.addEventListener('seeked',function(){follow();});
})();`
