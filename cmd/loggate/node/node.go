// Package node assembles one loggate node from its configuration: the
// stores, the services, the authenticator and the router. The binary runs it;
// the HTTP tests start it in a temporary data directory.
package node

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loggate/loggate/backend/system/clusterconfig"
	"github.com/loggate/loggate/backend/system/notifications"
	"github.com/loggate/loggate/backend/system/systemmessages"
	legacyldap "github.com/loggate/loggate/legacy/ldap"
	legacyviews "github.com/loggate/loggate/legacy/views"
	"github.com/loggate/loggate/web/graylog"

	"github.com/redis/go-redis/v9"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/auth/cache"
	"github.com/loggate/loggate/backend/access/authservices"
	"github.com/loggate/loggate/backend/access/roles"
	"github.com/loggate/loggate/backend/access/sessions"
	"github.com/loggate/loggate/backend/access/tokens"
	"github.com/loggate/loggate/backend/access/users"
	"github.com/loggate/loggate/backend/analysis/views"
	"github.com/loggate/loggate/backend/logs/lookup"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/backend/store/mongo"
	"github.com/loggate/loggate/backend/system/apibrowser"
	"github.com/loggate/loggate/backend/system/cluster"
	"github.com/loggate/loggate/backend/system/contentpacks"
	"github.com/loggate/loggate/backend/system/loggers"
	"github.com/loggate/loggate/backend/system/metrics"
	"github.com/loggate/loggate/backend/system/nodes"
	"github.com/loggate/loggate/backend/system/overview"
	"github.com/loggate/loggate/backend/system/sidecars"
	"github.com/loggate/loggate/cmd/loggate/config"
	"github.com/loggate/loggate/compat"
	"github.com/loggate/loggate/router"
	"github.com/loggate/loggate/router/api"
)

// Node is one running loggate node.
type Node struct {
	Config   config.Config
	Store    store.Store
	Router   *router.Router
	Auth     *auth.Authenticator
	Creds    *auth.CredentialCache
	Users    *users.Service
	Roles    *roles.Service
	Tokens   *tokens.Service
	Sessions *sessions.Service
	// AuthServices are the authentication backends (LDAP, Active
	// Directory) and the trusted header settings.
	AuthServices *authservices.Service
	Metrics      *metrics.Registry
	Levels       *loggers.Levels
	Info         *overview.Node
	// Nodes is the cluster's node registry: heartbeats, live nodes and
	// the leader lease.
	Nodes *nodes.Registry
	Resources
	// Messages is the message pipeline: journal, processing, inputs,
	// message store and search.
	Messages Messages
	// Pipelines is the pipeline processor.
	Pipelines Pipelines
	// Lookup are the lookup tables.
	Lookup *lookup.Service
	// Notices are the system notifications and system messages.
	Notices Notices
	// System are the system resources of the web interface's overview,
	// nodes and configuration pages.
	System SystemResources
	// Alerts are the event definitions, notifications and their schedulers.
	Alerts Alerts

	// GeneratedRootPassword is set on the first start without
	// root_password_sha2: the password to print once. Only its hash is kept.
	GeneratedRootPassword string

	log    *slog.Logger
	closer []func() error
	pinned []pinnedListener
	// bound are the sockets Listen bound before New, if the caller did.
	bound *Listeners
	// compatAddrs are the bound addresses of the compat_listeners, in
	// configuration order, once Serve listens.
	compatAddrs atomic.Pointer[[]net.Addr]
	// handler, when set, is served instead of Router (a gateway wraps it).
	handler http.Handler
	// web, when set, serves every path outside the API (web_interface_dir).
	web http.Handler
	// ldap answers the 3.x LDAP API (see legacyLDAPService).
	ldap     *legacyldap.Service
	ldapOnce sync.Once
}

// pinnedListener is one of compat_listeners.
type pinnedListener struct {
	address string
	release compat.Release
}

// CompatAddrs returns the bound addresses of the compat_listeners, in
// configuration order (nil before Serve listens).
func (n *Node) CompatAddrs() []net.Addr {
	if p := n.compatAddrs.Load(); p != nil {
		return *p
	}
	return nil
}

