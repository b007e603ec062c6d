package ingest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/loggate/loggate/backend/logs/gelf"
	"github.com/loggate/loggate/backend/logs/journal"
)

// tcpReadBuffer is the connection's read buffer; gelf.Framer uses it as is.
const tcpReadBuffer = 64 << 10

// readBuffers are the read buffers of the connections that have bytes to
// read: a connection waiting for its sender gives its buffer back (see
// tcpConn.wait), so that idle senders, however many, hold none.
var readBuffers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, tcpReadBuffer) }}

// maxBatchBytes flushes a batch early so one append stays well below the
// journal's pending limit (16 MiB).
const maxBatchBytes = 4 << 20

// tcpServer is a running GELF TCP input.
type tcpServer struct {
	inst   *instance
	ln     net.Listener
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

func startTCP(ctx context.Context, inst *instance) (server, error) {
	ln, err := listenTCP(ctx, inst)
	if err != nil {
		return nil, err
	}
	inst.metrics.connectionGauges(inst.r.opts.Metrics, inst.prefix)
	s := &tcpServer{inst: inst, ln: ln, conns: map[net.Conn]struct{}{}}
	// The input outlives the Apply call that started it.
	s.ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	s.wg.Go(s.accept)
	return s, nil
}

func (s *tcpServer) addr() net.Addr { return s.ln.Addr() }

func (s *tcpServer) stop() {
	s.cancel()
	s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *tcpServer) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) || s.ctx.Err() != nil {
				return
			}
			// Out of file descriptors and the like: back off as net/http does.
			s.inst.log.Warn("accept failed", "err", err)
			select {
			case <-time.After(50 * time.Millisecond):
			case <-s.ctx.Done():
				return
			}
			continue
		}
		s.mu.Lock()
		if s.ctx.Err() != nil {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		s.wg.Go(func() { s.serve(c) })
	}
}

func (s *tcpServer) serve(c net.Conn) {
	m := s.inst.metrics
	m.open.Add(1)
	m.total.Add(1)
	defer func() {
		c.Close()
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		m.open.Add(-1)
	}()
	h := newTCPConn(s.inst, remote{})
	if ap, err := netip.ParseAddrPort(c.RemoteAddr().String()); err == nil {
		h.rem = newRemote(ap)
	}
	h.unread = unreadBytes(c)
	h.readable = readable(c)
	if err := h.run(s.ctx, countingConn{Conn: c, m: m}); err != nil && s.ctx.Err() == nil {
		s.inst.log.Debug("connection closed", "remote", c.RemoteAddr().String(), "err", err)
	}
}

// tcpConn reads one connection.
type tcpConn struct {
	inst  *instance
	dec   gelf.Decoder
	enc   encoder
	rem   remote
	batch batch
	lease lease
	// incoming counts frames since the last flush: marking the meter once
	// per batch saves a clock read per message.
	incoming int64
	// frameHeld is what lease holds for the long frame being assembled.
	frameHeld int64
	// unread, when set, tells how many bytes the connection has received
	// that are not read yet (see more).
	unread func() int
	// readable, when set with unread, waits without a buffer until the
	// connection has bytes to read (see wait).
	readable func() error
}

func newTCPConn(inst *instance, rem remote) *tcpConn {
	return &tcpConn{inst: inst, enc: encoder{inst: inst}, rem: rem, lease: lease{b: inst.r.budget}}
}

