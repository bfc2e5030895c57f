package video

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/Eyevinn/mp4ff/avc"
	"github.com/Eyevinn/mp4ff/mp4"
)

// Sample is one picture of a file: its time on the file's timeline, its
// length, whether it is a key frame, and its NAL units (4-byte lengths).
type Sample struct {
	At, Dur time.Duration
	Key     bool
	Data    []byte
}

// Read reads a file this package wrote, fragmented (a recording) or
// progressive (Finalize's): its parameter sets and its pictures in order.
// A file cut short by a crash is read up to its last whole fragment.
func Read(path string) (sps, pps [][]byte, samples []Sample, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, nil, err
	}
	file, err := mp4.DecodeFile(bytes.NewReader(data))
	if file != nil && file.Moov != nil && file.Moov.Trak != nil && !file.IsFragmented() {
		return readProgressive(data, file)
	}
	if err != nil && (file == nil || file.Init == nil) {
		return nil, nil, nil, fmt.Errorf("video: read %s: %w", path, err)
	}
	if file.Init == nil || file.Init.Moov.Trak == nil {
		return nil, nil, nil, errors.New("video: not a fragmented MP4")
	}
	if avcx, ok := file.Init.Moov.Trak.Mdia.Minf.Stbl.Stsd.Children[0].(*mp4.VisualSampleEntryBox); ok && avcx.AvcC != nil {
		sps, pps = avcx.AvcC.SPSnalus, avcx.AvcC.PPSnalus
	}
	trex := file.Init.Moov.Mvex.Trex
	for _, seg := range file.Segments {
		for _, frag := range seg.Fragments {
			full, err := frag.GetFullSamples(trex)
			if err != nil {
				return sps, pps, samples, err
			}
			for _, s := range full {
				samples = append(samples, Sample{At: time.Duration(s.DecodeTime) * time.Millisecond, Dur: time.Duration(s.Dur) * time.Millisecond,
					Key: mp4.IsSyncSampleFlags(s.Flags), Data: s.Data})
			}
		}
	}
	return sps, pps, samples, nil
}

// ErrNoPictures means the span asked for holds no picture of the file.
var ErrNoPictures = errors.New("video: no picture in that span")

// Clip writes the part of src from from to to (times on src's timeline)
// to dst as a file of its own, remuxed, not re-encoded: it starts at the
// key frame at or before from, so it may begin a little earlier, and its
// time zero is that key frame.
func Clip(src, dst string, from, to time.Duration) error {
	sps, pps, samples, err := Read(src)
	if err != nil {
		return err
	}
	first := -1
	for i, s := range samples {
		if s.At > from {
			break
		}
		if s.Key {
			first = i
		}
	}
	if first < 0 {
		for i, s := range samples { // from is before the first key frame
			if s.Key {
				first = i
				break
			}
		}
	}
	if first < 0 || samples[first].At > to || from > samples[len(samples)-1].At+samples[len(samples)-1].Dur {
		return ErrNoPictures
	}
	// The parameter sets in force at the first picture: the init's, or
	// the newest put in band before it (the phone turned).
	for _, s := range samples[:first+1] {
		if ns, np := inBand(s.Data); len(ns) > 0 && len(np) > 0 {
			sps, pps = ns, np
		}
	}
	base := samples[first].At
	w, err := Create(dst, time.Time{})
	if err != nil {
		return err
	}
	w.sps, w.pps, w.waitKey = sps, pps, false
	end := uint64(0)
	for _, s := range samples[first:] {
		if s.At > to {
			break
		}
		t := uint64((s.At - base).Milliseconds())
		if err := w.add(s.Data, s.Key, t); err != nil {
			w.f.Close()
			return err
		}
		end = t + uint64(s.Dur.Milliseconds())
	}
	end = min(end, uint64((to - base).Milliseconds()))
	if err := w.closeAt(end); err != nil {
		return err
	}
	return Finalize(dst)
}

// inBand is the SPS and PPS a sample carries (after a config change).
func inBand(sample []byte) (sps, pps [][]byte) {
	nalus, err := avc.GetNalusFromSample(sample)
	if err != nil {
		return nil, nil
	}
	for _, n := range nalus {
		if t := avc.GetNaluType(n[0]); t == avc.NALU_SPS {
			sps = append(sps, n)
		} else if t == avc.NALU_PPS {
			pps = append(pps, n)
		}
	}
	return sps, pps
}
