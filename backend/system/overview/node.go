// Package system owns what loggate knows of itself: the node and cluster
// identity, and the /, /cluster and /system resources.
package overview

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"golang.org/x/sys/unix"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/system/nodes"
)

// APIVersion is the Graylog release whose API loggate serves natively. Nodes
// report it as their version, because clients (Sidecar, Terraform providers)
// choose their API dialect from it.
const APIVersion = "4.0.17"

// Codename is the code name of Graylog 4.0.
const Codename = "Noir"

// Tagline is what GET /api/ says.
const Tagline = "Manage your logs in the dark and have lasers going and make it look like you're from space!"

// Build is loggate's build identifier, set at link time
// (-ldflags "-X github.com/loggate/loggate/backend/system/overview.Build=…").
var Build = "dev"

// Node is this node's identity and state.
type Node struct {
	ID         string
	ClusterID  string
	Hostname   string
	Timezone   string
	StartedAt  time.Time
	PublishURI string
	OS         string
	Lifecycle  string

	lb     atomic.Pointer[string] // alive, dead or throttled
	paused atomic.Bool            // message processing paused by an operator
}

// IsProcessing reports whether the node processes messages (not paused).
func (n *Node) IsProcessing() bool { return !n.paused.Load() }

// SetProcessing pauses (false) or resumes (true) message processing; the
// message pipeline reads IsProcessing.
func (n *Node) SetProcessing(on bool) { n.paused.Store(!on) }

// LBStatus returns the status load balancers see.
func (n *Node) LBStatus() string { return *n.lb.Load() }

// SetLBStatus sets it (PUT /system/lbstatus/override/{status}).
func (n *Node) SetLBStatus(s string) { n.lb.Store(&s) }

// Version is the node version in Graylog's <major>.<minor>.<patch>+<build> form.
func Version() string { return APIVersion + "+" + Build }

// Record is the 12-field node record of GET /cluster and GET /system.
type Record struct {
	Facility        string `json:"facility"`
	Codename        string `json:"codename"`
	NodeID          string `json:"node_id"`
	ClusterID       string `json:"cluster_id"`
	Version         string `json:"version"`
	StartedAt       string `json:"started_at"`
	Hostname        string `json:"hostname"`
	Lifecycle       string `json:"lifecycle"`
	LBStatus        string `json:"lb_status"`
	Timezone        string `json:"timezone"`
	OperatingSystem string `json:"operating_system"`
	IsProcessing    bool   `json:"is_processing"`
}

// Record returns the node's record.
func (n *Node) Record() Record {
	return Record{
		Facility: "graylog-server", Codename: Codename, NodeID: n.ID, ClusterID: n.ClusterID,
		Version: Version(), StartedAt: n.StartedAt.UTC().Format("2006-01-02T15:04:05.000Z"),
		Hostname: n.Hostname, Lifecycle: n.Lifecycle, LBStatus: n.LBStatus(), Timezone: n.Timezone,
		OperatingSystem: n.OS, IsProcessing: n.IsProcessing(),
	}
}

// Info is the node's state as the registry publishes it to the cluster.
func (n *Node) Info() nodes.Info {
	r := n.Record()
	return nodes.Info{
		NodeID: n.ID, ClusterID: n.ClusterID, TransportAddress: n.PublishURI, Hostname: n.Hostname,
		StartedAt: n.StartedAt, Lifecycle: r.Lifecycle, LBStatus: r.LBStatus, IsProcessing: r.IsProcessing,
		Version: r.Version, Timezone: r.Timezone, OperatingSystem: r.OperatingSystem,
		Codename: r.Codename, Facility: r.Facility,
	}
}

// NewNode returns this node: its id persists in <dataDir>/node-id (Graylog's
// node_id_file), the cluster id in the document store, so that every node of
// one cluster shares it.
func NewNode(ctx context.Context, dataDir string, st store.Store, timezone, publishURI string, now time.Time) (*Node, error) {
	id, err := nodeID(filepath.Join(dataDir, "node-id"))
	if err != nil {
		return nil, err
	}
	cluster, err := clusterID(ctx, st)
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	n := &Node{
		ID: id, ClusterID: cluster, Hostname: host, Timezone: timezone, StartedAt: now,
		PublishURI: publishURI, OS: operatingSystem(), Lifecycle: "running",
	}
	n.SetLBStatus("alive")
	return n, nil
}

func nodeID(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		if id := strings.TrimSpace(string(b)); id != "" {
			return id, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("node id: %w", err)
	}
	id, err := NewUUID()
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(path, []byte(id+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("node id: %w", err)
	}
	return id, nil
}

const configCollection = "cluster_config"

func clusterID(ctx context.Context, st store.Store) (string, error) {
	fresh, err := NewUUID()
	if err != nil {
		return "", err
	}
	doc := []byte(`{"cluster_id":"` + fresh + `"}`)
	// Insert-or-read: when several nodes start at once, one insert wins and
	// every node reads the winner.
	if err := st.Insert(ctx, configCollection, "cluster_id", doc); err != nil && !errors.Is(err, store.ErrConflict) {
		return "", fmt.Errorf("cluster id: %w", err)
	}
	got, err := st.Get(ctx, configCollection, "cluster_id")
	if err != nil {
		return "", fmt.Errorf("cluster id: %w", err)
	}
	_, rest, _ := bytes.Cut(got, []byte(`"cluster_id":"`))
	id, _, _ := bytes.Cut(rest, []byte(`"`))
	if len(id) == 0 {
		return "", errors.New("cluster id: stored document is malformed")
	}
	return string(id), nil
}

// NewUUID returns a random (version 4) UUID.
func NewUUID() (string, error) {
	u, err := uuid.NewRandom()
	if err != nil {
		return "", fmt.Errorf("uuid: %w", err)
	}
	return u.String(), nil
}

// operatingSystem mirrors Java's "os.name os.version".
func operatingSystem() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return runtime.GOOS
	}
	return unix.ByteSliceToString(u.Sysname[:]) + " " + unix.ByteSliceToString(u.Release[:])
}