// run reads frames until the connection ends. Frames already in the read
// buffer are decoded into one batch and appended at once before the next
// read that could block; a full journal stops the reading until there is
// room again.
func (h *tcpConn) run(ctx context.Context, c io.Reader) error {
	max := h.inst.cfg.maxMessageSize
	if max <= 0 {
		max = gelf.DefaultMaxMessageSize
	}
	var quiet *quietReader
	if h.readable != nil && h.unread != nil {
		quiet = &quietReader{r: c, unread: h.unread}
		c = quiet
	}
	br := readBuffers.Get().(*bufio.Reader)
	br.Reset(c)
	defer func() {
		if br != nil {
			br.Reset(nil)
			readBuffers.Put(br)
		}
	}()
	fr := gelf.NewFramer(br, max)
	fr.Room = func(size int) error { return h.frameRoom(ctx, int64(size)) }
	if quiet != nil {
		fr.Wait = func(r *bufio.Reader) (*bufio.Reader, error) {
			br = nil // given back while waiting
			var err error
			br, err = h.wait(ctx, quiet, r)
			return br, err
		}
	}
	limit := h.inst.r.opts.BatchSize
	dropped := uint64(0)
	for {
		frame, err := fr.Next()
		// The frame's room, if it was long, stays in the lease: its text
		// stands for its record until the batch is journaled.
		h.frameHeld = 0
		if d := fr.Dropped(); d != dropped {
			h.inst.metrics.incoming.Mark(int64(d - dropped))
			h.inst.metrics.failures.Mark(int64(d - dropped))
			dropped = d
		}
		if err != nil {
			if ferr := h.flush(ctx); ferr != nil {
				return ferr
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if err := h.decode(ctx, frame); err != nil {
			return err
		}
		if h.batch.len() < limit && len(h.batch.buf) < maxBatchBytes && (frameReady(br, max) || h.more(br, max)) {
			continue
		}
		if err := h.flush(ctx); err != nil {
			return err
		}
	}
}

// wait is the Framer's Wait, called when the connection has nothing to
// read: it gives back the read buffer, now empty, waits for the next bytes
// and returns the buffer they are read into. Quiet connections then hold no
// read buffer, as Netty's do: a sender that connects and stays quiet, sends
// now and then, or stops inside a message costs its connection's goroutine
// and, in the decode budget, what it sent of the message; not 64 KiB each.
// On its error (the connection closed) the buffer is already given back
// and nil is returned.
func (h *tcpConn) wait(ctx context.Context, q *quietReader, br *bufio.Reader) (*bufio.Reader, error) {
	if h.batch.len() > 0 {
		// Not reached, as run reads on only for frames already received:
		// the batch does not wait for the sender.
		if err := h.flush(ctx); err != nil {
			return br, err
		}
		h.frameHeld = 0 // the flush gave back the lease
	}
	br.Reset(nil)
	readBuffers.Put(br)
	if err := h.readable(); err != nil {
		return nil, err
	}
	q.ready = true
	br = readBuffers.Get().(*bufio.Reader)
	br.Reset(q)
	return br, nil
}

// quietReader reads a connection but returns gelf.ErrWait instead of
// waiting for bytes, unless the connection was found readable since its
// last read: then the read returns at once, with bytes, the end of the
// stream or its error.
type quietReader struct {
	r      io.Reader
	unread func() int
	ready  bool
}

func (q *quietReader) Read(p []byte) (int, error) {
	if !q.ready && q.unread() == 0 {
		return 0, gelf.ErrWait
	}
	q.ready = false
	return q.r.Read(p)
}

// decode adds a frame's message to the batch, or counts its failure. When
// the decode budget has no room, it waits for enough for the worst case and
// decodes again: the connection stops reading meanwhile (back-pressure),
// nothing is dropped. The error is the end of the input.
func (h *tcpConn) decode(ctx context.Context, frame []byte) error {
	m := h.inst.metrics
	h.incoming++
	opts := h.inst.gelf
	opts.Budget = &h.lease
	gm, err := h.dec.Decode(frame, opts)
	if errors.Is(err, errBudget) {
		// What the batch holds is given back first: waiting while
		// holding part of the budget could wait for ever.
		if err := h.flush(ctx); err != nil {
			return err
		}
		if err := h.lease.reserve(ctx, worstCase(frame, opts.MaxDecompressed)); err != nil {
			return err
		}
		gm, err = h.dec.Decode(frame, opts)
	}
	// The decoder holds nothing of the frame while the connection waits
	// for the next one.
	defer h.dec.Release()
	if err == nil {
		h.batch.add(&h.enc, gm, h.rem)
	} else {
		m.failures.Mark(1)
		h.inst.log.Debug("dropped invalid GELF TCP frame", "remote", h.rem.ip, "err", err)
	}
	return nil
}

// frameRoom takes room in the decode budget for a frame longer than the
// read buffer as it is assembled, size being the frame so far. The room is
// held ahead for the frame's decoding, which then asks for no more for the
// text. Without room it waits, as decode does, having given back its batch
// first; that gives back the room of the frame so far too, so it waits for
// all of it.
func (h *tcpConn) frameRoom(ctx context.Context, size int64) error {
	if size <= h.frameHeld {
		return nil
	}
	if size > h.lease.b.limit {
		return fmt.Errorf("%w (%d bytes)", errOverBudget, h.lease.b.limit)
	}
	if h.lease.tryHold(size - h.frameHeld) {
		h.frameHeld = size
		return nil
	}
	if err := h.flush(ctx); err != nil {
		return err
	}
	if err := h.lease.reserve(ctx, size); err != nil {
		return err
	}
	h.frameHeld = size
	return nil
}

// worstCase is the most a frame can take of the decode budget: its text,
// for a compressed frame the decompression buffer too, and the fields
// made of its containers, which escaping control characters can make six
// times the text.
func worstCase(frame []byte, maxDecompressed int64) int64 {
	if gelf.Compressed(frame) {
		return 8 * (maxDecompressed + 1)
	}
	return 7 * int64(len(frame))
}

// flush appends the batch, waiting while the journal is full, and gives
// back the decode budget its messages took: the budget their text took
// stands for their records until they are journaled.
func (h *tcpConn) flush(ctx context.Context) error {
	if h.incoming > 0 {
		h.inst.metrics.incoming.Mark(h.incoming)
		h.incoming = 0
	}
	if h.batch.len() == 0 {
		h.lease.release()
		return nil
	}
	recs := h.batch.records()
	res := h.inst.appendAll(ctx, recs, true)
	if lost := len(recs) - res.journaled - res.tooLarge; lost > 0 {
		h.inst.metrics.rejected.Mark(int64(lost))
	}
	h.batch.reset()
	h.lease.release()
	if res.err != nil && !errors.Is(res.err, journal.ErrTooLarge) {
		return res.err
	}
	return nil
}

// more reads what the connection has already received into the read
// buffer, without waiting for more, and reports whether that completes a
// frame. A busy sender's messages then fill a batch, up to its limit, and
// are journaled with one fsync, rather than one fsync for each read
// buffer's worth: appends wait for their fsync, so the batch size is what
// bounds a connection's rate.
func (h *tcpConn) more(br *bufio.Reader, max int) bool {
	if h.unread == nil {
		return false
	}
	n := h.unread()
	if n <= 0 {
		return false
	}
	// Peek fills the buffer with reads that each return at once, as the
	// bytes are there.
	_, _ = br.Peek(min(br.Buffered()+n, br.Size()))
	return frameReady(br, max)
}

// frameReady reports whether the read buffer holds a complete frame the
// Framer will return without reading from the connection. Between two
// frames the Framer keeps no state, so the empty frames at the front of the
// buffer, which it would skip, can be dropped here.
func frameReady(br *bufio.Reader, max int) bool {
	b, _ := br.Peek(br.Buffered())
	i := 0
	for i < len(b) && b[i] == 0 {
		i++
	}
	if i > 0 {
		_, _ = br.Discard(i)
		b = b[i:]
	}
	end := bytes.IndexByte(b, 0)
	return end > 0 && end <= max
}
