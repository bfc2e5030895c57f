//go:build !(cgo && linux)

package fastjpeg

import "image"

// Turbo says whether Encode goes through libjpeg-turbo here: never in a
// build without cgo on Linux.
func Turbo() bool { return false }

func encode(img *image.RGBA, q int) ([]byte, error) { return Go(img, q) }
