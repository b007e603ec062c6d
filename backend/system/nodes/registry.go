// Package nodes is the cluster's node registry: every node keeps a document
// in the shared store and refreshes it on each heartbeat; nodes whose
// heartbeat is older than the timeout are dead. One node holds a lease in
// the store and runs the cluster's periodic jobs.
package nodes

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loggate/loggate/backend/store"
)

// Collections of the registry.
const (
	Collection      = "nodes"
	LeaseCollection = "cluster_leases"
	leaderLease     = "leader"
)

// Defaults of Options.
const (
	DefaultHeartbeatInterval = time.Second
	DefaultNodeTimeout       = 5 * time.Second
	DefaultLeaseTTL          = 5 * time.Second
	DefaultGrace             = time.Minute
)

// Info is a node's document: its identity, where it answers, and the state
// other nodes show of it.
type Info struct {
	NodeID           string    `json:"node_id"`
	ClusterID        string    `json:"cluster_id"`
	TransportAddress string    `json:"transport_address"`
	Hostname         string    `json:"hostname"`
	StartedAt        time.Time `json:"started_at"`
	LastSeen         time.Time `json:"last_seen"`
	Lifecycle        string    `json:"lifecycle"`
	LBStatus         string    `json:"lb_status"`
	IsProcessing     bool      `json:"is_processing"`
	Version          string    `json:"version"`
	Timezone         string    `json:"timezone"`
	OperatingSystem  string    `json:"operating_system"`
	Codename         string    `json:"codename"`
	Facility         string    `json:"facility"`
}

// Options tune the registry; zero values take the defaults.
type Options struct {
	// HeartbeatInterval is how often Run beats.
	HeartbeatInterval time.Duration
	// NodeTimeout is how old a heartbeat may be for its node to be live.
	NodeTimeout time.Duration
	// LeaseTTL is how long the leader lease lasts unless renewed.
	LeaseTTL time.Duration
	// Grace is how long the leader keeps a dead node's document before
	// removing it.
	Grace time.Duration
	// Exclusive says that no other process writes the store (the embedded
	// store, which one process holds open): the nodes collection then
	// changes only through this process's registries, and LiveSet reads it
	// again only after one of them wrote to it, not on every call.
	Exclusive bool
}

func (o *Options) defaults() {
	if o.HeartbeatInterval <= 0 {
		o.HeartbeatInterval = DefaultHeartbeatInterval
	}
	if o.NodeTimeout <= 0 {
		o.NodeTimeout = DefaultNodeTimeout
	}
	if o.LeaseTTL <= 0 {
		o.LeaseTTL = DefaultLeaseTTL
	}
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
}

// Registry registers one node, heartbeats for it, competes for the leader
// lease and answers which nodes are live.
type Registry struct {
	st    store.Store
	now   func() time.Time
	state func() Info
	opts  Options

	leaseUntil atomic.Int64 // unix nanoseconds until which this node holds the lease; 0 if not
	abandoned  atomic.Bool

	mu   sync.Mutex
	jobs []*job

	// docs is the nodes collection as LiveSet last read it.
	docs atomic.Pointer[docs]
	// writes counts the writes to the nodes collection of the registries
	// of this process sharing the store; nil unless Options.Exclusive.
	writes *atomic.Uint64
}

// storeWrites holds the write count of each exclusive store the registries
// of this process share (several nodes of one process share one store in
// tests of clusters). An entry stays for the life of the process: one per
// store opened, one in a server.
var storeWrites sync.Map // store.Store → *atomic.Uint64

// New returns the registry of the node whose current state state returns
// (its NodeID is the document id; LastSeen is set by the registry).
func New(st store.Store, now func() time.Time, state func() Info, opts Options) *Registry {
	opts.defaults()
	r := &Registry{st: st, now: now, state: state, opts: opts}
	if opts.Exclusive {
		w, _ := storeWrites.LoadOrStore(st, new(atomic.Uint64))
		r.writes = w.(*atomic.Uint64)
	}
	return r
}

// Options returns the registry's effective options.
func (r *Registry) Options() Options { return r.opts }

// Self returns this node's id.
func (r *Registry) Self() string { return r.state().NodeID }

