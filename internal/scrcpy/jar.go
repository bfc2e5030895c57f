package scrcpy

import (
	"archive/zip"
	"bytes"
	"crypto/sha1" //nolint:gosec // the dex format's own signature, not security
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"io"
	"path"
	"sort"
)

// The jar's version, read from the jar itself: scrcpy-server is a zip
// (an APK from gradle, a plain jar from server/build_without_gradle.sh)
// holding classes.dex, in which the class com.genymobile.scrcpy.BuildConfig
// keeps `static final String VERSION_NAME` as a static value (both builds
// generate BuildConfig and neither minifies it: v3.3.4 server/build.gradle
// `minifyEnabled false`, build_without_gradle.sh writes BuildConfig.java).
// Reading it needs no phone, so Settings can check a file when it is
// chosen; the client asks the phone (a refusal) only when a jar hides it.
//
// The dex layout is Android's (source.android.com/docs/core/runtime/dex-format):
// header offsets at 0x38.., string_id, type_id, field_id and class_def
// items, class_data with uleb128 fields, encoded_array static values.

// ErrNoVersion is a jar whose version could not be read from it.
var ErrNoVersion = errors.New("no scrcpy-server version found in the file")

const (
	buildConfigClass = "Lcom/genymobile/scrcpy/BuildConfig;"
	versionField     = "VERSION_NAME"
	maxDex           = 64 << 20
)

// JarVersion reads the server's VERSION_NAME from a scrcpy-server file.
func JarVersion(jar []byte) (string, error) {
	zr, err := zip.NewReader(bytes.NewReader(jar), int64(len(jar)))
	if err != nil {
		return "", fmt.Errorf("%w (not a jar: %v)", ErrNoVersion, err)
	}
	for _, f := range zr.File {
		if ok, _ := path.Match("classes*.dex", f.Name); !ok || f.UncompressedSize64 > maxDex {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(rc, maxDex))
		rc.Close()
		if err != nil {
			continue
		}
		if v, err := dexVersion(b); err == nil {
			return v, nil
		}
	}
	return "", ErrNoVersion
}

// dex reads a dex file with bounds checks.
type dex struct{ b []byte }

var errDex = errors.New("malformed dex")

func (d dex) u32(off uint32) (uint32, error) {
	if uint64(off)+4 > uint64(len(d.b)) {
		return 0, errDex
	}
	return binary.LittleEndian.Uint32(d.b[off:]), nil
}

func (d dex) u16(off uint32) (uint16, error) {
	if uint64(off)+2 > uint64(len(d.b)) {
		return 0, errDex
	}
	return binary.LittleEndian.Uint16(d.b[off:]), nil
}

// uleb reads an unsigned LEB128 at *off and moves past it.
func (d dex) uleb(off *uint32) (uint32, error) {
	var v uint32
	for i := uint(0); i < 5; i++ {
		if uint64(*off) >= uint64(len(d.b)) {
			return 0, errDex
		}
		c := d.b[*off]
		*off++
		v |= uint32(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return v, nil
		}
	}
	return 0, errDex
}

// str is string number i (MUTF-8; the names and versions read are ASCII).
func (d dex) str(i uint32) (string, error) {
	ids, err := d.u32(0x3c)
	if err != nil {
		return "", err
	}
	if n, _ := d.u32(0x38); i >= n {
		return "", errDex
	}
	off, err := d.u32(ids + 4*i)
	if err != nil {
		return "", err
	}
	if _, err := d.uleb(&off); err != nil {
		return "", err
	}
	end := bytes.IndexByte(d.b[min(int(off), len(d.b)):], 0)
	if end < 0 {
		return "", errDex
	}
	return string(d.b[off : int(off)+end]), nil
}

// typeName is the descriptor of type number i.
func (d dex) typeName(i uint32) (string, error) {
	ids, _ := d.u32(0x44)
	if n, _ := d.u32(0x40); i >= n {
		return "", errDex
	}
	s, err := d.u32(ids + 4*i)
	if err != nil {
		return "", err
	}
	return d.str(s)
}

