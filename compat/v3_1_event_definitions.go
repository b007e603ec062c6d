package compat

import (
	"context"
)

// LegacyAlerts migrates legacy alert conditions and alarm callbacks to
// event definitions and notifications.
type LegacyAlerts interface {
	// MigrateNow marks a request whose changes are to be migrated as soon
	// as they are stored.
	MigrateNow(ctx context.Context) context.Context
}

// EventDefinitions is 3.1's replacement of stream alert conditions and
// alarm callbacks by event definitions and notifications: 3.1 migrated
// them once, at its start, and evaluates only the definitions. A client
// older than 3.1 knows no event definitions, so the conditions and
// callbacks it creates or changes are migrated at once (by l), the way
// 3.1's migration did, and alert from then on.
func EventDefinitions(l LegacyAlerts) *Change {
	return &Change{
		Release: MustRelease("3.1"),
		Description: "Stream alert conditions and alarm callbacks are replaced by event definitions and notifications; " +
			"for clients older than 3.1, a condition or callback created or changed (`POST|PUT /streams/{id}/alerts/conditions…`, `POST|PUT /streams/{id}/alarmcallbacks…`) " +
			"is migrated at once to an `aggregation-v1` event definition or a `legacy-alarm-callback-notification-v1` notification, as 3.1's migration did, and alerts (a callback also notifies the stream's conditions migrated before it); " +
			"deleting one (`DELETE …/alerts/conditions/{id}`, `DELETE …/alarmcallbacks/{id}`) deletes what it was migrated to.",
		Routes: []Route{
			R("POST /streams/{streamId}/alerts/conditions"),
			R("PUT /streams/{streamId}/alerts/conditions/{conditionId}"),
			R("DELETE /streams/{streamId}/alerts/conditions/{conditionId}"),
			R("POST /streams/{streamId}/alarmcallbacks"),
			R("PUT /streams/{streamId}/alarmcallbacks/{alarmCallbackId}"),
			R("DELETE /streams/{streamId}/alarmcallbacks/{alarmCallbackId}"),
		},
		Request: func(_ context.Context, x *Exchange) error {
			if l == nil {
				return nil
			}
			// The backend handler gets the request x carries; its
			// context says to migrate.
			*x.Req = *x.Req.WithContext(l.MigrateNow(x.Req.Context()))
			return nil
		},
	}
}
