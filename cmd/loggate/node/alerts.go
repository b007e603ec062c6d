package node

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/backend/access/shares"
	"github.com/loggate/loggate/backend/alerts/definitions"
	"github.com/loggate/loggate/backend/alerts/entity"
	"github.com/loggate/loggate/backend/alerts/events"
	"github.com/loggate/loggate/backend/alerts/legacy"
	"github.com/loggate/loggate/backend/alerts/notify"
	"github.com/loggate/loggate/backend/alerts/scheduler"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/system/clusterconfig"
	"github.com/loggate/loggate/backend/system/overview"
	"github.com/loggate/loggate/router/api"
)

// Alerts are a node's events and alerts: event definitions, notifications,
// and the two schedulers that run on the leader only — one processes the
// definitions' windows, the other delivers notifications, so that a slow
// mail server never holds up the definitions.
type Alerts struct {
	Definitions *definitions.Service
	Processor   *definitions.Processor
	Notify      *notify.Service
	Deliverer   *notify.Deliverer
	// Events runs the event-processor-execution-v1 triggers, Deliveries
	// the notification-execution-v1 ones; both over one store, through
	// the same compare-and-set.
	Events     *scheduler.Scheduler
	Deliveries *scheduler.Scheduler
	// Owners records who created each definition and notification.
	Owners entity.Owners
	// Legacy are the 2.x/3.0 stream alert conditions and alarm callbacks;
	// LegacyChecker evaluates the conditions, only with
	// enable_legacy_alerts (nil without).
	Legacy        *legacy.Service
	LegacyChecker *legacy.Checker
}

// newID makes ObjectId-like ids, as Graylog's documents have.
func newID() string { return primitive.NewObjectID().Hex() }

// openAlerts builds the alerts and returns the events routes (the listings
// and the event search), the definitions', the notifications', the
// scheduler's and the legacy alerting's; first are the routes that must
// come before /streams/{streamId}. It runs after the message pipeline,
// whose search and store the event processor uses.
func (n *Node) openAlerts(now func() time.Time) (first, routes []api.Route) {
	a := &n.Alerts
	st := n.Store
	onErr := func(err error) { n.log.Warn("alerts scheduler", "error", err) }
	a.Events = scheduler.New(st, now, n.Info.ID, n.Nodes.IsLeader, newID,
		scheduler.Options{Only: []string{definitions.TypeExecutionJob}, OnError: onErr})
	a.Deliveries = scheduler.New(st, now, n.Info.ID, n.Nodes.IsLeader, newID,
		scheduler.Options{Only: []string{notify.TypeExecutionJob}, OnError: onErr})
	a.Definitions = definitions.NewService(st, a.Events)
	a.Owners = entity.Owners{St: st, Now: now}
	a.Notify = notify.NewService(st, a.Events, a.Definitions)
	host, _ := os.Hostname()
	a.Processor = definitions.NewProcessor(a.Definitions, n.Messages.Search, eventWriter{n}, a.Notify, n.messageStreams, now, host, n.processorOptions(now))
	cfg := n.Config.Email
	a.Deliverer = &notify.Deliverer{
		HTTP:    &http.Client{Timeout: 10 * time.Second},
		Allowed: urlAllowList{n}, Users: userEmails{n}, Streams: streamDocs{n}, UserAgent: "loggate/" + overview.Build,
		Email: notify.EmailConfig{Enabled: cfg.Enabled, Hostname: cfg.Hostname, Port: cfg.Port, UseAuth: cfg.UseAuth,
			Username: cfg.Username, Password: cfg.Password, UseTLS: cfg.UseTLS, UseSSL: cfg.UseSSL, FromEmail: cfg.FromEmail,
			SubjectPrefix: cfg.SubjectPrefix, WebInterfaceURL: cfg.WebInterfaceURL,
			ConnectTimeout: cfg.ConnectTimeout, SocketTimeout: cfg.SocketTimeout},
	}
	a.Events.Register(definitions.TypeExecutionJob, a.Processor)
	a.Deliveries.Register(notify.TypeExecutionJob,
		notify.NewJob(a.Notify, a.Definitions, a.Processor, a.Deliverer, n.Notices.Notifications, now))

	a.Legacy = legacy.NewService(st, n.Streams, a.Definitions, a.Notify, now, n.Config.AlertCheckInterval)

	evs := events.NewHandler(alertSource{a}, now).SetSearch(&events.Searching{
		Store: n.Messages.Store, Prefixes: n.eventPrefixes, Stream: n.streamTitle})
	checker := legacy.NewChecker(a.Legacy, n.Messages.Search, a.Deliverer, onErr)
	if n.Config.EnableLegacyAlerts {
		a.LegacyChecker = checker
	}
	first, old := legacy.NewHandler(a.Legacy, checker, onErr).Routes()
	return first, slices.Concat(evs.Routes(),
		definitions.NewHandler(a.Definitions, a.Processor, a.Owners).Routes(),
		notify.NewHandler(a.Notify, a.Deliverer, now, a.Owners).Routes(),
		scheduler.NewHandler(a.Events).Routes(), old)
}

