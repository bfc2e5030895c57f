// Package video keeps a device's screen as a fragmented MP4 file: the
// H.264 access units the mirror already carries, muxed as they arrive
// (no decode, no encode), each with its capture time as its timestamp,
// and cut again into clips by remuxing. It is apart because it is a file
// format, not a feed: it knows no device, no run and no mirror, only
// Annex-B packets and times, and it is the one place that imports the MP4
// library (Eyevinn/mp4ff).
//
// A file is an init segment (ftyp, moov) and then one fragment (moof,
// mdat) per flush, written at the end of the file and synced; a process
// killed with -9 leaves a file that plays up to its last fragment. A still
// screen sends no packets, so it costs no bytes: the last picture's sample
// lasts until the next one, and a fragment's base decode time is its first
// picture's capture time, so the file's timeline is the wall clock's
// (a still stretch after a fragment is a gap players hold the last
// picture over). Close writes the whole duration into the movie extends
// header, so a file that ended on a still screen still lasts until Close.
package video

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/Eyevinn/mp4ff/avc"
	"github.com/Eyevinn/mp4ff/mp4"
)

// Timescale is the files' time unit: milliseconds.
const Timescale = 1000

// FlushEvery bounds how long a picture waits before it is on disk.
const FlushEvery = time.Second

// Writer writes one fragmented MP4 file. It is not safe for concurrent
// use: its one caller (the recording's goroutine) serializes the calls.
type Writer struct {
	f     *os.File
	start time.Time
	// sps and pps are the parameter sets of the init segment; newSPS and
	// newPPS a later config that differs (the phone turned): put in band
	// before the next key frame.
	sps, pps       [][]byte
	newSPS, newPPS [][]byte
	inited         bool
	mehdAt         int64 // file offset of the mehd's duration
	waitKey        bool  // a picture before any key frame is dropped
	dropping       bool  // over budget: pictures are dropped up to a key frame
	pending        []mp4.FullSample
	end            uint64 // decode time after the last sample written
	seq            uint32
	flushed        time.Time
	// Frames counts the pictures written or pending; Bytes the file's size.
	Frames int
	Bytes  int64
	// Budget bounds the file's growth, in bytes a minute (0: none): a
	// picture that would pass it is dropped, and so is every one after
	// it up to the next key frame that fits (a P-frame needs the one
	// before it). Dropped counts them. Bursts of a quarter of a minute's
	// budget pass at once.
	Budget  int64
	Dropped int
	tokens  float64
	tokenAt time.Time
	// keys locates each key frame written (its time, its fragment's
	// offset), for the random-access index Close appends (mfra): a player
	// that reads the file from a server seeks by it.
	keys []mp4.TfraEntry
}

// Create makes a new file at path whose time zero is start.
func Create(path string, start time.Time) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	return &Writer{f: f, start: start, waitKey: true, flushed: start}, nil
}

// Config takes a codec config packet (SPS and PPS, Annex-B).
func (w *Writer) Config(annexB []byte) {
	var sps, pps [][]byte
	for _, n := range avc.ExtractNalusFromByteStream(annexB) {
		if t := avc.GetNaluType(n[0]); t == avc.NALU_SPS {
			sps = append(sps, bytes.Clone(n))
		} else if t == avc.NALU_PPS {
			pps = append(pps, bytes.Clone(n))
		}
	}
	if len(sps) == 0 || len(pps) == 0 {
		return
	}
	if !w.inited {
		w.sps, w.pps = sps, pps
		return
	}
	if !sameNALUs(sps, w.sps) || !sameNALUs(pps, w.pps) {
		w.newSPS, w.newPPS = sps, pps
	}
}