// Options are the parts of a node that are not configuration.
type Options struct {
	// LogSink receives loggate's own log records; default: text on stderr.
	LogSink slog.Handler
	Now     func() time.Time
	// Store, when set, is the document store to use instead of the one the
	// configuration names; the caller closes it. Tests run several nodes of
	// one cluster in one process on a shared store this way.
	Store store.Store
	// MessageFault, when set, makes the embedded message store fail its
	// writes while it returns an error: the outage tests' failing disk.
	MessageFault func() error
	// ElasticNamespace, when set, prefixes every index name the
	// Elasticsearch store uses, so tests sharing one server stay apart.
	ElasticNamespace string
	// Listeners, when set, are the sockets Serve serves on, bound by Listen
	// before anything was opened; otherwise Serve binds them itself.
	Listeners *Listeners
}

// Indexes are the unique indexes every document store of a node needs.
func Indexes() []store.Index {
	return slices.Concat(users.Indexes, roles.Indexes, tokens.Indexes, configIndexes())
}

// defaults fills in what a node and a gateway assume when not given.
func defaults(cfg *config.Config, o *Options) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.LogSink == nil {
		o.LogSink = loggers.NewTextSink(os.Stderr)
	}
	if cfg.HTTPPublishURI == "" {
		cfg.HTTPPublishURI = "http://" + cfg.HTTPBindAddress + "/"
	}
	if o.Listeners != nil {
		if uri, ok := boundURI(cfg.HTTPPublishURI, o.Listeners.Addr()); ok {
			cfg.HTTPPublishURI = uri
		}
	}
	if cfg.JournalDir == "" {
		cfg.JournalDir = filepath.Join(cfg.DataDir, "journal")
	}
}

// countedSink counts what the node logs in log4j's appender meters, which
// Graylog's logging page shows.
func countedSink(sink slog.Handler, reg *metrics.Registry) slog.Handler {
	return loggers.CountRecords(sink, func(name string) loggers.Marker { return reg.Meter(name) })
}

// New assembles a node. Nothing listens until Serve.
func New(ctx context.Context, cfg config.Config, o Options) (n *Node, err error) {
	defaults(&cfg, &o)
	rel, err := parseReleases(cfg)
	if err != nil {
		return nil, err
	}
	reg := metrics.New(o.Now)
	// The last records logged are kept for /system/loggers/messages/recent.
	recent := loggers.NewRecent(loggers.DefaultRecent)
	n = &Node{Config: cfg, Metrics: reg, Levels: loggers.New(recent.Tee(countedSink(o.LogSink, reg))), pinned: rel.listeners, bound: o.Listeners}
	n.Levels.KeepRecent(recent)
	n.log = n.Levels.Logger("loggate")
	// A failed start releases what it opened; the named result is nil by
	// then, so the node is kept aside.
	built := n
	defer func() {
		if err != nil {
			_ = built.Close()
		}
	}()
	// Checked before anything is opened: a wrong path stops the start.
	if err := n.webInterface(); err != nil {
		return nil, err
	}
	keys, err := n.openStore(ctx, o)
	if err != nil {
		return nil, err
	}
	if err := n.openAuth(ctx, keys, o); err != nil {
		return nil, err
	}
	routes, err := n.routes(ctx, o)
	if err != nil {
		return nil, err
	}
	if err := n.openRouter(routes, rel); err != nil {
		return nil, err
	}
	return n, nil
}

// openStore makes data_dir, derives the keys from password_secret and
// opens the document store (unless the options bring one).
func (n *Node) openStore(ctx context.Context, o Options) (*auth.Keys, error) {
	cfg := n.Config
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("data_dir: %w", err)
	}
	if err := private(cfg.DataDir); err != nil {
		// Not fatal: the node works, and the operator is told.
		n.log.Warn("could not make everything under data_dir private to the service", "error", err)
	}
	secret, err := passwordSecret(cfg)
	if err != nil {
		return nil, err
	}
	// The effective value, so that the configuration logged at start shows
	// one is in use (masked) rather than an empty key.
	n.Config.PasswordSecret = secret
	st := o.Store
	if st == nil {
		if st, err = openStore(ctx, cfg, Indexes()); err != nil {
			return nil, err
		}
		n.closer = append(n.closer, st.Close)
	}
	n.Store = st
	return auth.DeriveKeys(secret), nil
}

