package video

import (
	"bufio"
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
// disk, so a crash during Finalize leaves the fragmented file. The
// pictures are copied from file to file, never all held in memory. A file
// already progressive is left as it is.
func Finalize(path string) error {
	if !Fragmented(path) {
		return nil
	}
	src, err := os.Open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	sps, pps, samples, err := indexFragmented(src)
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
	if err := writeProgressive(f, src, sps, pps, samples); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), path)
}

// located is one picture of a fragmented file: its time and duration (in
// Timescale units), whether it is a key frame, and where its bytes are.
type located struct {
	at, dur uint64
	key     bool
	off     int64
	size    uint32
}

// indexFragmented reads a fragmented file's boxes, not its pictures: the
// parameter sets and where each picture is. A fragment cut short (a crash)
// is left out from its first missing picture.
func indexFragmented(src *os.File) (sps, pps [][]byte, out []located, err error) {
	st, err := src.Stat()
	if err != nil {
		return nil, nil, nil, err
	}
	file, err := mp4.DecodeFile(src, mp4.WithDecodeMode(mp4.DecModeLazyMdat))
	if file == nil || file.Init == nil || file.Init.Moov.Trak == nil {
		return nil, nil, nil, errors.Join(errors.New("video: not a fragmented MP4"), err)
	}
	if avcx, ok := file.Init.Moov.Trak.Mdia.Minf.Stbl.Stsd.Children[0].(*mp4.VisualSampleEntryBox); ok && avcx.AvcC != nil {
		sps, pps = avcx.AvcC.SPSnalus, avcx.AvcC.PPSnalus
	}
	trex := file.Init.Moov.Mvex.Trex
	for _, seg := range file.Segments {
		for _, frag := range seg.Fragments {
			traf := frag.Moof.Traf
			var t uint64
			if traf.Tfdt != nil {
				t = traf.Tfdt.BaseMediaDecodeTime()
			}
			base := int64(frag.Moof.StartPos)
			if traf.Tfhd.HasBaseDataOffset() {
				base = int64(traf.Tfhd.BaseDataOffset)
			}
			for _, trun := range traf.Truns {
				trun.AddSampleDefaultValues(traf.Tfhd, trex)
				off := base + int64(trun.DataOffset)
				for _, s := range trun.Samples {
					if off+int64(s.Size) > st.Size() {
						return sps, pps, out, nil
					}
					out = append(out, located{at: t, dur: uint64(s.Dur), key: mp4.IsSyncSampleFlags(s.Flags), off: off, size: s.Size})
					off += int64(s.Size)
					t += uint64(s.Dur)
				}
			}
		}
	}
	return sps, pps, out, nil
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

// writeProgressive writes ftyp, moov and mdat to f, the pictures copied
// from src, and syncs and closes it.
func writeProgressive(f *os.File, src io.ReaderAt, sps, pps [][]byte, samples []located) error {
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
		d := s.dur
		if i+1 < len(samples) && samples[i+1].at > s.at {
			d = samples[i+1].at - s.at
		}
		d = max(d, 1)
		if n := len(stbl.Stts.SampleTimeDelta); n > 0 && stbl.Stts.SampleTimeDelta[n-1] == uint32(d) {
			stbl.Stts.SampleCount[n-1]++
		} else {
			stbl.Stts.SampleCount = append(stbl.Stts.SampleCount, 1)
			stbl.Stts.SampleTimeDelta = append(stbl.Stts.SampleTimeDelta, uint32(d))
		}
		total += d
		if s.key {
			stss.SampleNumber = append(stss.SampleNumber, uint32(i+1))
		}
		stbl.Stsz.SampleSize = append(stbl.Stsz.SampleSize, s.size)
		size += uint64(s.size)
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
	bw := bufio.NewWriterSize(f, 1<<20)
	_, err := bw.Write(head.Bytes())
	for _, s := range samples {
		if err == nil {
			_, err = io.Copy(bw, io.NewSectionReader(src, s.off, int64(s.size)))
		}
	}
	if err == nil {
		err = bw.Flush()
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