// Beat writes this node's heartbeat, acquires or renews the leader lease,
// and, as leader, removes long-dead nodes and runs due jobs. Run calls it
// every HeartbeatInterval; tests call it directly after moving the clock.
func (r *Registry) Beat(ctx context.Context) error {
	if r.abandoned.Load() {
		return nil
	}
	info := r.state()
	now := r.now()
	info.LastSeen = now
	doc, err := json.Marshal(info)
	if err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	err = r.st.Put(ctx, Collection, info.NodeID, doc)
	r.wrote()
	if err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	if err := r.renew(ctx, info.NodeID, now); err != nil {
		return err
	}
	if !r.IsLeader() {
		return nil
	}
	return errors.Join(r.sweep(ctx, now), r.runJobs(ctx, now))
}

// Run beats every HeartbeatInterval until ctx ends, then deregisters.
// Failed beats are reported to onErr (which may be nil) and retried on the
// next tick: a store outage must not stop the node.
func (r *Registry) Run(ctx context.Context, onErr func(error)) {
	t := time.NewTicker(r.opts.HeartbeatInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			if err := r.Deregister(context.WithoutCancel(ctx)); err != nil && onErr != nil {
				onErr(err)
			}
			return
		case <-t.C:
			if err := r.Beat(ctx); err != nil && onErr != nil && ctx.Err() == nil {
				onErr(err)
			}
		}
	}
}

// Deregister removes this node's document and releases the lease if it
// holds it, so that the cluster forgets a stopped node at once and another
// node takes the lease on its next beat.
func (r *Registry) Deregister(ctx context.Context) error {
	if r.abandoned.Load() {
		return nil
	}
	self := r.Self()
	var errs []error
	err := r.st.Delete(ctx, Collection, self)
	r.wrote()
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		errs = append(errs, fmt.Errorf("deregister: %w", err))
	}
	if err := r.release(ctx, self); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Abandon stops the registry's work without deregistering, as if the
// process had been killed: its heartbeat ages and its lease expires. It is
// for tests of failover.
func (r *Registry) Abandon() {
	r.abandoned.Store(true)
	r.leaseUntil.Store(0)
}

// Live returns the live nodes (heartbeat no older than NodeTimeout), by id.
// The slice is the caller's own.
func (r *Registry) Live(ctx context.Context) ([]Info, error) {
	set, err := r.LiveSet(ctx)
	if err != nil {
		return nil, err
	}
	return slices.Clone(set.Nodes), nil
}

// LiveSet is the live nodes at one moment, by id. It is shared and must not
// be modified: LiveSet returns the same *LiveSet for as long as no node's
// document changed and no node's liveness did, so that callers may keep
// what they derive from it (the encoded GET /cluster answer) keyed by the
// pointer.
type LiveSet struct {
	Nodes []Info
}

// wrote records a write to the nodes collection, after it ended (failed
// ones too: they may have written): LiveSet reads the collection again.
func (r *Registry) wrote() {
	if r.writes != nil {
		r.writes.Add(1)
	}
}

// docs is the nodes collection as last read, decoded, in id order.
type docs struct {
	// seen is the write count the documents reflect (Options.Exclusive).
	seen  atomic.Uint64
	ids   []string
	raw   [][]byte
	infos []Info
	// last is the LiveSet of the liveness mask it was made for.
	last atomic.Pointer[liveMemo]
}

type liveMemo struct {
	mask uint64
	set  *LiveSet
}

// LiveSet returns the live nodes. GET /cluster runs it on every request,
// and a node's document changes only with its heartbeat: the store is still
// read each time (another node's beat or deregistration is seen at once),
// but unchanged documents are compared byte for byte, not decoded, and an
// unchanged outcome is the same *LiveSet, without allocating.
//
// With Options.Exclusive the store is read only after a write since the
// last read: liveness still follows the clock on every call.
func (r *Registry) LiveSet(ctx context.Context) (*LiveSet, error) {
	now := r.now()
	cur := r.docs.Load()
	var writes uint64
	if r.writes != nil {
		// Taken before reading: a write during the read is read again
		// next time.
		writes = r.writes.Load()
		if cur != nil && cur.seen.Load() == writes {
			return r.liveOf(cur, now), nil
		}
	}
	d, err := r.read(ctx, cur)
	if err != nil {
		return nil, err
	}
	d.seen.Store(writes)
	if d != cur {
		r.docs.Store(d) // documents gone from the store leave the cache too
	}
	return r.liveOf(d, now), nil
}

