// Package mongo is the MongoDB document store: a store.Store that several
// loggate nodes share.
//
// Each store collection is a MongoDB collection of the same name in one
// database. A stored record is
//
//	{_id: <id>, rev: <int64>, json: <the document>, unique: {<field>: <value>, …}}
//
// json holds the caller's bytes unchanged (a string, or binary data if they
// are not UTF-8), because callers rely on getting back exactly what they
// stored; converting to BSON and back would reorder nothing but would lose
// spacing, escapes and number spelling. unique holds the values of the
// declared unique fields that are non-empty strings, each under a unique
// sparse index: a document without a value has no entry and is not indexed.
// This needs neither partial indexes nor a server that honours sparse ones
// for missing fields in the same way, so it works on MongoDB and on
// wire-compatible servers alike (FerretDB ignores sparse and rejects
// partialFilterExpression, but its unique indexes skip missing fields).
//
// rev makes Update atomic without transactions: a replacement only applies
// to the revision it was computed from, and is retried otherwise.
package mongo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
	"go.mongodb.org/mongo-driver/mongo/readpref"
	"go.mongodb.org/mongo-driver/mongo/writeconcern"
	"go.mongodb.org/mongo-driver/x/mongo/driver/connstring"

	"github.com/loggate/loggate/backend/store"
)

var _ store.Store = (*Store)(nil)

// DefaultDatabase is the database used when the URI names none.
const DefaultDatabase = "loggate"

// DefaultTimeout bounds how long an operation waits for a reachable server
// and for a connection to open: an unreachable server answers within it
// rather than after the driver's 30 s.
const DefaultTimeout = 2 * time.Second

// DefaultOperationTimeout bounds one round trip when the caller's context
// has no deadline, so that a hung server cannot hold a request forever.
const DefaultOperationTimeout = 10 * time.Second

// Store is a store.Store backed by a MongoDB database. Writes use write
// concern majority with journaling unless the URI sets another, so they are
// durable when they return. It is safe for concurrent use.
type Store struct {
	client  *mongo.Client
	db      *mongo.Database
	hosts   string // for messages: the URI's hosts, never its credentials
	opTime  time.Duration
	indexes map[string][]index // by collection
	locks   *locks
}

// Option configures Open.
type Option func(*config)

type config struct {
	database string
	timeout  time.Duration
	opTime   time.Duration
}

// WithDatabase uses the named database instead of the URI's.
func WithDatabase(name string) Option {
	return func(c *config) { c.database = name }
}

// WithTimeout sets the server selection and connect timeout (DefaultTimeout).
// Timeouts set in the URI take precedence.
func WithTimeout(d time.Duration) Option {
	return func(c *config) { c.timeout = d }
}

// Open connects to the MongoDB server or replica set at uri and prepares the
// given unique indexes: indexes declared for the first time are built from
// the stored documents, indexes of loggate no longer declared are dropped.
// The database is the one named in the URI's path, else DefaultDatabase.
// Open fails with store.ErrUnavailable if the server cannot be reached
// within the timeout; errors never contain the URI's credentials.
func Open(ctx context.Context, uri string, indexes []store.Index, opts ...Option) (*Store, error) {
	cfg := config{timeout: DefaultTimeout, opTime: DefaultOperationTimeout}
	for _, o := range opts {
		o(&cfg)
	}
	byColl, err := declare(indexes)
	if err != nil {
		return nil, fmt.Errorf("open MongoDB store: %w", err)
	}
	cs, err := connstring.ParseAndValidate(uri)
	if err != nil {
		return nil, fmt.Errorf("open MongoDB store: invalid URI %s: %w", Redact(uri), redactErr(err, uri))
	}
	if cfg.database == "" {
		cfg.database = cs.Database
	}
	if cfg.database == "" {
		cfg.database = DefaultDatabase
	}
	hosts := strings.Join(cs.Hosts, ",")

	// Defaults first: the URI overrides what it sets.
	co := options.Client().
		SetServerSelectionTimeout(cfg.timeout).
		SetConnectTimeout(cfg.timeout).
		SetAppName("loggate").
		ApplyURI(uri)
	if co.WriteConcern == nil {
		co.SetWriteConcern(writeconcern.Majority())
		co.WriteConcern.Journal = ptr(true)
	}
	client, err := mongo.Connect(ctx, co)
	if err != nil {
		return nil, fmt.Errorf("open MongoDB store at %s: %w", hosts, redactErr(err, uri))
	}
	s := &Store{
		client: client,
		// Callers read their own writes: a secondary named in the URI's
		// read preference may lag behind.
		db:      client.Database(cfg.database, options.Database().SetReadPreference(readpref.Primary())),
		hosts:   hosts,
		opTime:  cfg.opTime,
		indexes: byColl,
		locks:   newLocks(),
	}
	if err := s.prepare(ctx); err != nil {
		_ = client.Disconnect(context.Background())
		return nil, fmt.Errorf("open MongoDB store: %w", redactErr(err, uri))
	}
	return s, nil
}

// Database returns the name of the store's database.
func (s *Store) Database() string { return s.db.Name() }

// Close disconnects from the server, waiting for running operations.
func (s *Store) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), s.opTime)
	defer cancel()
	if err := s.client.Disconnect(ctx); err != nil && !errors.Is(err, mongo.ErrClientDisconnected) {
		return fmt.Errorf("close MongoDB store: %w", err)
	}
	return nil
}

// bound gives ctx the operation timeout unless it has a deadline already.
func (s *Store) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, s.opTime)
}

// checkCollection rejects names MongoDB refuses or treats specially, so that
// the caller gets a clear error rather than the server's.
func checkCollection(coll string) error {
	if coll == "" || strings.ContainsAny(coll, "$\x00") || strings.HasPrefix(coll, "system.") {
		return fmt.Errorf("invalid collection name %q: empty, with $ or NUL, or starting with \"system.\"", coll)
	}
	return nil
}

func ptr[T any](v T) *T { return &v }
