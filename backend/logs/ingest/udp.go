package ingest

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loggate/loggate/backend/logs/gelf"
	"github.com/loggate/loggate/backend/logs/inputs"
)

// maxDatagram is the largest UDP payload.
const maxDatagram = 65535

// udpBatches is how many batches an input has: one filling while the others
// wait for or are in a journal append, so reading goes on during an fsync.
const udpBatches = 16

// udpServer is a running GELF UDP input. One goroutine reads datagrams,
// reassembles chunks, decodes and encodes records into a batch; another
// appends full batches to the journal.
type udpServer struct {
	inst    *instance
	conn    *net.UDPConn
	chunker *gelf.Chunker
	dec     gelf.Decoder
	enc     encoder
	lease   lease
	full    chan *batch // to the appender
	free    chan *batch // back from it
	stopped chan struct{}
	wg      sync.WaitGroup
	// last caches the fields of the last sender: most traffic comes from
	// few senders, and building them allocates.
	last    netip.AddrPort
	lastRem remote
	// incoming counts messages since the last batch was sent, so the meter
	// is marked (a clock read) once per batch.
	incoming int64
	// journalFull is set while appends are refused, to log the change once.
	journalFull atomic.Bool
}

func startUDP(ctx context.Context, inst *instance) (server, error) {
	lc := net.ListenConfig{Control: recvBuffer(inst.cfg.recvBufferSize)}
	pc, err := lc.ListenPacket(ctx, "udp", inst.cfg.address())
	if err != nil {
		return nil, err
	}
	s := &udpServer{
		inst:    inst,
		conn:    pc.(*net.UDPConn),
		chunker: gelf.NewChunker(inst.gelf),
		enc:     encoder{inst: inst},
		lease:   lease{b: inst.r.budget},
		full:    make(chan *batch, udpBatches),
		free:    make(chan *batch, udpBatches),
		stopped: make(chan struct{}),
	}
	for range udpBatches - 1 {
		s.free <- new(batch)
	}
	chunkGauges(inst.r.opts.Metrics, inst.prefix, s.chunker)
	s.wg.Go(s.appender)
	s.wg.Go(s.expirer)
	s.wg.Go(s.read)
	return s, nil
}

func (s *udpServer) addr() net.Addr { return s.conn.LocalAddr() }

func (s *udpServer) stop() {
	close(s.stopped)
	s.conn.Close()
	s.wg.Wait()
	// The input's metrics gauges keep the chunker: free what it holds.
	s.chunker.Clear()
}

// read is the reader goroutine. A non-empty batch is sent to the appender
// when it is full or BatchDelay after its first message, whichever comes
// first; the delay is a read deadline, so an idle input costs nothing.
func (s *udpServer) read() {
	defer close(s.full)
	opts := s.inst.r.opts
	buf := make([]byte, maxDatagram)
	cur := new(batch)
	deadline := false
	for {
		if (cur.len() > 0 || s.incoming > 0) && !deadline {
			_ = s.conn.SetReadDeadline(time.Now().Add(opts.BatchDelay))
			deadline = true
		}
		n, from, err := s.conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				cur = s.send(cur)
				_ = s.conn.SetReadDeadline(time.Time{})
				deadline = false
				continue
			}
			s.send(cur)
			if !errors.Is(err, net.ErrClosed) {
				// Not a stop: say so where the input's state is shown.
				s.inst.log.Error("UDP input stopped reading", "err", err)
				s.inst.r.states.Set(s.inst.id, inputs.StateFailed, err.Error())
			}
			return
		}
		s.inst.metrics.readBytes.Add(int64(n))
		s.datagram(cur, buf[:n], from)
		if cur.len() >= opts.BatchSize || len(cur.buf) >= maxBatchBytes {
			cur = s.send(cur)
		}
	}
}

// send hands a non-empty batch to the appender and returns an empty one.
func (s *udpServer) send(b *batch) *batch {
	if s.incoming > 0 {
		s.inst.metrics.incoming.Mark(s.incoming)
		s.incoming = 0
	}
	if b.len() == 0 {
		return b
	}
	s.full <- b
	return <-s.free
}

// datagram adds the message a datagram completes to the batch.
func (s *udpServer) datagram(b *batch, d []byte, from netip.AddrPort) {
	m := s.inst.metrics
	payload, complete, err := s.chunker.Add(d, from)
	if err != nil {
		m.failures.Mark(1)
		s.inst.log.Debug("dropped invalid GELF chunk", "remote", from.String(), "err", err)
		return
	}
	if !complete {
		return
	}
	s.incoming++
	if len(payload) == 0 {
		m.empty.Inc(1)
		return
	}
	opts := s.inst.gelf
	opts.Budget = &s.lease
	gm, err := s.dec.Decode(payload, opts)
	if err == nil {
		b.add(&s.enc, gm, s.remote(from))
	}
	s.dec.Release()
	s.lease.release()
	if errors.Is(err, errBudget) || errors.Is(err, errOverBudget) {
		// UDP cannot make a sender wait: the message is dropped.
		s.inst.r.budget.udpDropped.Inc(1)
		s.inst.log.Debug("dropped GELF UDP message over the decode budget", "remote", from.String(), "err", err)
		return
	}
	if err != nil {
		m.failures.Mark(1)
		s.inst.log.Debug("dropped invalid GELF UDP message", "remote", from.String(), "err", err)
	}
}

func (s *udpServer) remote(from netip.AddrPort) remote {
	if from != s.last || s.lastRem.ip == "" {
		s.last, s.lastRem = from, newRemote(from)
	}
	return s.lastRem
}

// appender appends the batches the reader sends. UDP cannot push back on
// senders, so a batch that finds the journal full is dropped and counted.
func (s *udpServer) appender() {
	ctx := context.Background()
	var recs [][]byte
	var done []*batch
	for b := range s.full {
		// Batches that filled while the last append waited for its fsync
		// go into this one append: one fsync for all of them, so a slow
		// disk slows the appends down instead of stalling the reader.
		recs, done = append(recs[:0], b.records()...), append(done[:0], b)
	drain:
		for len(recs) < maxAppend {
			select {
			case more, ok := <-s.full:
				if !ok {
					break drain
				}
				recs, done = append(recs, more.records()...), append(done, more)
			default:
				break drain
			}
		}
		res := s.inst.appendAll(ctx, recs, false)
		if lost := len(recs) - res.journaled - res.tooLarge; lost > 0 {
			s.inst.metrics.rejected.Mark(int64(lost))
			if !s.journalFull.Swap(true) {
				s.inst.log.Warn("journal refuses messages; dropping UDP messages", "err", res.err)
			}
		} else if s.journalFull.Swap(false) {
			s.inst.log.Info("journal accepts messages again")
		}
		for _, b := range done {
			b.reset()
			select {
			case s.free <- b:
			default: // the reader has stopped
			}
		}
	}
}

// maxAppend bounds the records of one journal append of a UDP input.
const maxAppend = 8192

// expirer frees chunked messages whose chunks stopped coming, so memory is
// released even when no datagram arrives.
func (s *udpServer) expirer() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			s.chunker.Expire(s.inst.r.opts.Now())
		case <-s.stopped:
			return
		}
	}
}
