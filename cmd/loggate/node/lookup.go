package node

import (
	"context"
	"fmt"
	"time"

	"github.com/loggate/loggate/backend/logs/lookup"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// lookupTables starts the lookup tables, caches and data adapters of this
// node, which the pipeline functions, extractors and converters look keys
// up in, and returns the /system/lookup routes. It runs before the
// pipelines and extractors that use them.
func (n *Node) lookupTables(ctx context.Context, st store.Store, now func() time.Time) ([]api.Route, error) {
	svc, err := lookup.NewService(ctx, st, lookup.Options{Now: now, Logger: n.Levels.Logger("loggate.lookup"),
		URLPermitted: urlAllowList{n}.Permits, Metrics: n.Metrics})
	if err != nil {
		return nil, fmt.Errorf("lookup tables: %w", err)
	}
	n.Lookup = svc
	return lookup.NewHandler(svc).Routes(), nil
}

// eventLookups gives the event processor's lookup-v1 field providers the
// node's lookup tables: the single value, defaults applied as the table
// does for every other caller.
type eventLookups struct{ svc *lookup.Service }

func (l eventLookups) LookupValue(ctx context.Context, table, key string) (string, bool, error) {
	r, err := l.svc.Lookup(ctx, table, key)
	if err != nil {
		return "", false, err
	}
	if r.HasError || r.Single == nil {
		return "", false, nil
	}
	return fmt.Sprint(r.Single), true, nil
}
