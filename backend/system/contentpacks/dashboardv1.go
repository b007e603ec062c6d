package contentpacks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/loggate/loggate/backend/analysis/views"
	"github.com/loggate/loggate/router/api"
)

// DashboardV1 is the entity type of Graylog 3.x's dashboards, which most
// community content packs carry. Graylog 4.0 installs them as 4.0
// dashboards; its catalog exports every dashboard as DashboardV2.
var DashboardV1 = ModelType{Name: "dashboard", Version: "1"}

// dashboardV1Facade is Graylog's DashboardV1Facade: a 3.x dashboard
// installs as the DASHBOARD view loggate's legacy dashboards convert it to
// (LegacyDashboards), with its search, owned by the installer;
// uninstalling deletes both, as for a dashboard of version 2. It only
// installs: the view it makes is a dashboard the catalog lists and exports
// as version 2.
type dashboardV1Facade struct {
	viewFacade
	legacy LegacyDashboards
}

// LegacyDashboards converts Graylog 3.x dashboards as loggate's legacy
// dashboards API converts them; the node gives legacy/views' conversion,
// which the backend, knowing no old release, does not import.
type LegacyDashboards interface {
	// ConvertPackDashboard checks a 3.x dashboard (title, description)
	// and each widget as POST /dashboards/{id}/widgets reads it, with its
	// "position" ({width, height, row, col}, or null), and returns the
	// view and search it becomes, owned by owner.
	ConvertPackDashboard(title, description string, widgets []json.RawMessage, owner string) (views.View, views.ViewSearch, error)
}

// dashboardV1Data is Graylog's DashboardEntity.
type dashboardV1Data struct {
	Title       *ValueRef       `json:"title"`
	Description *ValueRef       `json:"description"`
	Widgets     *[]widgetV1Data `json:"widgets"`
}

// widgetV1Data is Graylog's DashboardWidgetEntity. Its id is not kept:
// Graylog gives every converted widget a new one.
type widgetV1Data struct {
	Description   *ValueRef       `json:"description"`
	Type          *ValueRef       `json:"type"`
	CacheTime     *ValueRef       `json:"cache_time"`
	TimeRange     *timeRangeData  `json:"time_range"`
	Configuration json.RawMessage `json:"configuration"`
	Position      *positionData   `json:"position"`
}

// timeRangeData is Graylog's TimeRangeEntity: a relative, absolute or
// keyword range, its type a reference too.
type timeRangeData struct {
	Type    *ValueRef `json:"type"`
	Range   *ValueRef `json:"range"`
	From    *ValueRef `json:"from"`
	To      *ValueRef `json:"to"`
	Keyword *ValueRef `json:"keyword"`
}

// positionData is DashboardWidgetEntity.Position.
type positionData struct {
	Width  *ValueRef `json:"width"`
	Height *ValueRef `json:"height"`
	Row    *ValueRef `json:"row"`
	Col    *ValueRef `json:"col"`
}

// create converts the dashboard as Graylog's EntityConverter does, each
// widget through the conversion of legacy widgets, and stores its search
// then its view, checked as a dashboard of version 2: the streams its
// widgets read must be readable by the installer. A widget Graylog's
// DashboardWidgetConverter would refuse (an unknown type) refuses the
// entity.
func (f dashboardV1Facade) create(ctx context.Context, data json.RawMessage, p install, user string) (native, error) {
	var d dashboardV1Data
	if err := decodeData(data, &d); err != nil {
		return native{}, err
	}
	title, err := p.str(d.Title, "title", "")
	if err != nil {
		return native{}, err
	}
	desc, err := p.str(d.Description, "description", "")
	if err != nil {
		return native{}, err
	}
	if d.Widgets == nil {
		return native{}, errors.New("the dashboard has no widgets list")
	}
	widgets := make([]json.RawMessage, 0, len(*d.Widgets))
	for i, wd := range *d.Widgets {
		w, err := wd.widget(p)
		if err != nil {
			return native{}, api.Errorf(api.Invalid, "widget %d: %s", i, message(err))
		}
		widgets = append(widgets, w)
	}
	view, search, err := f.legacy.ConvertPackDashboard(title, desc, widgets, user)
	if err != nil {
		return native{}, api.Errorf(api.Invalid, "%s", message(err))
	}
	return f.store(ctx, view, search, user)
}