func sameNALUs(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// Frame takes one access unit (Annex-B) captured at at. Pictures before
// the first key frame with a config are dropped (nothing could decode
// them). It flushes when the oldest pending picture has waited FlushEvery.
func (w *Writer) Frame(annexB []byte, key bool, at time.Time) error {
	if w.waitKey && (!key || len(w.sps) == 0) {
		return nil
	}
	w.waitKey = false
	var nalus [][]byte
	if key && w.newSPS != nil {
		nalus = append(append(nalus, w.newSPS...), w.newPPS...)
		w.newSPS, w.newPPS = nil, nil
	}
	for _, n := range avc.ExtractNalusFromByteStream(annexB) {
		if t := avc.GetNaluType(n[0]); t == avc.NALU_SPS || t == avc.NALU_PPS || t == avc.NALU_AUD {
			continue // the config is in the init segment (or put in band above)
		}
		nalus = append(nalus, n)
	}
	if len(nalus) == 0 {
		return nil
	}
	data := avcSample(nalus)
	if !w.afford(len(data), key, at) {
		w.Dropped++
		return nil
	}
	if err := w.add(data, key, w.timeOf(at)); err != nil {
		return err
	}
	if at.Sub(w.flushed) >= FlushEvery {
		return w.Flush(at)
	}
	return nil
}

// afford spends the budget on a picture of n bytes, false when it is to
// be dropped. The first picture is always kept.
func (w *Writer) afford(n int, key bool, at time.Time) bool {
	if w.Budget <= 0 {
		return true
	}
	burst := float64(w.Budget) / 4
	if w.tokenAt.IsZero() {
		w.tokens, w.tokenAt = burst, at
	}
	if d := at.Sub(w.tokenAt); d > 0 {
		w.tokens = min(burst, w.tokens+float64(w.Budget)*d.Minutes())
		w.tokenAt = at
	}
	first := w.Frames == 0
	if !first && (w.dropping && !key || float64(n) > w.tokens) {
		w.dropping = true
		return false
	}
	w.dropping = false
	w.tokens -= float64(n)
	return true
}

// add appends one sample (length-prefixed NAL units) at decode time t,
// kept after the one before it.
func (w *Writer) add(data []byte, key bool, t uint64) error {
	if !w.inited {
		if err := w.writeInit(); err != nil {
			return err
		}
	}
	flags := mp4.NonSyncSampleFlags
	if key {
		flags = mp4.SyncSampleFlags
	}
	if w.Frames == 0 {
		t = 0 // the first picture is the screen from the start on
	}
	if n := len(w.pending); n > 0 {
		prev := &w.pending[n-1]
		t = max(t, prev.DecodeTime+1)
		prev.Dur = uint32(t - prev.DecodeTime)
	} else {
		t = max(t, w.end)
	}
	w.pending = append(w.pending, mp4.FullSample{Sample: mp4.Sample{Flags: flags, Size: uint32(len(data))}, DecodeTime: t, Data: data})
	w.Frames++
	return nil
}

// timeOf is at on the file's timeline, in Timescale units (0 before start).
func (w *Writer) timeOf(at time.Time) uint64 {
	d := at.Sub(w.start).Milliseconds()
	if d < 0 {
		return 0
	}
	return uint64(d)
}

// avcSample is NAL units with 4-byte lengths, as MP4 keeps them.
func avcSample(nalus [][]byte) []byte {
	size := 0
	for _, n := range nalus {
		size += 4 + len(n)
	}
	out := make([]byte, 0, size)
	for _, n := range nalus {
		out = binary.BigEndian.AppendUint32(out, uint32(len(n)))
		out = append(out, n...)
	}
	return out
}

// writeInit writes the init segment with the first config.
func (w *Writer) writeInit() error {
	init := mp4.CreateEmptyInit()
	init.Moov.Mvhd.Timescale = Timescale
	init.Moov.Mvex.AddChild(&mp4.MehdBox{Version: 1})
	init.AddEmptyTrack(Timescale, "video", "und")
	if err := init.Moov.Trak.SetAVCDescriptor("avc1", w.sps, w.pps, true); err != nil {
		return fmt.Errorf("video: the stream's codec config: %w", err)
	}
	var buf bytes.Buffer
	if err := init.Encode(&buf); err != nil {
		return err
	}
	i := bytes.Index(buf.Bytes(), []byte("mehd"))
	if i < 4 {
		return errors.New("video: no mehd in the init segment")
	}
	w.mehdAt = int64(i + 4 + 4) // past type, then version and flags
	if err := w.write(buf.Bytes()); err != nil {
		return err
	}
	w.inited = true
	return nil
}

func (w *Writer) write(b []byte) error {
	n, err := w.f.Write(b)
	w.Bytes += int64(n)
	if err != nil {
		return fmt.Errorf("video: write: %w", err)
	}
	return nil
}

// Flush writes the pending pictures as one fragment and syncs it; the
// newest one lasts until now.
func (w *Writer) Flush(now time.Time) error {
	w.flushed = now
	return w.flushTo(w.timeOf(now))
}

// flushTo writes the pending samples, the newest one lasting until t.
func (w *Writer) flushTo(t uint64) error {
	if len(w.pending) == 0 {
		return nil
	}
	last := &w.pending[len(w.pending)-1]
	last.Dur = uint32(max(t, last.DecodeTime+1) - last.DecodeTime)
	w.seq++
	frag, err := mp4.CreateFragment(w.seq, 1)
	if err != nil {
		return err
	}
	for _, s := range w.pending {
		frag.AddFullSample(s)
	}
	w.end = last.DecodeTime + uint64(last.Dur)
	for i, s := range w.pending {
		if s.Flags == mp4.SyncSampleFlags {
			w.keys = append(w.keys, mp4.TfraEntry{Time: s.DecodeTime, MoofOffset: uint64(w.Bytes), TrafNumber: 1, TrunNumber: 1, SampleNumber: uint32(i + 1)})
		}
	}
	w.pending = w.pending[:0]
	var buf bytes.Buffer
	if err := frag.Encode(&buf); err != nil {
		return err
	}
	if err := w.write(buf.Bytes()); err != nil {
		return err
	}
	return w.f.Sync()
}

// Due reports whether pending pictures have waited long enough to be
// flushed at now (the recording's ticker asks, for a screen gone still).
func (w *Writer) Due(now time.Time) bool {
	return len(w.pending) > 0 && now.Sub(w.flushed) >= FlushEvery
}

// Close flushes, writes the whole duration (start to now) into the movie
// extends header and closes the file. A file that never got a key frame
// is removed: it would hold no picture.
func (w *Writer) Close(now time.Time) error { return w.closeAt(w.timeOf(now)) }

// closeAt is Close with the end on the file's timeline.
func (w *Writer) closeAt(t uint64) error {
	if !w.inited {
		name := w.f.Name()
		w.f.Close()
		return errors.Join(os.Remove(name), ErrEmpty)
	}
	err := errors.Join(w.flushTo(t), w.writeIndex())
	var d [8]byte
	binary.BigEndian.PutUint64(d[:], max(t, w.end))
	if _, werr := w.f.WriteAt(d[:], w.mehdAt); werr != nil {
		err = errors.Join(err, werr)
	}
	return errors.Join(err, w.f.Close())
}

// writeIndex appends the movie fragment random access box: where each key
// frame's fragment starts, and its time.
func (w *Writer) writeIndex() error {
	if len(w.keys) == 0 {
		return nil
	}
	mfra := &mp4.MfraBox{}
	if err := mfra.AddChild(&mp4.TfraBox{Version: 1, TrackID: 1, LengthSizeOfSampleNum: 3, Entries: w.keys}); err != nil {
		return err
	}
	mfro := &mp4.MfroBox{}
	if err := mfra.AddChild(mfro); err != nil {
		return err
	}
	mfro.ParentSize = uint32(mfra.Size())
	var buf bytes.Buffer
	if err := mfra.Encode(&buf); err != nil {
		return err
	}
	return w.write(buf.Bytes())
}

// ErrEmpty means a recording ended before its first key frame: no file.
var ErrEmpty = errors.New("video: no picture came, no file was kept")

// Name is the file's path.
func (w *Writer) Name() string { return w.f.Name() }