// dexVersion finds BuildConfig's class_def and reads VERSION_NAME's
// static value.
func dexVersion(b []byte) (string, error) {
	d := dex{b}
	if len(b) < 0x70 || !bytes.HasPrefix(b, []byte("dex\n")) {
		return "", errDex
	}
	n, _ := d.u32(0x60)
	defs, _ := d.u32(0x64)
	for i := uint32(0); i < n && i < 1<<20; i++ {
		def := defs + 32*i
		cls, err := d.u32(def)
		if err != nil {
			return "", err
		}
		if name, err := d.typeName(cls); err != nil || name != buildConfigClass {
			continue
		}
		data, _ := d.u32(def + 24)
		values, _ := d.u32(def + 28)
		return d.staticString(data, values, versionField)
	}
	return "", errDex
}

// staticString walks the class's static fields and their values in step
// and returns the string value of the field named name.
func (d dex) staticString(data, values uint32, name string) (string, error) {
	if data == 0 || values == 0 {
		return "", errDex
	}
	nstatic, err := d.uleb(&data)
	if err != nil {
		return "", err
	}
	for range 3 { // instance fields, direct and virtual methods
		if _, err := d.uleb(&data); err != nil {
			return "", err
		}
	}
	nvalues, err := d.uleb(&values)
	if err != nil {
		return "", err
	}
	fieldIDs, _ := d.u32(0x54)
	field := uint32(0)
	for i := uint32(0); i < nstatic && i < nvalues; i++ {
		diff, err := d.uleb(&data)
		if err != nil {
			return "", err
		}
		if _, err := d.uleb(&data); err != nil { // access flags
			return "", err
		}
		field += diff
		nameIdx, err := d.u32(fieldIDs + 8*field + 4)
		if err != nil {
			return "", err
		}
		fname, err := d.str(nameIdx)
		if err != nil {
			return "", err
		}
		typ, arg, v, err := d.value(&values)
		if err != nil {
			return "", err
		}
		if fname == name {
			if typ != valueString || arg > 3 {
				return "", errDex
			}
			return d.str(uint32(v))
		}
	}
	return "", errDex
}

const (
	valueString  = 0x17
	valueArray   = 0x1c
	valueAnnot   = 0x1d
	valueNull    = 0x1e
	valueBoolean = 0x1f
)

// value reads one encoded_value: its type, its size argument and, for
// the fixed-size kinds, its little-endian bits.
func (d dex) value(off *uint32) (typ, arg byte, v uint64, err error) {
	if uint64(*off) >= uint64(len(d.b)) {
		return 0, 0, 0, errDex
	}
	h := d.b[*off]
	*off++
	typ, arg = h&0x1f, h>>5
	switch typ {
	case valueNull, valueBoolean:
		return typ, arg, uint64(arg), nil
	case valueArray, valueAnnot: // never in a BuildConfig
		return typ, arg, 0, errDex
	}
	size := uint32(arg) + 1
	if uint64(*off)+uint64(size) > uint64(len(d.b)) {
		return 0, 0, 0, errDex
	}
	for i := int(size) - 1; i >= 0; i-- {
		v = v<<8 | uint64(d.b[*off+uint32(i)])
	}
	*off += size
	return typ, arg, v, nil
}

// MakeJar is a minimal scrcpy-server jar of the given version: a
// classes.dex holding only BuildConfig (BUILD_TYPE, DEBUG, VERSION_CODE,
// VERSION_NAME, as gradle generates it) and no code. The virtual phone
// plays the server it names; tests and benchmarks push it.
func MakeJar(version string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("classes.dex")
	_, _ = w.Write(makeDex(version))
	_ = zw.Close()
	return buf.Bytes()
}

