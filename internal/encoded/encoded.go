// Package encoded carries a decoded picture together with the bytes it came
// in: a phone sends its screen as PNG over Wi-Fi, and a screenshot that goes
// to the model at that size, in that format, can go out as those bytes with
// no encode on the step's critical path (issue 31). A leaf shared by the
// drivers that make such pictures and everything that reads them (the
// engine, the planner's encoder, the mirror, the MCP server), so the one
// type has one home.
package encoded

import "image"

// Image is a decoded picture and the bytes it was decoded from. Code that
// reads pixels by their concrete type takes Pixels(img) first: Image's own
// concrete type is none of the image package's.
type Image struct {
	image.Image
	Data []byte // the encoded picture, exactly as it came
	MIME string // its type: "image/png"
}

// Pixels returns the decoded picture of img: img itself unless it is an
// *Image.
func Pixels(img image.Image) image.Image {
	if s, ok := img.(*Image); ok {
		return s.Image
	}
	return img
}

// Bytes returns the bytes img came in and their MIME type, when it is an
// *Image that has them.
func Bytes(img image.Image) (data []byte, mime string, ok bool) {
	s, ok := img.(*Image)
	if !ok || len(s.Data) == 0 || s.MIME == "" {
		return nil, "", false
	}
	return s.Data, s.MIME, true
}
