// Package fastjpeg encodes RGBA pictures as baseline JPEG: through
// libjpeg-turbo (SIMD colour conversion, DCT and Huffman coding) where the
// build has cgo on Linux, else through image/jpeg. It is apart because it
// is the one place Tandem calls C for a picture: the model's screenshot of
// every step, the record's frame and a viewer's still are encoded here, and
// image/jpeg took a third of a headless step's CPU (issue 48).
//
// Both encoders write a baseline JPEG with 4:2:0 chroma, the standard
// quantization tables scaled by the quality (the IJG formula) and the
// standard Huffman tables, so the headers of two pictures at one quality
// are the same whoever encoded them and bands of one picture can be joined
// by restart markers (engine/observe/jpegbands.go). The pixels decode
// within a level or two of each other; the bytes differ.
package fastjpeg

import (
	"bytes"
	"image"
	"image/jpeg"
)

// Encode encodes img at quality q (1-100) as a baseline JPEG, alpha
// ignored.
func Encode(img *image.RGBA, q int) ([]byte, error) {
	q = min(max(q, 1), 100)
	if b := img.Bounds(); b.Empty() {
		return Go(img, q)
	}
	return encode(img, q)
}

// Go is image/jpeg's encoding of img at quality q: the fallback, and the
// reference the tests compare with.
func Go(img image.Image, q int) ([]byte, error) {
	var buf bytes.Buffer
	err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q})
	return buf.Bytes(), err
}