// legacyMigration is compat's view of the legacy alerting.
type legacyMigration struct{}

func (legacyMigration) MigrateNow(ctx context.Context) context.Context { return legacy.MigrateNow(ctx) }

// runAlerts runs the schedulers until ctx ends; they work while this node
// holds the leader lease.
func (n *Node) runAlerts(ctx context.Context, wg *sync.WaitGroup) {
	if n.Alerts.Events == nil {
		return
	}
	wg.Go(func() {
		// Graylog 4.0 migrates the legacy conditions and callbacks at every
		// start; here the leader does, once it leads.
		for ctx.Err() == nil && !n.Nodes.IsLeader() {
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
		if ctx.Err() == nil {
			if err := n.Alerts.Legacy.MigrateAll(ctx); err != nil {
				n.log.Warn("migrating legacy alert conditions", "error", err)
			}
		}
	})
	wg.Go(func() { n.Alerts.Events.Run(ctx) })
	wg.Go(func() { n.Alerts.Deliveries.Run(ctx) })
	if c := n.Alerts.LegacyChecker; c != nil {
		wg.Go(func() { c.Run(ctx, n.Nodes.IsLeader) })
	}
}

// messageStreams are the ids of the streams that hold messages, the
// events streams left out: what a definition without streams searches.
func (n *Node) messageStreams() []string {
	var out []string
	for _, s := range n.Streams.All() {
		if s.ID != streams.EventsStreamID && s.ID != streams.SystemEventsStreamID {
			out = append(out, s.ID)
		}
	}
	return out
}

func (n *Node) streamTitle(id string) (title, description string, ok bool) {
	for _, s := range n.Streams.All() {
		if s.ID == id {
			if s.Description != nil {
				description = *s.Description
			}
			return s.Title, description, true
		}
	}
	return "", "", false
}

// eventPrefixes are the index prefixes of the events and system events
// index sets.
func (n *Node) eventPrefixes(ctx context.Context) ([]string, error) {
	evID, sysID, err := n.IndexSets.Builtin(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, id := range []string{evID, sysID} {
		if id == "" {
			continue
		}
		is, err := n.IndexSets.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, is.IndexPrefix)
	}
	return out, nil
}

// eventWriter stores events in the events index set and makes them
// durable before the firing that made them is recorded: a firing recorded
// is never a firing whose events a crash can lose.
type eventWriter struct{ n *Node }

func (w eventWriter) WriteEvents(ctx context.Context, evs []events.Event) error {
	prefixes, err := w.n.eventPrefixes(ctx)
	if err != nil {
		return err
	}
	if len(prefixes) == 0 {
		return errors.New("no events index set")
	}
	docs := make([]messages.Message, len(evs))
	for i, ev := range evs {
		docs[i] = ev.Document()
	}
	ms := w.n.Messages.Store
	if err := ms.Write(ctx, prefixes[0], docs); err != nil {
		return err
	}
	// The journal's checkpoint stays where the message processor put it;
	// if the processor flushes a later one meanwhile, the older one here
	// only makes a restart replay a few journal records, which rewrite
	// the same messages.
	return ms.Flush(ctx, ms.Checkpoint())
}

// alertSource is the events listings' Source over the alerts.
type alertSource struct{ a *Alerts }

func (s alertSource) Definitions(ctx context.Context) ([]events.Entity, error) {
	all, err := s.a.Definitions.All(ctx)
	if err != nil {
		return nil, err
	}
	owners, err := s.a.Owners.Owned(ctx, entity.TypeDefinition)
	if err != nil {
		return nil, err
	}
	out := make([]events.Entity, len(all))
	for i, d := range all {
		doc, err := api.Marshal(d)
		if err != nil {
			return nil, err
		}
		out[i] = events.Entity{ID: d.ID, Title: d.Title, Description: d.Description, Doc: doc, Owner: owners[d.ID]}
	}
	return out, nil
}

func (s alertSource) Notifications(ctx context.Context) ([]events.Entity, error) {
	all, err := s.a.Notify.All(ctx)
	if err != nil {
		return nil, err
	}
	owners, err := s.a.Owners.Owned(ctx, entity.TypeNotification)
	if err != nil {
		return nil, err
	}
	out := make([]events.Entity, len(all))
	for i, nt := range all {
		doc, err := api.Marshal(nt)
		if err != nil {
			return nil, err
		}
		out[i] = events.Entity{ID: nt.ID, Title: nt.Title, Description: nt.Description, Doc: doc, Owner: owners[nt.ID]}
	}
	return out, nil
}

func (s alertSource) SchedulerContext(ctx context.Context, ids []string) (map[string]any, error) {
	return s.a.Definitions.SchedulerContext(ctx, ids)
}

// ownedAlerts are the event definitions and notifications with the users
// their grants make owners (/authz/shares/user/{userId}).
func (n *Node) ownedAlerts(ctx context.Context) ([]shares.Entity, error) {
	src := alertSource{&n.Alerts}
	var out []shares.Entity
	for _, kind := range []struct {
		typ  string
		list func(context.Context) ([]events.Entity, error)
	}{{entity.TypeDefinition, src.Definitions}, {entity.TypeNotification, src.Notifications}} {
		all, err := kind.list(ctx)
		if err != nil {
			return nil, err
		}
		for _, e := range all {
			if id, ok := entity.OwnerUserID(e.Owner); ok {
				out = append(out, shares.Entity{ID: e.ID, Type: kind.typ, Title: e.Title, OwnerID: id})
			}
		}
	}
	return out, nil
}

// urlAllowList checks URLs against /system/urlwhitelist.
type urlAllowList struct{ n *Node }

func (u urlAllowList) Permits(ctx context.Context, url string) (bool, error) {
	wl, err := u.n.System.ClusterConfig.Whitelist(ctx)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return false, err
	}
	return wl.Permits(url), nil
}