// openAuth builds who may do what: the credential cache, roles, users,
// tokens, sessions, authentication backends and the authenticator.
func (n *Node) openAuth(ctx context.Context, keys *auth.Keys, o Options) error {
	cfg, st := n.Config, n.Store
	c, err := n.cache(cfg)
	if err != nil {
		return err
	}
	authLog := n.Levels.Logger("loggate.auth")
	creds := auth.NewCredentialCache(c, keys, auth.CacheOptions{
		Hits:     n.Metrics.Counter("loggate.auth.cache.hits"),
		Misses:   n.Metrics.Counter("loggate.auth.cache.misses"),
		Failures: n.Metrics.Counter("loggate.auth.cache.failures"),
		Logger:   authLog,
	})
	if n.Roles, err = roles.NewService(ctx, st); err != nil {
		return err
	}
	rootHash, err := n.rootPasswordHash(ctx, cfg)
	if err != nil {
		return err
	}
	n.Users = users.NewService(users.Options{
		Store: st, Roles: n.Roles, Invalidator: creds, Names: creds,
		Root: users.Root{Username: cfg.RootUsername, PasswordHash: rootHash, Timezone: cfg.RootTimezone},
	})
	if err := n.Users.EnsureBuiltin(ctx, users.SidecarUser); err != nil {
		return err
	}
	n.Tokens = tokens.NewService(st, keys, creds, o.Now, authLog)
	n.Sessions = sessions.NewService(st, keys, creds, o.Now, authLog)
	n.Users.SetSessions(n.Sessions)
	n.Users.AddDependent(n.Tokens)
	n.Users.AddDependent(n.Sessions)
	n.Creds = creds
	n.AuthServices = authservices.NewService(st, keys.Sealer(SystemPasswordPurpose), roleLookup{n.Roles}, o.Now)
	n.AuthServices.SetUsers(backendUsers{n.Users})
	n.AuthServices.SetLoginCache(creds)
	n.Auth = auth.New(auth.Options{
		Cache: creds, Directory: n.Users, Tokens: n.Tokens, Sessions: n.Sessions, Now: o.Now,
		External:     directoryLogin{backends: n.AuthServices, users: n.Users, log: authLog},
		RootUsername: cfg.RootUsername, RootPasswordHash: rootHash,
	})
	return nil
}

// routes opens the node's resources, the message pipeline among them, and
// returns the route table.
func (n *Node) routes(ctx context.Context, o Options) ([]api.Route, error) {
	cfg, st := n.Config, n.Store
	var err error
	if n.Info, err = overview.NewNode(ctx, cfg.DataDir, st, cfg.RootTimezone, cfg.HTTPPublishURI, o.Now()); err != nil {
		return nil, err
	}
	_, embedded := st.(*bolt.Store) // one process holds it open
	n.Nodes = nodes.New(st, o.Now, n.Info.Info, nodes.Options{Exclusive: embedded})
	config, err := n.configResources(ctx, st, o.Now)
	if err != nil {
		return nil, err
	}
	// The cluster configuration first: the lookup adapters ask its URL
	// whitelist from their first load on.
	if n.System.ClusterConfig, err = clusterconfig.NewService(ctx, st); err != nil {
		return nil, err
	}
	sidecarService, err := sidecars.NewService(ctx, st, n.System.ClusterConfig, o.Now)
	if err != nil {
		return nil, err
	}
	n.System.Sidecars = sidecarService
	lookupRoutes, err := n.lookupTables(ctx, st, o.Now)
	if err != nil {
		return nil, err
	}
	pipelineRoutes, err := n.pipelineResources(ctx, st, o.Now)
	if err != nil {
		return nil, err
	}
	messageRoutes, err := n.messagePipeline(ctx, cfg, o)
	if err != nil {
		return nil, err
	}
	n.openNotices(o.Now)
	systemRoutes, err := n.systemResources(ctx, st, o.Now)
	if err != nil {
		return nil, err
	}
	inputRoutes, err := n.inputProcessing(ctx, st, o.Now)
	if err != nil {
		return nil, err
	}
	// The alerts before the content packs, which install event
	// definitions and notifications.
	alertsFirst, alertRoutes := n.openAlerts(o.Now)
	contentPacks := contentpacks.NewHandler(contentpacks.NewService(st, contentpacks.Deps{
		Grok: n.Grok, Streams: n.Streams, IndexSets: n.IndexSets, Inputs: n.Inputs, Extractors: n.Extractors,
		ForgetInput: n.InputStates.Forget, Lookup: n.Lookup, Pipelines: n.Pipelines.Service,
		EventDefinitions: n.Alerts.Definitions, Notifications: n.Alerts.Notify, Owners: n.Alerts.Owners,
		Views: n.Views, ViewSearches: views.NewSearches(st, n.Views, o.Now), LegacyDashboards: legacyviews.PackDashboards{},
		Outputs: n.Outputs, URLWhitelist: n.System.ClusterConfig, Sidecars: sidecarService,
	}, o.Now))
	local := slices.Concat(n.Levels.Routes(), n.Metrics.Routes(), n.Messages.Journal.Routes())
	roleHandler := roles.NewHandler(n.Roles, n.Users)
	// The browser documents the routes only compatibility serves too.
	browser := apibrowser.New(func() []api.Route { return n.Router.Routes() }).WithCompat(compat.Documented(compat.All(compat.Deps{})))
	var routes []api.Route
	for _, rs := range [][]api.Route{
		alertsFirst,
		overview.NewHandler(n.Info, o.Now).SetRegistry(n.Nodes).Routes(),
		cluster.NewHandler(n.Info.ID, local).SetPeers(n.Nodes, nil, 0).Routes(),
		sessions.NewHandler(n.Sessions, n.Auth, o.Now).Routes(),
		users.NewHandler(n.Users, n.Roles).Routes(),
		tokens.NewHandler(n.Tokens, n.Users, func(s string) (string, error) {
			r, err := compat.ParseRelease(s)
			return r.String(), err
		}).Routes(),
		roleHandler.Routes(),
		roleHandler.AuthzRoutes(),
		authservices.NewHandler(n.AuthServices).Routes(),
		local,
		config,
		pipelineRoutes,
		lookupRoutes,
		sidecars.NewHandler(sidecarService).Routes(),
		messageRoutes,
		notifications.NewHandler(n.Notices.Notifications).Routes(),
		systemmessages.NewHandler(n.Notices.Messages).Routes(),
		systemRoutes,
		inputRoutes,
		contentPacks.Routes(),
		alertRoutes,
		browser.Routes(),
		interfaceRoutes(cfg.AccessLog, o.Now),
	} {
		routes = append(routes, rs...)
	}
	routes = append(routes, n.clusterSystemRoutes(routes)...)
	return routes, nil
}

