package main

import (
	"bytes"
	"errors"
	"image"
	"testing"
)

func TestPEMachine(t *testing.T) {
	good := make([]byte, 0x90)
	copy(good, "MZ")
	good[60] = 0x80
	copy(good[0x80:], "PE\x00\x00\x64\x86")
	noPE := bytes.Clone(good)
	copy(noPE[0x80:], "XX")
	noMZ := bytes.Clone(good)
	noMZ[0] = 'X'
	farOffset := bytes.Clone(good)
	farOffset[61] = 0x7f
	cases := []struct {
		name string
		in   []byte
		want uint16
		err  error
	}{
		{"amd64", good, 0x8664, nil},
		{"no signature", noPE, 0, ErrNotPE},
		{"no MZ", noMZ, 0, ErrNotPE},
		{"offset past the end", farOffset, 0, ErrNotPE},
		{"empty", nil, 0, ErrNotPE},
	}
	for _, c := range cases {
		got, err := PEMachine(bytes.NewReader(c.in))
		if !errors.Is(err, c.err) || got != c.want {
			t.Errorf("%s: got %#x, %v; want %#x, %v", c.name, got, err, c.want, c.err)
		}
	}
}

func TestLooksLikeTandemRejectsBlank(t *testing.T) {
	if LooksLikeTandem(image.NewRGBA(image.Rect(0, 0, 200, 100))) {
		t.Fatal("a black capture passed")
	}
}
