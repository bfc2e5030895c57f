//go:build cgo && linux

package fastjpeg

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <setjmp.h>
#include <jpeglib.h>

// libjpeg is opened at run time, not linked: the binary needs no libjpeg
// of its own (the one WebKitGTK loads is found), and a missing or
// different one (another ABI refuses our structures in jpeg_CreateCompress)
// means image/jpeg, not a failure to start.
static struct {
	struct jpeg_error_mgr *(*std_error)(struct jpeg_error_mgr *);
	void (*create)(j_compress_ptr, int, size_t);
	void (*mem_dest)(j_compress_ptr, unsigned char **, unsigned long *);
	void (*set_defaults)(j_compress_ptr);
	void (*set_quality)(j_compress_ptr, int, boolean);
	void (*start)(j_compress_ptr, boolean);
	JDIMENSION (*write_scanlines)(j_compress_ptr, JSAMPARRAY, JDIMENSION);
	void (*finish)(j_compress_ptr);
	void (*destroy)(j_compress_ptr);
} tj;

// tj_open finds libjpeg and its functions; it returns 0 when all are there.
static int tj_open(void) {
	void *h = dlopen("libjpeg.so.62", RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) return -1;
	tj.std_error = dlsym(h, "jpeg_std_error");
	tj.create = dlsym(h, "jpeg_CreateCompress");
	tj.mem_dest = dlsym(h, "jpeg_mem_dest");
	tj.set_defaults = dlsym(h, "jpeg_set_defaults");
	tj.set_quality = dlsym(h, "jpeg_set_quality");
	tj.start = dlsym(h, "jpeg_start_compress");
	tj.write_scanlines = dlsym(h, "jpeg_write_scanlines");
	tj.finish = dlsym(h, "jpeg_finish_compress");
	tj.destroy = dlsym(h, "jpeg_destroy_compress");
	if (!tj.std_error || !tj.create || !tj.mem_dest || !tj.set_defaults || !tj.set_quality ||
			!tj.start || !tj.write_scanlines || !tj.finish || !tj.destroy) return -1;
	return 0;
}

// libjpeg's default error handler ends the process: this one jumps back.
struct tj_err {
	struct jpeg_error_mgr pub;
	jmp_buf jb;
};

static void tj_on_error(j_common_ptr c) {
	struct tj_err *e = (struct tj_err *)c->err;
	longjmp(e->jb, 1);
}

static void tj_quiet(j_common_ptr c) { (void)c; }

// tj_encode encodes h rows of w RGBA pixels, stride bytes apart, at quality
// q into *out (malloc'ed; the caller frees it). It returns 0, or -1 on an
// error (then *out is NULL).
static int tj_encode(unsigned char *pix, int w, int h, int stride, int q,
		unsigned char **out, unsigned long *outlen) {
	struct jpeg_compress_struct c;
	struct tj_err e;
	JSAMPROW *volatile rows = NULL;
	*out = NULL;
	*outlen = 0;
	c.err = tj.std_error(&e.pub);
	e.pub.error_exit = tj_on_error;
	e.pub.output_message = tj_quiet;
	if (setjmp(e.jb)) {
		tj.destroy(&c);
		free(rows);
		free(*out);
		*out = NULL;
		return -1;
	}
	tj.create(&c, JPEG_LIB_VERSION, sizeof(c));
	tj.mem_dest(&c, out, outlen);
	c.image_width = w;
	c.image_height = h;
	c.input_components = 4;
	c.in_color_space = JCS_EXT_RGBA;
	tj.set_defaults(&c);
	tj.set_quality(&c, q, TRUE);
	rows = malloc(sizeof(JSAMPROW) * h);
	if (rows == NULL) {
		tj.destroy(&c);
		return -1;
	}
	for (int y = 0; y < h; y++) rows[y] = pix + (size_t)y * stride;
	tj.start(&c, TRUE);
	while (c.next_scanline < c.image_height) {
		tj.write_scanlines(&c, rows + c.next_scanline, c.image_height - c.next_scanline);
	}
	tj.finish(&c);
	tj.destroy(&c);
	free(rows);
	return 0;
}
*/
import "C"

import (
	"errors"
	"image"
	"sync"
	"unsafe"
)

// turbo opens libjpeg once, on the first picture.
var turbo = sync.OnceValue(func() bool { return C.tj_open() == 0 })

var errTurbo = errors.New("fastjpeg: libjpeg failed")

// Turbo says whether Encode goes through libjpeg-turbo here: the build has
// cgo on Linux and the system's libjpeg.so.62 was found.
func Turbo() bool { return turbo() }

func encode(img *image.RGBA, q int) ([]byte, error) {
	if !turbo() {
		return Go(img, q)
	}
	b := img.Bounds()
	pix := img.Pix[img.PixOffset(b.Min.X, b.Min.Y):]
	var out *C.uchar
	var n C.ulong
	if C.tj_encode((*C.uchar)(unsafe.Pointer(&pix[0])), C.int(b.Dx()), C.int(b.Dy()), C.int(img.Stride), C.int(q), &out, &n) != 0 {
		// Another ABI, or a picture libjpeg refused: image/jpeg's bytes.
		if data, err := Go(img, q); err == nil {
			return data, nil
		}
		return nil, errTurbo
	}
	defer C.free(unsafe.Pointer(out))
	return C.GoBytes(unsafe.Pointer(out), C.int(n)), nil
}