// openRouter puts the compat chain and the middleware in front of routes.
func (n *Node) openRouter(routes []api.Route, rel releases) error {
	cfg := n.Config
	proxies, err := auth.ParseTrustedProxies(cfg.TrustedProxies)
	if err != nil {
		return fmt.Errorf("trusted_proxies: %w", err)
	}
	var accessLog io.Writer
	if cfg.AccessLog != "" {
		f, err := os.OpenFile(cfg.AccessLog, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("access_log: %w", err)
		}
		n.closer = append(n.closer, f.Close)
		accessLog = f
	}
	chain := compat.NewChain(router.Prefix, compat.All(compat.Deps{
		Users: userResolver{n.Users}, LegacyViews: n.legacyViews(), LegacyLDAP: n.legacyLDAP(), IndexSets: n.IndexSets,
		AuthenticationConfig: n.authenticationConfig(), LegacyAlerts: legacyMigration{},
	})...)
	n.Router = router.New(router.Options{
		Routes: routes, Auth: n.Auth, Chain: chain, DefaultRelease: rel.def, MinRelease: rel.min, AccessLog: accessLog,
		TrustedHeader: auth.NewHeaderAuth(n.Auth, proxies, n.AuthServices),
		EnableCORS:    cfg.HTTPEnableCORS, EnableGzip: cfg.HTTPEnableGzip, MaxBodySize: cfg.HTTPMaxBodySize,
		BaseURI: strings.TrimSuffix(cfg.HTTPPublishURI, "/") + router.Prefix, NodeID: n.Info.ID,
		Metrics: n.Metrics, Logger: n.Levels.Logger("loggate.http"),
	})
	return nil
}

