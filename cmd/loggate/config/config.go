// Package config builds loggate's configuration from defaults, a Graylog
// server.conf style file (--config FILE), LOGGATE_<KEY> environment variables
// and --<key> flags, in that order of precedence. Keys are Graylog's where
// Graylog has them, so an operator can bring a whole Graylog file: keys
// loggate does not use are reported as warnings, not errors.
package config

import (
	"fmt"
	"time"
)

// Config is loggate's configuration. The zero value is not useful: start
// from Default or Load.
type Config struct {
	HTTPBindAddress      string        // http_bind_address: host:port to listen on
	HTTPPublishURI       string        // http_publish_uri: absolute http(s) URI ending in "/"
	HTTPEnableCORS       bool          // http_enable_cors
	HTTPEnableGzip       bool          // http_enable_gzip
	HTTPMaxBodySize      int64         // http_max_body_size, in bytes
	RootUsername         string        // root_username
	RootPasswordSHA2     string        // root_password_sha2: lower-case hex, or "" to generate one
	RootTimezone         string        // root_timezone: a name time.LoadLocation knows
	PasswordSecret       string        // password_secret: "" to generate one in DataDir
	DataDir              string        // data_dir
	RedisURI             string        // redis_uri: "" for the in-process cache
	MongoDBURI           string        // mongodb_uri: "" for the embedded store in DataDir
	CompatDefaultRelease string        // compat_default_release: <major>.<minor>
	TrustedProxies       string        // trusted_proxies: addresses/CIDRs whose username header is believed
	CompatListeners      []Listener    // compat_listeners: extra listeners pinned to a release
	CompatMinRelease     string        // compat_min_release: older clients get 410; "" for none
	AccessLog            string        // access_log: file of JSON lines, one per request; "" for none
	UpstreamURI          string        // upstream_uri: a Graylog 4.x API root to be a gateway for; "" to serve natively
	ElasticsearchHosts   []string      // elasticsearch_hosts: message store URLs; empty for the embedded store in DataDir
	JournalDir           string        // message_journal_dir: "" for DataDir/journal
	JournalMaxSize       int64         // message_journal_max_size, in bytes
	JournalMaxAge        time.Duration // message_journal_max_age
	DecodeBudget         int64         // inputs_decode_budget, in bytes
	LeadingWildcard      bool          // allow_leading_wildcard_searches
	WebInterfaceDir      string        // web_interface_dir: an operator's built Graylog web interface to serve at /; "" for none
	SearchMaxConcurrent  int           // search_max_concurrent: searches at once; 0 for twice the CPUs, at least 4
	SearchMaxQueue       time.Duration // search_max_queue_duration: wait for a search place before a 503
	ConfigFile           string        // the --config path, if any
	Email                Email         // transport_email_*: the mail server notifications are sent through
	EnableLegacyAlerts   bool          // enable_legacy_alerts: evaluate legacy stream alert conditions
	AlertCheckInterval   time.Duration // alert_check_interval: how often legacy conditions are evaluated
}

// Email is Graylog's email transport (transport_email_* keys).
type Email struct {
	Enabled         bool
	Hostname        string
	Port            int
	UseAuth         bool
	Username        string
	Password        string
	UseTLS          bool // STARTTLS
	UseSSL          bool // TLS from the first byte (SMTPS)
	FromEmail       string
	SubjectPrefix   string
	WebInterfaceURL string
	ConnectTimeout  time.Duration
	SocketTimeout   time.Duration
}

// Listener is an extra HTTP listener whose clients are served as Release
// unless they say otherwise (compat_listeners).
type Listener struct {
	Address string // host:port
	Release string // <major>.<minor>
}

// Default returns the configuration with every key at its default.
func Default() Config {
	c := defaults()
	c.HTTPPublishURI, _ = derivePublishURI(c.HTTPBindAddress)
	return c
}

// defaults applies each key's default, leaving HTTPPublishURI empty for Load
// to derive from the final http_bind_address.
func defaults() Config {
	var c Config
	for i := range table {
		k := &table[i]
		if err := k.Set(&c, k.Default); err != nil {
			panic(fmt.Sprintf("config: default of %s: %v", k.Name, err))
		}
	}
	return c
}

// Redacted returns every key with its value, secrets masked, for logging the
// effective configuration.
func (c Config) Redacted() map[string]string {
	m := make(map[string]string, len(table))
	for i := range table {
		k := &table[i]
		m[k.Name] = k.display(k.Get(&c))
	}
	return m
}