// read lists the nodes collection and returns cur if nothing changed since
// it was read, else the new documents (decoding only the changed ones).
func (r *Registry) read(ctx context.Context, cur *docs) (*docs, error) {
	if cur == nil {
		cur = &docs{}
	}
	var next *docs // non-nil once the store differs from cur
	i := 0
	err := r.st.List(ctx, Collection, func(id string, doc []byte) error {
		if next == nil && i < len(cur.ids) && cur.ids[i] == id && bytes.Equal(cur.raw[i], doc) {
			i++
			return nil
		}
		if next == nil {
			next = &docs{ids: slices.Clone(cur.ids[:i]), raw: slices.Clone(cur.raw[:i]), infos: slices.Clone(cur.infos[:i])}
		}
		var in Info
		if j, ok := slices.BinarySearch(cur.ids, id); ok && bytes.Equal(cur.raw[j], doc) {
			in = cur.infos[j]
		} else if err := json.Unmarshal(doc, &in); err != nil {
			return fmt.Errorf("node document: %w", err)
		}
		// The store may reuse doc after the callback: keep a copy.
		next.ids, next.raw, next.infos = append(next.ids, id), append(next.raw, bytes.Clone(doc)), append(next.infos, in)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	switch {
	case next != nil:
		return next, nil
	case i < len(cur.ids): // documents removed at the end
		return &docs{ids: cur.ids[:i:i], raw: cur.raw[:i:i], infos: cur.infos[:i:i]}, nil
	}
	return cur, nil
}

// liveOf returns the nodes of d live at now, the same *LiveSet as last time
// when the same ones are.
func (r *Registry) liveOf(d *docs, now time.Time) *LiveSet {
	if len(d.infos) > 64 {
		return &LiveSet{Nodes: r.filterLive(d.infos, now)}
	}
	var mask uint64
	for i, in := range d.infos {
		if r.live(in, now) {
			mask |= 1 << i
		}
	}
	if m := d.last.Load(); m != nil && m.mask == mask {
		return m.set
	}
	set := &LiveSet{Nodes: r.filterLive(d.infos, now)}
	d.last.Store(&liveMemo{mask: mask, set: set})
	return set
}

func (r *Registry) filterLive(infos []Info, now time.Time) []Info {
	out := make([]Info, 0, len(infos))
	for _, in := range infos {
		if r.live(in, now) {
			out = append(out, in)
		}
	}
	return out
}

// Get returns a live node, or store.ErrNotFound for an unknown or dead one.
func (r *Registry) Get(ctx context.Context, id string) (Info, error) {
	doc, err := r.st.Get(ctx, Collection, id)
	if err != nil {
		return Info{}, fmt.Errorf("node %s: %w", id, err)
	}
	var in Info
	if err := json.Unmarshal(doc, &in); err != nil {
		return Info{}, fmt.Errorf("node document: %w", err)
	}
	if !r.live(in, r.now()) {
		return Info{}, fmt.Errorf("node %s: %w", id, store.ErrNotFound)
	}
	return in, nil
}

// Address returns a live node's transport address (its publish URI).
func (r *Registry) Address(ctx context.Context, id string) (string, error) {
	in, err := r.Get(ctx, id)
	return in.TransportAddress, err
}

func (r *Registry) live(in Info, now time.Time) bool {
	return now.Sub(in.LastSeen) <= r.opts.NodeTimeout
}

// sweep removes the documents of nodes dead for longer than Grace.
func (r *Registry) sweep(ctx context.Context, now time.Time) error {
	var dead []string
	err := r.st.List(ctx, Collection, func(id string, doc []byte) error {
		var in Info
		if json.Unmarshal(doc, &in) != nil || now.Sub(in.LastSeen) > r.opts.NodeTimeout+r.opts.Grace {
			dead = append(dead, id)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sweep nodes: %w", err)
	}
	var errs []error
	for _, id := range slices.Compact(dead) {
		err := r.st.Delete(ctx, Collection, id)
		r.wrote()
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			errs = append(errs, fmt.Errorf("sweep node %s: %w", id, err))
		}
	}
	return errors.Join(errs...)
}

// LiveIDs returns the ids of the live nodes.
func (r *Registry) LiveIDs(ctx context.Context) ([]string, error) {
	live, err := r.LiveSet(ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(live.Nodes))
	for i, in := range live.Nodes {
		ids[i] = in.NodeID
	}
	return ids, nil
}