func (n *Node) cache(cfg config.Config) (auth.Cache, error) {
	if cfg.RedisURI == "" {
		if cfg.MongoDBURI != "" {
			// Another node's cache would keep a token, session or
			// password this node revokes working for its lifetime.
			n.Levels.Logger("loggate.auth").Warn("mongodb_uri is set without redis_uri: if other nodes share the store, " +
				"a token, session or password revoked on one node keeps working on the others for up to 10 minutes; " +
				"set the same redis_uri on every node of a cluster")
		}
		return cache.NewMemory(100_000, time.Now), nil
	}
	opts, err := redis.ParseURL(cfg.RedisURI)
	if err != nil {
		return nil, fmt.Errorf("redis_uri: %w", err)
	}
	// Short timeouts and no retries: when Redis is away, authentication
	// falls back to the store rather than waiting.
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = 500*time.Millisecond, 250*time.Millisecond, 250*time.Millisecond
	opts.MaxRetries = -1
	// One dial attempt: go-redis otherwise retries a refused dial five
	// times 100 ms apart, stalling every request that probes a Redis
	// that is down for 400 ms.
	opts.DialerRetries = 1
	redisLogger.once.Do(func() { redis.SetLogger(redisLogger) })
	redisLogger.set(n.Levels.Logger("loggate.auth.redis"))
	client := redis.NewClient(opts)
	n.closer = append(n.closer, client.Close)
	return cache.NewRedis(client, "loggate:"), nil
}

// storeEngine names the document store for /system/cluster/stats/mongo.
func (n *Node) storeEngine() string {
	if n.Config.MongoDBURI != "" {
		return "mongodb"
	}
	return "bbolt"
}

// openStore opens the document store: MongoDB when mongodb_uri is set (the
// store of a cluster), else the embedded file in data_dir.
func openStore(ctx context.Context, cfg config.Config, indexes []store.Index) (store.Store, error) {
	if cfg.MongoDBURI != "" {
		st, err := mongo.Open(ctx, cfg.MongoDBURI, indexes)
		if err != nil {
			return nil, fmt.Errorf("mongodb_uri: %w", err)
		}
		return st, nil
	}
	return bolt.Open(filepath.Join(cfg.DataDir, "loggate.db"), indexes)
}

// redisLogger routes go-redis' own messages (which it prints through a
// process-wide logger) to loggate's logging at debug level, instead of
// stderr.
var redisLogger = &redisLog{}

type redisLog struct {
	once sync.Once
	l    atomic.Pointer[slog.Logger]
}

func (r *redisLog) set(l *slog.Logger) { r.l.Store(l) }

func (r *redisLog) Printf(ctx context.Context, format string, v ...any) {
	if l := r.l.Load(); l != nil {
		l.DebugContext(ctx, fmt.Sprintf(format, v...))
	}
}