// streamDocs gives legacy alarm callbacks the documents of streams.
type streamDocs struct{ n *Node }

func (s streamDocs) StreamDoc(id string) (map[string]any, bool) {
	st, err := s.n.Streams.Get(id)
	if err != nil {
		return nil, false
	}
	doc, err := legacy.StreamDoc(st)
	return doc, err == nil
}

// userEmails looks up the addresses of user recipients; unknown users and
// users without one are skipped.
type userEmails struct{ n *Node }

func (u userEmails) Emails(ctx context.Context, usernames []string) ([]string, error) {
	var out []string
	for _, name := range usernames {
		usr, err := u.n.Users.ByName(ctx, name)
		if err != nil {
			if api.ErrorCode(err) == api.NotFound {
				continue
			}
			return nil, err
		}
		if usr.Email != "" {
			out = append(out, usr.Email)
		}
	}
	return out, nil
}

// processorOptions make the event processor wait, before it evaluates a
// window, until this node's journal is processed up to the window's end,
// and read the catch-up window from the cluster's EventsConfiguration.
func (n *Node) processorOptions(now func() time.Time) definitions.ProcessorOptions {
	opts := definitions.ProcessorOptions{Catchup: n.eventsCatchupWindow}
	if n.Lookup != nil {
		opts.Lookups = eventLookups{n.Lookup}
	}
	if m := &n.Messages; m.Journal != nil && m.Processor != nil {
		w := definitions.NewWatermark(m.Journal.End, func() uint64 { return m.Processor.State().Next }, now)
		opts.Indexed = w.Indexed
	}
	return opts
}

// eventsCatchupWindow is events_catchup_window of the EventsConfiguration
// (/system/cluster_config), Graylog's default when it is not set.
func (n *Node) eventsCatchupWindow(ctx context.Context) (time.Duration, error) {
	doc, err := n.System.ClusterConfig.Get(ctx, clusterconfig.EventsClass)
	if err != nil {
		return 0, err
	}
	if doc == nil {
		return definitions.DefaultCatchupWindow, nil
	}
	var c struct {
		Window int64 `json:"events_catchup_window"`
	}
	if err := json.Unmarshal(doc, &c); err != nil {
		return 0, err
	}
	return time.Duration(c.Window) * time.Millisecond, nil
}
