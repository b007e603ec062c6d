package compat

import "context"

type traceKey struct{}

// WithTrace returns a context whose requests report each version change
// applied to them to fn, as "<release> <METHOD> <route>" — for the access
// log, from which operators learn which clients still need compatibility.
func WithTrace(ctx context.Context, fn func(change string)) context.Context {
	return context.WithValue(ctx, traceKey{}, fn)
}

func trace(ctx context.Context, ch *Change, route Route) {
	if fn, ok := ctx.Value(traceKey{}).(func(string)); ok {
		fn(ch.Release.String() + " " + route.Method + " " + route.Template.String())
	}
}

type removedKey struct{}

// WithRemovedTrace returns a context whose requests report each call of a
// route removed from the API (still served by a version change) to fn, as
// "<METHOD> <route>", for the access log.
func WithRemovedTrace(ctx context.Context, fn func(route string)) context.Context {
	return context.WithValue(ctx, removedKey{}, fn)
}

func traceRemoved(ctx context.Context, route Route) {
	if fn, ok := ctx.Value(removedKey{}).(func(string)); ok {
		fn(route.Method + " " + route.Template.String())
	}
}
