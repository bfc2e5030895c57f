package desktop

import (
	"context"
	"encoding/binary"
	"fmt"
	"image"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/record"
	"github.com/jezek/xgb/xproto"
)

// The RECORD extension (X Record Extension Protocol, version 1.13) shows a
// client every input event the server processes, from every device and
// every client's XTest, in the order the server processed them, and each
// with the server's timestamp. The driver records device events (key and
// button presses and releases, pointer motion) and one request of its own,
// a NoOperation carrying a marker, so that the stream says exactly where in
// the server's order the driver armed its guard, halted, resumed or asked
// to flush: the stream is read late on a busy machine, never out of order,
// and an event is judged by where it stands in the stream, not by when it
// was read.

// xevent is one recorded device event.
type xevent struct {
	typ    byte // xproto.KeyPress ... xproto.MotionNotify
	detail byte // keycode or button
	ms     uint32
	root   image.Point // the pointer, in root coordinates
	state  uint16      // modifiers and buttons held before the event
}

// streamSink takes the stream in order, on the recorder's goroutine.
type streamSink interface {
	device(ev xevent)
	marker(id uint32)
	mapping() // the keyboard mapping changed
}

// markerMagic starts a marker's payload, so another client's NoOperation is
// never taken for one.
const markerMagic = "TNDM"

// recorder is a RECORD context enabled on its own data connection.
type recorder struct {
	ctl  *xgb.Conn // the context is made and ended on it; markers come from it
	id   record.Context
	data *wireConn
	base uint32 // ctl's resource id base: FromClient data of ctl carries it
	done chan struct{}
}

// startRecord makes a context recording device events and ctl's markers,
// enables it on a data connection to display, and feeds sink until stop.
func startRecord(ctx context.Context, display string, ctl *xgb.Conn, sink streamSink) (*recorder, error) {
	if !hasExtension(ctl, "RECORD") {
		return nil, fmt.Errorf("the X server has no RECORD extension")
	}
	if _, err := record.QueryVersion(ctl, 1, 13).Reply(); err != nil {
		return nil, fmt.Errorf("RECORD version: %w", err)
	}
	id, err := record.NewContextId(ctl)
	if err != nil {
		return nil, err
	}
	rng := record.Range{
		DeviceEvents: record.Range8{First: xproto.KeyPress, Last: xproto.MotionNotify},
		CoreRequests: record.Range8{First: 127, Last: 127}, // NoOperation: the markers
	}
	if err := record.CreateContextChecked(ctl, id, 0, 1, 1,
		[]record.ClientSpec{record.CsAllClients}, []record.Range{rng}).Check(); err != nil {
		return nil, fmt.Errorf("RECORD context: %w", err)
	}
	data, err := dialWire(ctx, display)
	if err != nil {
		_ = record.FreeContextChecked(ctl, id).Check()
		return nil, err
	}
	ctl.ExtLock.RLock()
	op := ctl.Extensions["RECORD"]
	ctl.ExtLock.RUnlock()
	req := []byte{op, 5, 2, 0, 0, 0, 0, 0} // EnableContext
	binary.LittleEndian.PutUint32(req[4:], uint32(id))
	if err := data.send(req); err != nil {
		data.close()
		_ = record.FreeContextChecked(ctl, id).Check()
		return nil, err
	}
	r := &recorder{ctl: ctl, id: id, data: data, base: xproto.Setup(ctl).ResourceIdBase, done: make(chan struct{})}
	go r.read(sink)
	return r, nil
}

// mark sends marker id on ctl: it enters the stream where the server
// processes it, after everything ctl sent before.
//
// The server keeps recorded protocol in a buffer and sends it to the data
// connection only when it flushes output to some client (record.c hangs
// its flush on FlushCallback, which FlushAllOutput calls only while a
// client has output pending). A NoOperation has no reply, so on a quiet
// server (an xterm, no compositor, the agent idle while the person drives)
// the marker, and every event before it, stayed in that buffer until some
// other client happened to get output: a settle or flush marker never came
// back, the person's tap was never handed out, and FlushActs waited for
// ever. A GetInputFocus after it gives ctl a reply, so the server flushes,
// the recorded marker with it. The reply is not waited for: the cookie's
// channels are buffered and xgb drops it once delivered.
func (r *recorder) mark(id uint32) {
	buf := make([]byte, 12)
	buf[0] = 127
	binary.LittleEndian.PutUint16(buf[2:], 3)
	copy(buf[4:], markerMagic)
	binary.LittleEndian.PutUint32(buf[8:], id)
	r.ctl.NewRequest(buf, r.ctl.NewCookie(false, false))
	xproto.GetInputFocus(r.ctl) // only for the flush its reply brings
}

// read feeds the stream to sink until the context ends or the server goes.
func (r *recorder) read(sink streamSink) {
	defer close(r.done)
	for {
		head, rest, err := r.data.next()
		if err != nil {
			return
		}
		switch {
		case head[0] == 1: // a reply: a batch of recorded protocol
			if !r.batch(head, rest, sink) {
				return
			}
		case head[0]&0x7f == xproto.MappingNotify:
			sink.mapping()
		}
	}
}

// Categories of a RECORD reply.
const (
	recFromServer = 0
	recFromClient = 1
	recEndOfData  = 5
)

// batch hands one reply's protocol to sink; false at the end of the data.
func (r *recorder) batch(head, data []byte, sink streamSink) bool {
	switch head[1] {
	case recFromServer:
		for len(data) >= 32 {
			e := data[:32]
			data = data[32:]
			if t := e[0] & 0x7f; t >= xproto.KeyPress && t <= xproto.MotionNotify {
				sink.device(xevent{typ: t, detail: e[1], ms: binary.LittleEndian.Uint32(e[4:]),
					root:  image.Pt(int(int16(binary.LittleEndian.Uint16(e[20:]))), int(int16(binary.LittleEndian.Uint16(e[22:])))),
					state: binary.LittleEndian.Uint16(e[28:])})
			}
		}
	case recFromClient:
		if binary.LittleEndian.Uint32(head[12:]) != r.base || head[9] != 0 {
			return true // another client's NoOperation
		}
		for len(data) >= 4 {
			n := 4 * int(binary.LittleEndian.Uint16(data[2:]))
			if n < 4 || n > len(data) {
				return true
			}
			if data[0] == 127 && n == 12 && string(data[4:8]) == markerMagic {
				sink.marker(binary.LittleEndian.Uint32(data[8:]))
			}
			data = data[n:]
		}
	case recEndOfData:
		return false
	}
	return true
}

// stop disables and frees the context; the data connection then ends.
func (r *recorder) stop() {
	_ = record.DisableContextChecked(r.ctl, r.id).Check()
	_ = record.FreeContextChecked(r.ctl, r.id).Check()
	r.data.close()
	<-r.done
}
