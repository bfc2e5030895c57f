package backend

import (
	"bytes"
	"image"

	"tandem/mirror/stream"
)

// spsSize is the picture size (cropped) of the first sequence parameter
// set in an H.264 Annex B buffer (the mirror stream's own reader).
func spsSize(data []byte) (image.Point, bool) {
	for _, nal := range bytes.Split(data, []byte{0, 0, 1}) {
		nal = bytes.TrimRight(nal, "\x00") // a four-byte start code's leading zero
		if len(nal) > 4 && nal[0]&0x1f == 7 {
			w, h, err := stream.SPSSize(nal)
			return image.Pt(w, h), err == nil
		}
	}
	return image.Point{}, false
}