// widget resolves a widget's references into the widget POST
// /dashboards/{id}/widgets reads, its stream the pack's, its time range
// in its configuration (where 3.x clients keep it), with its position.
func (wd widgetV1Data) widget(p install) (json.RawMessage, error) {
	typ, err := p.str(wd.Type, "type", "")
	if err != nil {
		return nil, err
	}
	desc, err := p.str(wd.Description, "description", "")
	if err != nil {
		return nil, err
	}
	cache, err := p.integer(wd.CacheTime, "cache_time", 0)
	if err != nil {
		return nil, err
	}
	cfg, err := p.valueMap(wd.Configuration)
	if err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	if raw, ok := cfg["stream_id"]; ok && string(raw) != "null" {
		var id string
		if json.Unmarshal(raw, &id) != nil {
			return nil, errors.New("configuration: stream_id is a stream id")
		}
		native, ok := p.stream(id)
		if !ok {
			// Graylog's "Missing Stream for widget entity".
			return nil, fmt.Errorf("missing stream %s for the widget", id)
		}
		cfg["stream_id"], _ = json.Marshal(native)
	}
	if wd.TimeRange == nil {
		return nil, errors.New("time_range must not be null")
	}
	if cfg["timerange"], err = wd.TimeRange.resolve(p); err != nil {
		return nil, err
	}
	var pos *widgetPosition
	if wd.Position != nil {
		if pos, err = wd.Position.resolve(p); err != nil {
			return nil, err
		}
	}
	return json.Marshal(map[string]any{"type": typ, "description": desc, "cache_time": cache, "config": cfg, "position": pos})
}

// resolve returns the time range as a 3.x widget's configuration holds
// it; ParseWidget checks it.
func (t timeRangeData) resolve(p install) (json.RawMessage, error) {
	typ, err := p.str(t.Type, "time_range.type", "")
	if err != nil {
		return nil, err
	}
	tr := map[string]any{"type": typ}
	switch typ {
	case "relative":
		if tr["range"], err = p.integer(t.Range, "time_range.range", 0); err != nil {
			return nil, err
		}
	case "absolute":
		if tr["from"], err = p.str(t.From, "time_range.from", ""); err != nil {
			return nil, err
		}
		if tr["to"], err = p.str(t.To, "time_range.to", ""); err != nil {
			return nil, err
		}
	case "keyword":
		if tr["keyword"], err = p.str(t.Keyword, "time_range.keyword", ""); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("time_range: unknown type %q", typ)
	}
	return json.Marshal(tr)
}

// widgetPosition is where a widget sits on a 3.x dashboard's grid.
type widgetPosition struct {
	Width  int `json:"width"`
	Height int `json:"height"`
	Col    int `json:"col"`
	Row    int `json:"row"`
}

// resolve returns the position; each of its numbers is 0 or more.
func (pd positionData) resolve(p install) (*widgetPosition, error) {
	var out widgetPosition
	for _, f := range []struct {
		name string
		v    *ValueRef
		dst  *int
	}{{"width", pd.Width, &out.Width}, {"height", pd.Height, &out.Height}, {"row", pd.Row, &out.Row}, {"col", pd.Col, &out.Col}} {
		n, err := p.integer(f.v, "position."+f.name, 0)
		if err != nil {
			return nil, err
		}
		switch {
		case n < 0:
			return nil, fmt.Errorf("position.%s must be greater than or equal to 0", f.name)
		case n > math.MaxInt32:
			return nil, fmt.Errorf("position.%s must be at most %d", f.name, math.MaxInt32)
		}
		*f.dst = int(n)
	}
	return &out, nil
}

// store saves a view's search, then the view, both owned by user, once
// the installer may read the search's streams; a view refused takes its
// search away again.
func (f viewFacade) store(ctx context.Context, view views.View, search views.ViewSearch, user string) (native, error) {
	// The searches of views read only streams their owner may read.
	if err := views.CheckStreams(ctx, search); err != nil {
		return native{}, err
	}
	if _, err := f.s.Save(ctx, search, user); err != nil {
		return native{}, err
	}
	created, err := f.v.Create(ctx, view, user)
	if err != nil {
		return native{}, errors.Join(err, f.s.DeleteUnlessShown(context.WithoutCancel(ctx), search.ID))
	}
	return native{id: created.ID, title: created.Title}, nil
}
