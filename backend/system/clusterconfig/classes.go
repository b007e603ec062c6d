package clusterconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// The configuration classes other packages and tests name.
const (
	SearchesClass          = "org.graylog2.indexer.searches.SearchesClusterConfig"
	EventsClass            = "org.graylog.events.configuration.EventsConfiguration"
	MessageProcessorsClass = "org.graylog2.messageprocessors.MessageProcessorsConfig"
	SidecarClass           = "org.graylog.plugins.sidecar.system.SidecarConfiguration"
	GeoIPClass             = "org.graylog.plugins.map.config.GeoIpResolverConfig"
	URLWhitelistClass      = "org.graylog2.system.urlwhitelist.UrlWhitelist"
	GettingStartedClass    = "org.graylog2.gettingstarted.GettingStartedState"
)

// classInfo is what loggate knows of one of Graylog's configuration classes.
type classInfo struct {
	// defaults are the values Graylog's class gives properties a client
	// leaves out; their JSON kinds are the properties' types.
	defaults map[string]any
	// validate, when set, checks a document beyond its property types.
	validate func(doc []byte) error
}

// classes are the configuration classes of Graylog 4.0 that its web
// interface reads and writes. A class that is not here is a 404, as a class
// Graylog cannot load is.
var classes = map[string]classInfo{
	SearchesClass: {defaults: searchesDefaults()},
	EventsClass: {defaults: map[string]any{
		"events_search_timeout": 60000, "events_notification_retry_period": 300000,
		"events_notification_default_backlog": 50, "events_catchup_window": 3600000,
	}},
	MessageProcessorsClass: {defaults: map[string]any{"processor_order": []string{}, "disabled_processors": []string{}}},
	SidecarClass: {defaults: map[string]any{
		"sidecar_expiration_threshold": "P14D", "sidecar_inactive_threshold": "PT1M", "sidecar_update_interval": "PT30S",
		"sidecar_send_status": true, "sidecar_configuration_override": false,
	}},
	GeoIPClass: {defaults: map[string]any{
		"enabled": false, "db_type": "MAXMIND_CITY", "db_path": "/etc/graylog/server/GeoLite2-City.mmdb",
	}},
	URLWhitelistClass:   {defaults: map[string]any{"entries": []any{}, "disabled": false}, validate: validateWhitelist},
	GettingStartedClass: {defaults: map[string]any{"dismissed_in_versions": []string{}}},
}

// searchesDefaults are SearchesClusterConfig.createDefault() of Graylog 4.0:
// periods as ISO-8601 strings, as Jackson writes Joda periods.
func searchesDefaults() map[string]any {
	return map[string]any{
		"query_time_range_limit": "PT0S",
		// Raw JSON: the interface lists the options in the order Graylog's
		// builder puts them, which a Go map would sort.
		"relative_timerange_options": json.RawMessage(`{"PT5M":"Search in the last 5 minutes",` +
			`"PT15M":"Search in the last 15 minutes","PT30M":"Search in the last 30 minutes",` +
			`"PT1H":"Search in the last 1 hour","PT2H":"Search in the last 2 hours",` +
			`"PT8H":"Search in the last 8 hours","P1D":"Search in the last 1 day",` +
			`"P2D":"Search in the last 2 days","P5D":"Search in the last 5 days",` +
			`"P7D":"Search in the last 7 days","P14D":"Search in the last 14 days",` +
			`"P30D":"Search in the last 30 days","PT0S":"Search in all messages"}`),
		"surrounding_timerange_options": json.RawMessage(`{"PT1S":"1 second","PT5S":"5 seconds",` +
			`"PT10S":"10 seconds","PT30S":"30 seconds","PT1M":"1 minute","PT5M":"5 minutes"}`),
		"surrounding_filter_fields": []string{"source", "gl2_source_input", "file", "source_file"},
		"analysis_disabled_fields":  []string{"full_message", "message"},
	}
}

// read reads a client's document of the class: a JSON object whose known
// properties have their types, the missing ones taking their defaults.
// Properties loggate does not know are kept, so that a newer interface's
// settings survive.
func (c classInfo) read(body []byte) ([]byte, error) {
	var given map[string]json.RawMessage
	if err := json.Unmarshal(body, &given); err != nil || given == nil {
		return nil, errors.New("the configuration must be a JSON object")
	}
	out := make(map[string]json.RawMessage, len(c.defaults)+len(given))
	for k, v := range c.defaults {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		out[k] = b
	}
	for k, v := range given {
		def, ok := out[k]
		switch {
		case kind(v) == 'n':
			if ok {
				continue // null: the default, as the class's builder has it
			}
		case ok && (kind(v) != kind(def) || !fits(v, c.defaults[k])):
			return nil, fmt.Errorf("property %s has the wrong type", k)
		}
		out[k] = v
	}
	doc, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	if c.validate != nil {
		if err := c.validate(doc); err != nil {
			return nil, err
		}
	}
	return doc, nil
}

// fits reports whether v has the type of a property whose default is def
// beyond its JSON kind, so that what is stored is what the class's readers
// can decode: an integer where the default is one, strings in a list of
// strings.
func fits(v json.RawMessage, def any) bool {
	switch def.(type) {
	case int:
		var n int64
		return json.Unmarshal(v, &n) == nil
	case []string:
		var l []string
		return json.Unmarshal(v, &l) == nil
	}
	return true
}

// kind names a JSON value's type by its first byte: '{', '[', '"', 't' for
// booleans, 'n' for null, '0' for numbers.
func kind(v json.RawMessage) byte {
	b := bytes.TrimSpace(v)
	if len(b) == 0 {
		return 0
	}
	switch b[0] {
	case '{', '[', '"', 'n':
		return b[0]
	case 't', 'f':
		return 't'
	}
	return '0'
}
