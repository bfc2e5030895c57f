package vphone

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"tandem/vphone/transport"
)

// syncMaxChunk is the largest DATA payload of the sync protocol.
const syncMaxChunk = 64 * 1024

// serveSync is the `sync:` service (SYNC.TXT, v1 requests only: the phone
// does not advertise stat_v2, ls_v2 or sendrecv_v2).
func (p *Phone) serveSync(ctx context.Context, s *transport.Stream) error {
	r := bufio.NewReader(s)
	w := bufio.NewWriterSize(s, syncMaxChunk+8)
	for {
		id, arg, err := readSyncReq(r)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		switch id {
		case "STAT":
			st, err := p.fs.stat(arg)
			var b [16]byte
			copy(b[:], "STAT")
			if err == nil {
				binary.LittleEndian.PutUint32(b[4:], st.mode)
				binary.LittleEndian.PutUint32(b[8:], st.size)
				binary.LittleEndian.PutUint32(b[12:], uint32(st.mtime.Unix()))
			}
			w.Write(b[:])
		case "LIST":
			entries, _ := p.fs.list(arg)
			for _, e := range entries {
				writeDent(w, "DENT", e.mode, e.size, uint32(e.mtime.Unix()), e.name)
			}
			writeDent(w, "DONE", 0, 0, 0, "")
		case "RECV":
			data, err := p.fs.read(arg)
			if err != nil {
				syncFail(w, fmt.Sprintf("remote object '%s' does not exist", arg))
				break
			}
			for len(data) > 0 {
				c := min(len(data), syncMaxChunk)
				syncHeader(w, "DATA", uint32(c))
				w.Write(data[:c])
				data = data[c:]
				if err := w.Flush(); err != nil {
					return err
				}
			}
			syncHeader(w, "DONE", 0)
		case "SEND":
			if err := p.syncReceive(r, w, arg); err != nil {
				return err
			}
		case "QUIT":
			return w.Flush()
		default:
			syncFail(w, "unknown sync request "+strconv.Quote(id))
			w.Flush()
			return nil
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

func readSyncReq(r io.Reader) (string, string, error) {
	var h [8]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return "", "", err
	}
	n := binary.LittleEndian.Uint32(h[4:])
	id := string(h[:4])
	if id == "QUIT" || id == "DONE" {
		return id, strconv.Itoa(int(n)), nil
	}
	if n > 1024 {
		return "", "", fmt.Errorf("%w: sync path of %d bytes", transport.ErrBadPacket, n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", "", err
	}
	return id, string(b), nil
}

// syncReceive stores a file the host pushes: DATA chunks, then DONE.
func (p *Phone) syncReceive(r io.Reader, w *bufio.Writer, arg string) error {
	path, modeStr := arg, ""
	if i := strings.LastIndexByte(arg, ','); i >= 0 {
		path, modeStr = arg[:i], arg[i+1:]
	}
	mode, _ := strconv.ParseUint(modeStr, 10, 32)
	var data bytes.Buffer
	for {
		var h [8]byte
		if _, err := io.ReadFull(r, h[:]); err != nil {
			return err
		}
		n := binary.LittleEndian.Uint32(h[4:])
		switch string(h[:4]) {
		case "DATA":
			if n > syncMaxChunk {
				syncFail(w, "data chunk too large")
				return nil
			}
			if _, err := io.CopyN(&data, r, int64(n)); err != nil {
				return err
			}
		case "DONE":
			if err := p.fs.write(path, data.Bytes(), uint32(mode), false); err != nil {
				syncFail(w, fmt.Sprintf("couldn't create file: %s", errText(err)))
				return nil
			}
			syncHeader(w, "OKAY", 0)
			return nil
		default:
			syncFail(w, "invalid data message")
			return nil
		}
	}
}

func syncHeader(w io.Writer, id string, n uint32) {
	var b [8]byte
	copy(b[:], id)
	binary.LittleEndian.PutUint32(b[4:], n)
	w.Write(b[:])
}

func syncFail(w io.Writer, msg string) {
	syncHeader(w, "FAIL", uint32(len(msg)))
	io.WriteString(w, msg)
}

func writeDent(w io.Writer, id string, mode, size, mtime uint32, name string) {
	var b [20]byte
	copy(b[:], id)
	binary.LittleEndian.PutUint32(b[4:], mode)
	binary.LittleEndian.PutUint32(b[8:], size)
	binary.LittleEndian.PutUint32(b[12:], mtime)
	binary.LittleEndian.PutUint32(b[16:], uint32(len(name)))
	w.Write(b[:])
	io.WriteString(w, name)
}