func makeDex(version string) []byte {
	strs := []string{buildConfigClass, "BUILD_TYPE", "DEBUG", "I", "Ljava/lang/Object;", "Ljava/lang/String;", versionField, "VERSION_CODE", "Z", "release", version}
	sort.Strings(strs)
	idx := map[string]uint32{}
	for i, s := range strs {
		idx[s] = uint32(i)
	}
	types := []string{"I", buildConfigClass, "Ljava/lang/Object;", "Ljava/lang/String;", "Z"}
	sort.Slice(types, func(i, j int) bool { return idx[types[i]] < idx[types[j]] })
	tidx := map[string]uint32{}
	for i, t := range types {
		tidx[t] = uint32(i)
	}
	// Fields sorted by name (one class): value per field.
	fields := []struct{ name, typ string }{{"BUILD_TYPE", "Ljava/lang/String;"}, {"DEBUG", "Z"}, {"VERSION_CODE", "I"}, {versionField, "Ljava/lang/String;"}}
	le := binary.LittleEndian
	const hdr = 0x70
	stringIDs := uint32(hdr)
	typeIDs := stringIDs + 4*uint32(len(strs))
	fieldIDs := typeIDs + 4*uint32(len(types))
	classDefs := fieldIDs + 8*uint32(len(fields))
	dataOff := classDefs + 32
	b := make([]byte, dataOff)
	copy(b, "dex\n035\x00")
	for i, s := range strs {
		le.PutUint32(b[stringIDs+4*uint32(i):], uint32(len(b)))
		b = append(b, byte(len(s))) // uleb128: every string here is shorter than 128
		b = append(append(b, s...), 0)
	}
	for i, t := range types {
		le.PutUint32(b[typeIDs+4*uint32(i):], idx[t])
	}
	for i, f := range fields {
		o := fieldIDs + 8*uint32(i)
		le.PutUint16(b[o:], uint16(tidx[buildConfigClass]))
		le.PutUint16(b[o+2:], uint16(tidx[f.typ]))
		le.PutUint32(b[o+4:], idx[f.name])
	}
	classData := uint32(len(b))
	b = append(b, byte(len(fields)), 0, 0, 0)
	for i := range fields {
		diff := byte(1)
		if i == 0 {
			diff = 0
		}
		b = append(b, diff, 0x19) // public static final
	}
	staticValues := uint32(len(b))
	b = append(b, byte(len(fields)))
	b = append(b, 0<<5|valueString, byte(idx["release"]))
	b = append(b, 0<<5|valueBoolean)
	b = append(b, 1<<5|0x04, 0x34, 0x76) // VERSION_CODE, a 2-byte int
	b = append(b, 0<<5|valueString, byte(idx[version]))
	def := classDefs
	le.PutUint32(b[def:], tidx[buildConfigClass])
	le.PutUint32(b[def+4:], 0x11) // public final
	le.PutUint32(b[def+8:], tidx["Ljava/lang/Object;"])
	le.PutUint32(b[def+16:], 0xffffffff) // no source file
	le.PutUint32(b[def+24:], classData)
	le.PutUint32(b[def+28:], staticValues)
	for _, h := range [][2]uint32{{0x38, uint32(len(strs))}, {0x3c, stringIDs}, {0x40, uint32(len(types))}, {0x44, typeIDs},
		{0x50, uint32(len(fields))}, {0x54, fieldIDs}, {0x60, 1}, {0x64, classDefs}, {0x68, uint32(len(b)) - dataOff}, {0x6c, dataOff}} {
		le.PutUint32(b[h[0]:], h[1])
	}
	le.PutUint32(b[0x20:], uint32(len(b)))
	le.PutUint32(b[0x24:], hdr)
	le.PutUint32(b[0x28:], 0x12345678)
	sum := sha1.Sum(b[32:]) //nolint:gosec // the format's signature
	copy(b[12:32], sum[:])
	le.PutUint32(b[8:], adler32.Checksum(b[12:]))
	return b
}