// passwordSecret returns password_secret, or the one generated on the first
// start and kept in data_dir.
func passwordSecret(cfg config.Config) (string, error) {
	if cfg.PasswordSecret != "" {
		return cfg.PasswordSecret, nil
	}
	path := filepath.Join(cfg.DataDir, "password-secret")
	b, err := os.ReadFile(path)
	if err == nil {
		// Never replaced: every stored token is encrypted under it.
		if secret := strings.TrimSpace(string(b)); len(secret) >= 16 {
			return secret, nil
		}
		return "", fmt.Errorf("password secret in %s is shorter than 16 characters; restore it or set password_secret", path)
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("password secret: %w", err)
	}
	secret, err := randomString(64)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(path, []byte(secret+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("password secret: %w", err)
	}
	return secret, nil
}

const settingsCollection = "settings"

// rootPasswordHash returns the root user's password hash: from
// root_password_sha2, or the bcrypt hash of a password generated on the first
// start (the password itself is kept only in GeneratedRootPassword).
func (n *Node) rootPasswordHash(ctx context.Context, cfg config.Config) (string, error) {
	if cfg.RootPasswordSHA2 != "" {
		return auth.RootPasswordHash(cfg.RootPasswordSHA2), nil
	}
	doc, err := n.Store.Get(ctx, settingsCollection, "root_password")
	if err == nil {
		var s struct {
			Hash string `json:"hash"`
		}
		if err := json.Unmarshal(doc, &s); err != nil {
			return "", fmt.Errorf("stored root password is unreadable: %w", err)
		}
		if s.Hash == "" {
			return "", errors.New("stored root password is empty; delete data_dir or set root_password_sha2")
		}
		return s.Hash, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return "", err
	}
	pw, err := randomString(20)
	if err != nil {
		return "", err
	}
	hash, err := auth.HashPassword(pw)
	if err != nil {
		return "", err
	}
	doc, _ = json.Marshal(map[string]string{"hash": hash})
	if err := n.Store.Insert(ctx, settingsCollection, "root_password", doc); err != nil {
		return "", err
	}
	n.GeneratedRootPassword = pw
	return hash, nil
}

const alphabet = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"

func randomString(n int) (string, error) {
	b := make([]byte, n)
	for i := range b {
		k, err := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		if err != nil {
			return "", err
		}
		b[i] = alphabet[k.Int64()]
	}
	return string(b), nil
}

// Background runs the node's periodic work (heartbeats and the leader lease,
// writing token and session uses, purging expired sessions) until ctx ends;
// the node then deregisters from the cluster. The returned function waits until
// that work, including its final flush, is done.
func (n *Node) Background(ctx context.Context) (wait func()) {
	var wg sync.WaitGroup
	if n.Nodes != nil { // a gateway is no node of the cluster
		// The first beat before anything listens: a node answers /cluster
		// with itself in it from its first request.
		if err := n.Nodes.Beat(ctx); err != nil {
			n.log.Warn("node heartbeat failed", "error", err)
		}
		wg.Go(func() {
			n.Nodes.Run(ctx, func(err error) { n.log.Warn("node heartbeat failed", "error", err) })
		})
	}
	if n.Tokens != nil { // a gateway has neither
		wg.Go(func() { n.Tokens.Run(ctx, 500*time.Millisecond) })
		wg.Go(func() { n.Sessions.Run(ctx, 500*time.Millisecond, 5*time.Minute) })
	}
	if n.Streams != nil { // a gateway keeps none
		wg.Go(func() { n.refreshShared(ctx) })
	}
	n.runMessages(ctx, &wg)
	n.watchNotices(ctx, &wg)
	n.runTraffic(ctx, &wg)
	n.runSidecars(ctx, &wg)
	n.runAlerts(ctx, &wg)
	return wg.Wait
}

// sharedRefreshInterval is how often refreshShared runs; each service asks
// the store at most once a second however often it runs.
const sharedRefreshInterval = 200 * time.Millisecond

// refreshShared keeps what this node holds in memory of documents every
// node may change current even when nothing here asks for it: the
// streams, which searches, alerts, outputs and the pipeline connections
// read without refreshing them, and the grok patterns, which saving a rule
// or an extractor compiles against. Their own requests and messages
// refresh them too.
func (n *Node) refreshShared(ctx context.Context) {
	type refresher interface{ Refresh(context.Context) error }
	all := []refresher{n.Streams}
	if n.Grok != nil {
		all = append(all, n.Grok)
	}
	if n.Pipelines.Service != nil {
		all = append(all, n.Pipelines.Service)
	}
	if n.Lookup != nil {
		all = append(all, n.Lookup)
	}
	t := time.NewTicker(sharedRefreshInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, r := range all {
			if err := r.Refresh(ctx); err != nil && ctx.Err() == nil {
				n.log.Debug("checking for other nodes' changes failed", "error", err)
			}
		}
	}
}

// Serve listens on http_bind_address until ctx ends, then shuts down
// gracefully. ready, when not nil, receives the bound address.
func (n *Node) Serve(ctx context.Context, ready func(addr net.Addr)) error {
	bound := n.bound
	if bound == nil {
		var err error
		if bound, err = Listen(n.Config); err != nil {
			return err
		}
	}
	ln := bound.api
	servers := []*http.Server{n.server(nil)}
	listeners := []net.Listener{ln}
	addrs := make([]net.Addr, 0, len(n.pinned))
	for i, p := range n.pinned {
		pl := bound.compat[i]
		listeners = append(listeners, pl)
		servers = append(servers, n.server(&p.release))
		addrs = append(addrs, pl.Addr())
		n.log.Info("listening for clients of an older API release", "address", pl.Addr().String(), "release", p.release.String())
	}
	n.compatAddrs.Store(&addrs)
	n.publishBound(ln.Addr())
	bg, stop := context.WithCancel(ctx)
	wait := n.Background(bg)
	// Uses recorded in memory are written (by the background work's final
	// flush) before Serve returns and the store can be closed.
	defer wait()
	defer stop()
	if ready != nil {
		ready(ln.Addr())
	}
	errc := make(chan error, len(servers))
	for i, srv := range servers {
		go func() { errc <- srv.Serve(listeners[i]) }()
	}
	select {
	case err := <-errc:
		n.shutdown(ctx, servers)
		return err
	case <-ctx.Done():
	}
	return n.shutdown(ctx, servers)
}

// server returns an HTTP server for the node's router; a release, when
// given, is pinned on every request it serves (compat_listeners).
func (n *Node) server(release *compat.Release) *http.Server {
	srv := &http.Server{
		Handler:           n.served(),
		ReadHeaderTimeout: 10 * time.Second,
		// A client trickling a request body ties up a connection only
		// this long.
		ReadTimeout: time.Minute,
		IdleTimeout: 2 * time.Minute,
		ErrorLog:    slog.NewLogLogger(n.Levels.Logger("loggate.http").Handler(), slog.LevelDebug),
	}
	if release != nil {
		rel := *release
		srv.BaseContext = func(net.Listener) context.Context {
			return compat.WithListenerRelease(context.Background(), rel)
		}
	}
	return srv
}

// served is the handler the node's servers serve: the API under /api, and
// the web interface, when there is one, everywhere else.
func (n *Node) served() http.Handler {
	var api http.Handler = n.Router
	if n.handler != nil {
		api = n.handler
	}
	if n.web == nil {
		return api
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; p == router.Prefix || strings.HasPrefix(p, router.Prefix+"/") {
			api.ServeHTTP(w, r)
			return
		}
		n.web.ServeHTTP(w, r)
	})
}

