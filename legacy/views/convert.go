package views

import (
	"encoding/json"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/backend/analysis/views"
	"github.com/loggate/loggate/router/api"
	"github.com/tidwall/sjson"
)

// ConvertedSummary is the summary Graylog 4.0 gives the dashboards it
// converts from the 3.x dashboards of content packs (EntityConverter).
const ConvertedSummary = "Converted Dashboard"

// DashboardWidget is a widget of a 3.x dashboard to convert: the widget as
// POST /dashboards/{id}/widgets reads it (ParseWidget), and where it sits,
// if anywhere.
type DashboardWidget struct {
	Request  WidgetRequest
	Position *Position
}

// ConvertDashboard returns the DASHBOARD view that stands for a 3.x
// dashboard with its widgets, as CreateDashboard, AddWidget and
// SetPositions store one: one query whose state holds each widget
// converted (each under a new id, its legacy original kept, its
// description its title) where its position puts it, created by owner;
// and the search the view names, which runs the widgets. Nothing is
// stored: Graylog 4.0's content packs install their 3.x dashboards so
// (DashboardV1Facade), through their own checks.
func ConvertDashboard(title, description, summary string, widgets []DashboardWidget, owner string) (views.View, views.ViewSearch, error) {
	q := newQueryState()
	for _, dw := range widgets {
		req := dw.Request
		w := Widget{ID: newUUID(), Type: req.Type, Description: req.Description, CacheTime: req.CacheTime,
			CreatorUserID: owner, Config: req.Config}
		if err := q.put(w, req.timerange); err != nil {
			return views.View{}, views.ViewSearch{}, err
		}
		if p := dw.Position; p != nil {
			b, err := api.Marshal(viewPosition{Col: p.Col, Row: p.Row, Height: p.Height, Width: p.Width})
			if err != nil {
				return views.View{}, views.ViewSearch{}, fmt.Errorf("encode position: %w", err)
			}
			q.positions[w.ID] = b
		}
	}
	state, err := q.encode()
	if err != nil {
		return views.View{}, views.ViewSearch{}, err
	}
	v := views.View{
		Type: views.Dashboard, Title: title, Summary: summary, Description: description,
		SearchID: primitive.NewObjectID().Hex(), Properties: []string{}, Requires: map[string]json.RawMessage{},
		State: map[string]json.RawMessage{newUUID(): state},
	}
	search, err := searchOf(&v)
	if err != nil {
		return views.View{}, views.ViewSearch{}, err
	}
	return v, search, nil
}

// PackDashboards converts the 3.x dashboards of content packs for the
// content packs service, which knows no old release: the conversion and
// the checks of the legacy dashboards API, through plain JSON.
type PackDashboards struct{}

// ConvertPackDashboard checks a 3.x dashboard as POST /dashboards checks
// one (title, description) and each widget as POST
// /dashboards/{id}/widgets reads it, with its "position" ({width, height,
// row, col}, or null for none), and returns the view and search it
// becomes (ConvertDashboard, Graylog's summary). A refused widget is a 400
// naming its index.
func (PackDashboards) ConvertPackDashboard(title, description string, widgets []json.RawMessage, owner string) (views.View, views.ViewSearch, error) {
	head, err := json.Marshal(map[string]string{"title": title, "description": description})
	if err != nil {
		return views.View{}, views.ViewSearch{}, err
	}
	if _, err := ParseDashboard(head, true); err != nil {
		return views.View{}, views.ViewSearch{}, err
	}
	out := make([]DashboardWidget, 0, len(widgets))
	for i, raw := range widgets {
		var placed struct {
			Position *Position `json:"position"`
		}
		if err := json.Unmarshal(raw, &placed); err != nil {
			return views.View{}, views.ViewSearch{}, api.Errorf(api.Invalid, "widget %d: %v", i, err)
		}
		body, err := sjson.DeleteBytes(raw, "position")
		if err != nil {
			return views.View{}, views.ViewSearch{}, api.Errorf(api.Invalid, "widget %d: %v", i, err)
		}
		req, err := ParseWidget(body)
		if err != nil {
			return views.View{}, views.ViewSearch{}, api.Errorf(api.Invalid, "widget %d: %s", i, errorMessage(err))
		}
		out = append(out, DashboardWidget{Request: req, Position: placed.Position})
	}
	return ConvertDashboard(title, description, ConvertedSummary, out, owner)
}

// errorMessage is an error's message without its status.
func errorMessage(err error) string {
	var ae *api.Error
	if errors.As(err, &ae) {
		return ae.Message
	}
	return err.Error()
}
