package node

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"golang.org/x/crypto/hkdf"

	"github.com/loggate/loggate/backend/system/loggers"
	"github.com/loggate/loggate/backend/system/metrics"
	"github.com/loggate/loggate/backend/upstream"
	"github.com/loggate/loggate/cmd/loggate/config"
	"github.com/loggate/loggate/compat"
	"github.com/loggate/loggate/router"
)

// NewGateway assembles a node that is a pure compatibility gateway in front
// of the Graylog 4.x API at cfg.UpstreamURI: the router's chain (release
// resolution, compat conversions) in front of a reverse proxy instead of the
// native backend. It authenticates no one and stores nothing: credentials go
// to the upstream, and the compat chain resolves usernames through the
// upstream's API with the caller's credentials, cached in Redis (redis_uri)
// or in process. Releases come from X-API-Version, compat_listeners and
// compat_default_release; pins on access tokens are a native feature.
func NewGateway(ctx context.Context, cfg config.Config, o Options) (n *Node, err error) {
	defaults(&cfg, &o)
	base, err := upstream.ParseBaseURI(cfg.UpstreamURI)
	if err != nil {
		return nil, fmt.Errorf("upstream_uri: %w", err)
	}
	rel, err := parseReleases(cfg)
	if err != nil {
		return nil, err
	}
	reg := metrics.New(o.Now)
	n = &Node{Config: cfg, Metrics: reg, Levels: loggers.New(countedSink(o.LogSink, reg)), pinned: rel.listeners, bound: o.Listeners}
	n.log = n.Levels.Logger("loggate")
	// The named result is nil when an error is returned; close what was
	// opened through a copy.
	built := n
	defer func() {
		if err != nil {
			_ = built.Close()
		}
	}()
	if err := n.webInterface(); err != nil {
		return nil, err
	}
	c, err := n.cache(cfg)
	if err != nil {
		return nil, err
	}
	key, err := lookupKey(cfg.PasswordSecret)
	if err != nil {
		return nil, err
	}
	nodeID, err := newNodeID()
	if err != nil {
		return nil, err
	}
	log := n.Levels.Logger("loggate.upstream")
	transport := upstream.NewTransport(base, upstream.TransportOptions{})
	n.closer = append(n.closer, func() error { transport.CloseIdleConnections(); return nil })
	users := upstream.NewUsers(upstream.UsersOptions{
		Upstream: base, Cache: c, Key: key, Logger: log,
		Client: &http.Client{Transport: transport, Timeout: 10 * time.Second},
	})
	proxy := upstream.NewProxy(upstream.ProxyOptions{
		Upstream: base, Prefix: router.Prefix, Transport: transport, Users: users, NodeID: nodeID, Logger: log,
	})
	var accessLog io.Writer
	if cfg.AccessLog != "" {
		f, err := os.OpenFile(cfg.AccessLog, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("access_log: %w", err)
		}
		n.closer = append(n.closer, f.Close)
		accessLog = f
	}
	// The same changes as a native node. Those that answer old requests
	// from loggate's own stores (the 3.x LDAP settings, the legacy
	// dashboards and saved searches) have no dependency here and answer 404.
	chain := compat.NewChain(router.Prefix, compat.All(compat.Deps{Users: users, Upstream: true})...)
	n.Router = router.New(router.Options{
		Backend: proxy, Chain: chain, DefaultRelease: rel.def, MinRelease: rel.min, AccessLog: accessLog,
		EnableCORS: cfg.HTTPEnableCORS, EnableGzip: cfg.HTTPEnableGzip, MaxBodySize: cfg.HTTPMaxBodySize,
		BaseURI: strings.TrimSuffix(cfg.HTTPPublishURI, "/") + router.Prefix, NodeID: nodeID,
		Metrics: n.Metrics, Logger: n.Levels.Logger("loggate.http"),
	})
	n.handler = upstream.Forward(n.Router)
	n.log.Info("serving as a compatibility gateway", "upstream", base.Redacted())
	return n, nil
}

// releases are the release settings of a node.
type releases struct {
	def, min  compat.Release
	listeners []pinnedListener
}

func parseReleases(cfg config.Config) (r releases, err error) {
	if r.def, err = compat.ParseRelease(cfg.CompatDefaultRelease); err != nil {
		return r, fmt.Errorf("compat_default_release: %w", err)
	}
	if cfg.CompatMinRelease != "" {
		if r.min, err = compat.ParseRelease(cfg.CompatMinRelease); err != nil {
			return r, fmt.Errorf("compat_min_release: %w", err)
		}
	}
	r.listeners = make([]pinnedListener, len(cfg.CompatListeners))
	for i, l := range cfg.CompatListeners {
		rel, err := compat.ParseRelease(l.Release)
		if err != nil {
			return r, fmt.Errorf("compat_listeners: %s: %w", l.Address, err)
		}
		r.listeners[i] = pinnedListener{address: l.Address, release: rel}
	}
	return r, nil
}

// lookupKey returns the key username lookups are cached under: derived from
// password_secret, so that gateways sharing Redis share lookups, else
// random (a gateway keeps no data_dir to remember one in).
func lookupKey(secret string) ([]byte, error) {
	key := make([]byte, 32)
	if secret == "" {
		if _, err := rand.Read(key); err != nil {
			return nil, fmt.Errorf("username cache key: %w", err)
		}
		return key, nil
	}
	if _, err := io.ReadFull(hkdf.New(sha256.New, []byte(secret), []byte("loggate"), []byte("upstream username cache key")), key); err != nil {
		return nil, fmt.Errorf("username cache key: %w", err)
	}
	return key, nil
}

// newNodeID returns a random UUID (version 4), the form of Graylog's node
// ids, for the gateway's own responses.
func newNodeID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("node id: %w", err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}
