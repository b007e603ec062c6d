package loggers

import (
	"net/http"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/router/api"
)

// Routes returns the /system/loggers resource. The subsystem routes come
// first so that "subsystems" is never read as a logger name.
func (l *Levels) Routes() []api.Route {
	h := handler{l}
	return []api.Route{
		{Method: http.MethodGet, Path: "/system/loggers", Summary: "List all loggers and their current levels", Permission: "loggers:read:{loggerName}", Handler: api.JSON(h.list)},
		{Method: http.MethodGet, Path: "/system/loggers/messages/recent", Summary: "Get recent internal log messages (the newest `limit`, 500 by default, of at most 500 kept; `level`: that level or higher)",
			Permission: "loggersmessages:read", Query: []string{"limit", "level"}, Handler: api.JSON(h.recentMessages)},
		{Method: http.MethodGet, Path: "/system/loggers/subsystems", Summary: "List all logger subsystems and their current levels", Permission: "loggers:readsubsystem:{subsystem}", Handler: api.JSON(h.listSubsystems)},
		{Method: http.MethodPut, Path: "/system/loggers/subsystems/{subsystem}/level/{level}", Summary: "Set the loglevel of a whole subsystem", Permission: "loggers:editsubsystem:{subsystem}", Handler: h.setSubsystem},
		{Method: http.MethodPut, Path: "/system/loggers/{loggerName}/level/{level}", Summary: "Set the loglevel of a single logger", Permission: "loggers:edit:{loggerName}", Handler: h.setLogger},
	}
}

type handler struct{ levels *Levels }

// loggerSummary is Graylog's SingleLoggerSummary.
type loggerSummary struct {
	Level       string `json:"level"`
	LevelSyslog int    `json:"level_syslog"`
}

// loggersSummary is Graylog's LoggersSummary.
type loggersSummary struct {
	Total   int                      `json:"total"`
	Loggers map[string]loggerSummary `json:"loggers"`
}

// subsystemSummary is Graylog's SingleSubsystemSummary.
type subsystemSummary struct {
	Title       string   `json:"title"`
	Categories  []string `json:"categories"`
	Description string   `json:"description"`
	Level       string   `json:"level"`
	LevelSyslog int      `json:"level_syslog"`
}

// list shows the loggers the caller may read, leaving out the others silently
// as Graylog does.
func (h handler) list(r *http.Request) (any, error) {
	p := auth.FromContext(r.Context())
	if p == nil {
		return nil, auth.Unauthenticated()
	}
	out := loggersSummary{Loggers: map[string]loggerSummary{}}
	for name, lvl := range h.levels.snapshot() {
		if p.Permits("loggers:read:" + name) {
			out.Loggers[name] = loggerSummary{Level: lvl.String(), LevelSyslog: lvl.Syslog()}
		}
	}
	out.Total = len(out.Loggers)
	return out, nil
}

func (h handler) listSubsystems(r *http.Request) (any, error) {
	p := auth.FromContext(r.Context())
	if p == nil {
		return nil, auth.Unauthenticated()
	}
	out := map[string]subsystemSummary{}
	for _, s := range subsystems {
		if !p.Permits("loggers:readsubsystem:" + s.name) {
			continue
		}
		lvl := s.level(h.levels)
		out[s.name] = subsystemSummary{
			Title:       s.title,
			Categories:  s.categories,
			Description: s.description,
			Level:       lvl.String(),
			LevelSyslog: lvl.Syslog(),
		}
	}
	return map[string]any{"subsystems": out}, nil
}

// setSubsystem answers 404 for an unknown subsystem before checking the
// permission, in Graylog's order; the four names are no secret.
func (h handler) setSubsystem(w http.ResponseWriter, r *http.Request) error {
	name := api.Var(r, "subsystem")
	s, ok := findSubsystem(name)
	if !ok {
		return api.Errorf(api.NotFound, "No such logging subsystem: [%s]", name)
	}
	if err := auth.Require(r.Context(), "loggers:editsubsystem:"+name); err != nil {
		return err
	}
	lvl, err := ParseLevel(api.Var(r, "level"))
	if err != nil {
		return err
	}
	if err := s.setLevel(h.levels, lvl); err != nil {
		return err
	}
	api.Logger(r.Context()).Info("log level changed", "subsystem", name, "level", lvl)
	api.NoContent(w)
	return nil
}

// setLogger checks the name before the permission: the name is spliced into
// the permission string, where ':' ',' or '*' would change its meaning.
func (h handler) setLogger(w http.ResponseWriter, r *http.Request) error {
	name := api.Var(r, "loggerName")
	if err := CheckName(name); err != nil {
		return err
	}
	if err := auth.Require(r.Context(), "loggers:edit:"+name); err != nil {
		return err
	}
	lvl, err := ParseLevel(api.Var(r, "level"))
	if err != nil {
		return err
	}
	if err := h.levels.SetLevel(name, lvl); err != nil {
		return err
	}
	api.Logger(r.Context()).Info("log level changed", "logger_name", name, "level", lvl)
	api.NoContent(w)
	return nil
}
