package node

import (
	"context"
	"fmt"
	"time"

	"github.com/loggate/loggate/backend/logs/extractors"
	"github.com/loggate/loggate/backend/logs/processing"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// inputProcessing builds the extractors and static fields of the inputs,
// puts them into the Message Filter Chain of this node's processing, makes
// processing run the message processors in the stored order
// (/system/messageprocessors/config), and returns the routes. It runs
// after the message pipeline and the system resources it joins.
func (n *Node) inputProcessing(ctx context.Context, st store.Store, now func() time.Time) ([]api.Route, error) {
	svc, err := extractors.NewService(ctx, st, n.Grok, extractors.Options{
		Metrics: n.Metrics, Messages: n.Notices.Messages, Logger: n.Levels.Logger("loggate.extractors"), Now: now,
		Lookup: n.Lookup,
	})
	if err != nil {
		return nil, fmt.Errorf("extractors: %w", err)
	}
	n.Extractors = svc
	p := n.Messages.Processor
	p.AddFilter(svc.Filter())
	config := n.System.ClusterConfig
	// The order is read at most once a second, on the monotonic clock: a
	// change on any node applies everywhere within a second, whatever a
	// test's clock says.
	order := processing.NewOrderCache(func(ctx context.Context) (order, disabled []string, err error) {
		c, err := config.Processors(ctx)
		if err != nil {
			return nil, nil, err
		}
		for _, proc := range c.Order {
			order = append(order, proc.ClassName)
		}
		return order, c.Disabled, nil
	}, time.Second, time.Now)
	p.SetOrder(order.Order)
	return extractors.NewHandler(svc).Routes(), nil
}