// webInterface opens web_interface_dir, if set; else loggate's own.
func (n *Node) webInterface() error {
	if n.Config.WebInterfaceDir == "" {
		return n.ownInterface()
	}
	h, err := graylog.New(graylog.Options{
		Dir:          n.Config.WebInterfaceDir,
		APIURL:       func() string { return strings.TrimSuffix(n.Config.HTTPPublishURI, "/") + router.Prefix + "/" },
		RootTimeZone: n.Config.RootTimezone,
	})
	if err != nil {
		return err
	}
	n.web = h
	return nil
}

// shutdown stops every server gracefully, within ten seconds.
func (n *Node) shutdown(ctx context.Context, servers []*http.Server) error {
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	var errs []error
	for _, srv := range servers {
		errs = append(errs, srv.Shutdown(shutdown))
	}
	return errors.Join(errs...)
}

// publishBound replaces a port 0 in the publish URI (derived from a bind
// address of port 0) with the port the listener got, so that Location and
// Link headers and transport_address point somewhere real.
func (n *Node) publishBound(addr net.Addr) {
	uri, ok := boundURI(n.Config.HTTPPublishURI, addr)
	if !ok {
		return
	}
	n.Config.HTTPPublishURI = uri
	if n.Info != nil {
		n.Info.PublishURI = uri
	}
	n.Router.SetBaseURI(strings.TrimSuffix(uri, "/") + router.Prefix)
}

// boundURI is uri with its port 0 replaced by addr's port; false when uri
// names a real port already.
func boundURI(uri string, addr net.Addr) (string, bool) {
	u, err := url.Parse(uri)
	tcp, ok := addr.(*net.TCPAddr)
	if err != nil || !ok || u.Port() != "0" {
		return "", false
	}
	u.Host = net.JoinHostPort(u.Hostname(), strconv.Itoa(tcp.Port))
	return u.String(), true
}

// Close releases the node's stores and connections.
func (n *Node) Close() error {
	var errs []error
	for i := len(n.closer) - 1; i >= 0; i-- {
		errs = append(errs, n.closer[i]())
	}
	n.closer = nil
	return errors.Join(errs...)
}

// userResolver adapts the user service to what compat needs.
type userResolver struct{ users *users.Service }

// IDByUsername answers an unknown user with compat's NotFound.
func (u userResolver) IDByUsername(ctx context.Context, name string) (string, error) {
	id, err := u.users.IDByUsername(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return "", api.Wrap(api.NotFound, err.Error(), err)
	}
	return id, err
}

// IsUserID reports whether s is an existing user's id. When the store cannot
// answer, it says yes: the request then goes on unconverted and meets the
// same store error in the backend, which answers it properly.
func (u userResolver) IsUserID(ctx context.Context, s string) bool {
	_, err := u.users.UsernameByID(ctx, s) // cheaper than the whole user
	return !errors.Is(err, store.ErrNotFound)
}

// private takes the group's and others' permissions off everything under
// dir: messages, secrets and the journal are the service's alone. What is
// created now is created so; this mends what older versions left readable.
func private(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if mode := info.Mode().Perm(); mode&0o077 != 0 {
			return os.Chmod(path, mode&^0o077)
		}
		return nil
	})
}
