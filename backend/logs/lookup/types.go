package lookup

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// adapter finds values for keys. A failed lookup is an error: the table
// answers it as a result with has_error, and the adapter's error state
// names it.
type adapter interface {
	get(ctx context.Context, key string) (Result, error)
}

// failing is an adapter that reports the failure of its last load.
type failing interface {
	failure() string
}

// writer is an adapter the lookup_set_*/lookup_clear_key/…_string_list
// functions write to.
type writer interface {
	setValue(ctx context.Context, key, value string) error
	setList(ctx context.Context, key string, values []string) error
	// update changes a key's string list with fn and returns the new one.
	update(ctx context.Context, key string, fn func([]string) []string) ([]string, error)
	clearKey(ctx context.Context, key string) error
}

// cache keeps lookup results in front of an adapter.
type cache interface {
	// get answers key, from load when the cache does not hold it (hit
	// false).
	get(key string, load func() (Result, error)) (r Result, hit bool, err error)
	purge(key string)
	purgeAll()
	// len is how many entries the cache holds.
	len() int
}

// env is what building an adapter or a cache may use.
type env struct {
	id     string // the component's id
	now    func() time.Time
	client *http.Client
	st     store.Store
	// permitted checks the URLs the HTTP adapters call; nil permits all.
	permitted func(ctx context.Context, url string) (bool, error)
}

// remote is implemented by the configs of adapters that call a URL.
type remote interface{ remoteURL() string }

// config is one type's settings, decoded with the type's defaults.
type config interface {
	// check validates the settings that do not depend on the machine.
	check(v *api.ValidationError)
}

// validator is a config with checks of the machine (a readable file).
type validator interface {
	validate(v *api.ValidationError)
}

// kind describes one adapter or cache type: its descriptor in
// /system/lookup/types/{adapters,caches} and how to build it.
type kind struct {
	name        string
	configClass string
	defaults    func() config
	adapter     func(c config, e env) adapter
	cache       func(c config, e env) cache
}

// adapterKinds are the data adapters loggate has.
var adapterKinds = map[string]kind{
	"csvfile": {name: "csvfile", configClass: "org.graylog2.lookup.adapters.CSVFileDataAdapter$Config",
		defaults: func() config { return newCSVConfig() }, adapter: newCSVAdapter},
	"dsvhttp": {name: "dsvhttp", configClass: "org.graylog2.lookup.adapters.DSVHTTPDataAdapter$Config",
		defaults: func() config { return newDSVConfig() }, adapter: newDSVAdapter},
	"httpjsonpath": {name: "httpjsonpath", configClass: "org.graylog2.lookup.adapters.HTTPJSONPathDataAdapter$Config",
		defaults: func() config { return newJSONPathConfig() }, adapter: newJSONPathAdapter},
	"dnslookup": {name: "dnslookup", configClass: "org.graylog2.lookup.adapters.DnsLookupDataAdapter$Config",
		defaults: func() config { return newDNSConfig() }, adapter: newDNSAdapter},
	"mongodb": {name: "mongodb", configClass: "org.graylog2.lookup.adapters.MongoDBDataAdapter$Config",
		defaults: func() config { return &kvConfig{Type: "mongodb"} }, adapter: newKVAdapter},
}

// refusedAdapters are Graylog's adapter types that need data from outside
// that loggate does not have (a GeoIP database, threat feeds, whois).
var refusedAdapters = []string{"maxmind_geoip", "torexitnode", "spamhaus-edrop", "abuse-ch-ransom",
	"abuse-ch-ransom-domains", "abuse-ch-ransom-ips", "otx-api", "whois"}

// cacheKinds are the caches loggate has.
var cacheKinds = map[string]kind{
	"none": {name: "none", configClass: "org.graylog2.lookup.caches.NullCache$Config",
		defaults: func() config { return &noCacheConfig{Type: "none"} }, cache: func(config, env) cache { return noCache{} }},
	"guava_cache": {name: "guava_cache", configClass: "org.graylog2.lookup.caches.CaffeineLookupCache$Config",
		defaults: func() config { return newLRUConfig() }, cache: newLRUCache},
}

// descriptors are the types' descriptors, by type.
func descriptors(kinds map[string]kind) map[string]any {
	out := make(map[string]any, len(kinds))
	for _, name := range slices.Sorted(maps.Keys(kinds)) {
		k := kinds[name]
		out[name] = map[string]any{"type": k.name, "config_class": k.configClass, "default_config": k.defaults()}
	}
	return out
}

// parseConfig reads a component's config as its type's settings, over
// the type's defaults. what is "data adapter" or "cache".
func parseConfig(raw json.RawMessage, kinds map[string]kind, what string) (kind, config, error) {
	var head struct {
		Type *string `json:"type"`
	}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return kind{}, nil, api.Invalidf("config", "The %s needs a config with a type", what)
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return kind{}, nil, api.Invalidf("config", "The %s config is not a JSON object: %v", what, err)
	}
	if head.Type == nil || *head.Type == "" {
		return kind{}, nil, api.Invalidf("config.type", "The %s config needs a type", what)
	}
	k, ok := kinds[*head.Type]
	if !ok {
		if what == "data adapter" && slices.Contains(refusedAdapters, *head.Type) {
			return kind{}, nil, api.Errorf(api.Invalid, "Data adapter type <%s> is not available in loggate: it needs data from outside (a database, a feed or a service) that loggate does not have", *head.Type)
		}
		return kind{}, nil, api.Errorf(api.Invalid, "Unknown %s type <%s>; available: %s", what, *head.Type, strings.Join(slices.Sorted(maps.Keys(kinds)), ", "))
	}
	c := k.defaults()
	if err := json.Unmarshal(raw, c); err != nil {
		return kind{}, nil, api.Invalidf("config", "The %s config of type %s does not decode: %v", what, k.name, err)
	}
	return k, c, nil
}

// decodeConfig is parseConfig with the settings checked.
func decodeConfig(raw json.RawMessage, kinds map[string]kind, what string) (kind, config, error) {
	k, c, err := parseConfig(raw, kinds, what)
	if err != nil {
		return k, c, err
	}
	var v api.ValidationError
	c.check(&v)
	if err := v.Err(); err != nil {
		return kind{}, nil, err
	}
	return k, c, nil
}

// durationUnit reads a java.util.concurrent.TimeUnit name.
func durationUnit(name string) (time.Duration, bool) {
	switch strings.ToUpper(name) {
	case "NANOSECONDS":
		return time.Nanosecond, true
	case "MICROSECONDS":
		return time.Microsecond, true
	case "MILLISECONDS":
		return time.Millisecond, true
	case "SECONDS":
		return time.Second, true
	case "MINUTES":
		return time.Minute, true
	case "HOURS":
		return time.Hour, true
	case "DAYS":
		return 24 * time.Hour, true
	}
	return 0, false
}

// limitBody bounds what an adapter reads of a file or an HTTP answer.
const limitBody = 64 << 20
