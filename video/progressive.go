package video

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/Eyevinn/mp4ff/mp4"
)

// Finalize rewrites a finished recording as a progressive MP4 (one moov
// with the whole sample table, then the pictures): a player that reads
// the file as a stream can seek in it, which WebKitGTK's GStreamer cannot
// in a fragmented file (its demuxer ignores seeks of a fragmented file it
// is pushed). The new file replaces the old one only once it is whole on
// disk, so a crash during Finalize leaves the fragmented file.
func Finalize(path string) error {
	sps, pps, samples, err := Read(path)
	if err != nil {
		return err
	}
	if len(samples) == 0 || len(sps) == 0 || len(pps) == 0 {
		return ErrEmpty
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".finalize-*.tmp")
	if err != nil {
		return err
	}
	if err := writeProgressive(f, sps, pps, samples); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), path)
}

// Fragmented reports whether path is a recording not yet finalized (a
// run killed while it recorded leaves one).
func Fragmented(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	return bytes.Contains(head[:n], []byte("mvex"))
}

// writeProgressive writes ftyp, moov and mdat to f, syncs and closes it.
func writeProgressive(f *os.File, sps, pps [][]byte, samples []Sample) error {
	ftyp := mp4.NewFtyp("isom", 0x200, []string{"isom", "iso2", "avc1", "mp41"})
	moov := mp4.NewMoovBox()
	mvhd := mp4.CreateMvhd()
	mvhd.Timescale, mvhd.NextTrackID = Timescale, 2
	moov.AddChild(mvhd)
	trak := mp4.CreateEmptyTrak(1, Timescale, "video", "und")
	moov.AddChild(trak)
	if err := trak.SetAVCDescriptor("avc1", sps, pps, true); err != nil {
		f.Close()
		return fmt.Errorf("video: the codec config: %w", err)
	}
	stbl := trak.Mdia.Minf.Stbl
	stss := &mp4.StssBox{}
	var total uint64
	var size uint64
	for i, s := range samples {
		// A picture lasts until the next one (a still stretch included).
		d := uint64(s.Dur.Milliseconds())
		if i+1 < len(samples) {
			d = uint64((samples[i+1].At - s.At).Milliseconds())
		}
		d = max(d, 1)
		if n := len(stbl.Stts.SampleTimeDelta); n > 0 && stbl.Stts.SampleTimeDelta[n-1] == uint32(d) {
			stbl.Stts.SampleCount[n-1]++
		} else {
			stbl.Stts.SampleCount = append(stbl.Stts.SampleCount, 1)
			stbl.Stts.SampleTimeDelta = append(stbl.Stts.SampleTimeDelta, uint32(d))
		}
		total += d
		if s.Key {
			stss.SampleNumber = append(stss.SampleNumber, uint32(i+1))
		}
		stbl.Stsz.SampleSize = append(stbl.Stsz.SampleSize, uint32(len(s.Data)))
		size += uint64(len(s.Data))
	}
	stbl.AddChild(stss)
	stbl.Stsz.SampleNumber = uint32(len(samples))
	if err := stbl.Stsc.AddEntry(1, uint32(len(samples)), 1); err != nil {
		f.Close()
		return err
	}
	stbl.Stco.ChunkOffset = []uint32{0}
	mvhd.Duration, trak.Tkhd.Duration, trak.Mdia.Mdhd.Duration = total, total, total
	mdatHeader := uint64(16) // a 64-bit size: the pictures may pass 4 GB
	offset := ftyp.Size() + moov.Size() + mdatHeader
	if offset+size > 1<<32-1 {
		f.Close()
		return errors.New("video: too large for one chunk table")
	}
	stbl.Stco.ChunkOffset[0] = uint32(offset)
	var head bytes.Buffer
	if err := errors.Join(ftyp.Encode(&head), moov.Encode(&head)); err != nil {
		f.Close()
		return err
	}
	head.Write([]byte{0, 0, 0, 1, 'm', 'd', 'a', 't'})
	head.Write(binary.BigEndian.AppendUint64(nil, mdatHeader+size))
	_, err := f.Write(head.Bytes())
	for _, s := range samples {
		if err == nil {
			_, err = f.Write(s.Data)
		}
	}
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// readProgressive reads the samples of a progressive file (Finalize's).
func readProgressive(data []byte, file *mp4.File) (sps, pps [][]byte, samples []Sample, err error) {
	trak := file.Moov.Trak
	if avcx, ok := trak.Mdia.Minf.Stbl.Stsd.Children[0].(*mp4.VisualSampleEntryBox); ok && avcx.AvcC != nil {
		sps, pps = avcx.AvcC.SPSnalus, avcx.AvcC.PPSnalus
	}
	stbl := trak.Mdia.Minf.Stbl
	keys := map[uint32]bool{}
	if stbl.Stss != nil {
		for _, n := range stbl.Stss.SampleNumber {
			keys[n] = true
		}
	}
	var durs []uint32
	for i, c := range stbl.Stts.SampleCount {
		for range c {
			durs = append(durs, stbl.Stts.SampleTimeDelta[i])
		}
	}
	var at uint64
	chunk, off := -1, uint64(0)
	for i, sz := range stbl.Stsz.SampleSize {
		nr, _, err := stbl.Stsc.ChunkNrFromSampleNr(i + 1)
		if err != nil {
			return sps, pps, samples, err
		}
		if nr != chunk {
			chunk = nr
			if stbl.Stco != nil {
				off = uint64(stbl.Stco.ChunkOffset[nr-1])
			} else {
				off = stbl.Co64.ChunkOffset[nr-1]
			}
		}
		if off+uint64(sz) > uint64(len(data)) || i >= len(durs) {
			return sps, pps, samples, errors.New("video: a sample beyond the file")
		}
		samples = append(samples, Sample{At: time.Duration(at) * time.Millisecond, Dur: time.Duration(durs[i]) * time.Millisecond,
			Key: stbl.Stss == nil || keys[uint32(i+1)], Data: data[off : off+uint64(sz)]})
		off += uint64(sz)
		at += uint64(durs[i])
	}
	return sps, pps, samples, nil
}
