package config

import (
	"slices"
	"strconv"
	"time"
)

// Key describes one configuration key: its name (as in Graylog's server.conf
// where Graylog has it), its default, and how a value is parsed into Config.
//
// Adding a key takes a field in Config and a row in table below, usually
// built with newKey; Load, Default, Redacted, Keys and Usage then handle it.
type Key struct {
	// Name is the key in a file; the flag is --Name and the environment
	// variable LOGGATE_<NAME>.
	Name string
	// Default is the value used when no source sets the key, written as it
	// would be in a file.
	Default string
	// Description is one line for Usage.
	Description string
	// Bool keys may be given as a bare flag, meaning true.
	Bool bool
	// Secret values are never shown: Redacted masks them and errors leave
	// them out.
	Secret bool
	// Redact, if set, hides the secret part of a value that is otherwise
	// worth showing, such as the password in a URI.
	Redact func(value string) string
	// Set parses and checks value and stores it in c. Its error says what
	// is expected; Load adds the key, the value and where it came from.
	Set func(c *Config, value string) error
	// Get returns the value in c as it would be written in a file.
	Get func(c *Config) string
}

// table lists the keys in Config field order.
var table = []Key{
	newKey("http_bind_address", "127.0.0.1:9000", "host:port the HTTP API listens on",
		func(c *Config) *string { return &c.HTTPBindAddress }, parseHostPort, formatString),
	// Redacted although user info is refused: the error quoting a refused
	// value must not show its password.
	redacted(newKey("http_publish_uri", "", "URI clients and other nodes reach this node at (default http://<http_bind_address>/)",
		func(c *Config) *string { return &c.HTTPPublishURI }, parsePublishURI, formatString), redactURI),
	boolKey("http_enable_cors", false, "answer cross-origin requests from browsers",
		func(c *Config) *bool { return &c.HTTPEnableCORS }),
	boolKey("http_enable_gzip", true, "compress responses of 512 bytes or more for clients that accept gzip",
		func(c *Config) *bool { return &c.HTTPEnableGzip }),
	newKey("http_max_body_size", "8MiB", "largest request body accepted, in bytes or with a unit (KB, MB, GiB…)",
		func(c *Config) *int64 { return &c.HTTPMaxBodySize }, parseSize, formatInt),
	newKey("root_username", "admin", "name of the built-in administrator",
		func(c *Config) *string { return &c.RootUsername }, parseUsername, formatString),
	secret(newKey("root_password_sha2", "", "SHA-256 (hex) of the administrator's password (default: generated and printed on the first start)",
		func(c *Config) *string { return &c.RootPasswordSHA2 }, parseSHA256Hex, formatString)),
	newKey("root_timezone", "UTC", "time zone of the built-in administrator",
		func(c *Config) *string { return &c.RootTimezone }, parseTimezone, formatString),
	secret(newKey("password_secret", "", "secret of at least 16 characters used to sign and encrypt (default: generated and kept in data_dir)",
		func(c *Config) *string { return &c.PasswordSecret }, parsePasswordSecret, formatString)),
	newKey("data_dir", "./data", "directory for loggate's own data",
		func(c *Config) *string { return &c.DataDir }, parseNonEmpty("a directory path"), formatString),
	redacted(newKey("redis_uri", "", "Redis for the session and token cache, e.g. redis://localhost:6379/0 (default: in-process cache)",
		func(c *Config) *string { return &c.RedisURI }, parseRedisURI, formatString), redactURI),
	redacted(newKey("mongodb_uri", "", "MongoDB for the configuration documents, shared by every node of a cluster, e.g. mongodb://localhost:27017/graylog (default: the embedded store in data_dir)",
		func(c *Config) *string { return &c.MongoDBURI }, parseMongoURI, formatString), redactURI),
	newKey("compat_default_release", "4.0", "Graylog API release served to clients that do not ask for one",
		func(c *Config) *string { return &c.CompatDefaultRelease }, parseRelease, formatString),
	newKey("compat_listeners", "", "extra listeners pinned to an API release, e.g. 127.0.0.1:9001=2.4, 127.0.0.1:9002=3.3 (old clients that cannot send X-API-Version)",
		func(c *Config) *[]Listener { return &c.CompatListeners }, parseListeners, formatListeners),
	newKey("compat_min_release", "", "oldest API release served; older clients get 410 Gone (default: every release from 1.0)",
		func(c *Config) *string { return &c.CompatMinRelease }, parseOptionalRelease, formatString),
	newKey("access_log", "", "file to append one JSON line per request to (method, path, status, release, user, token id, user agent, version changes applied); read by 'loggate compat report'",
		func(c *Config) *string { return &c.AccessLog }, parseAny, formatString),
	newKey("trusted_proxies", "", "comma-separated addresses or CIDR ranges of reverse proxies whose trusted username header (System > Authentication) is believed; empty: none",
		func(c *Config) *string { return &c.TrustedProxies }, parseTrustedProxies, formatString),
	// Redacted although user info is refused: the error quoting a refused
	// value must not show its password.
	redacted(newKey("upstream_uri", "", "Graylog 4.x API root, e.g. http://graylog:9000/api: serve as a compatibility gateway in front of it instead of natively (default: native)",
		func(c *Config) *string { return &c.UpstreamURI }, parseUpstreamURI, formatString), redactURI),
	redacted(newKey("elasticsearch_hosts", "", "comma-separated Elasticsearch 6.8–7.10 or OpenSearch 1.x URLs to store messages in, e.g. http://user:pass@es1:9200,http://es2:9200 (default: the embedded message store in data_dir)",
		func(c *Config) *[]string { return &c.ElasticsearchHosts }, parseHosts, formatHosts), redactHosts),
	newKey("message_journal_dir", "", "directory of the message journal (default: <data_dir>/journal)",
		func(c *Config) *string { return &c.JournalDir }, parseAny, formatString),
	newKey("message_journal_max_size", "5GiB", "largest backlog of unprocessed messages on disk; then HTTP inputs answer 503 and TCP inputs stop reading",
		func(c *Config) *int64 { return &c.JournalMaxSize }, parseSize, formatInt),
	newKey("message_journal_max_age", "12h", "oldest unprocessed message the journal keeps before refusing more, e.g. 12h or 7d",
		func(c *Config) *time.Duration { return &c.JournalMaxAge }, parseDuration, formatDuration),
	newKey("inputs_decode_budget", "64MiB", "most bytes all inputs decode at once (request bodies, decompressed payloads, message text); past it HTTP inputs answer 503, TCP inputs stop reading and UDP inputs drop; at least twice the journal's 32MiB record limit",
		func(c *Config) *int64 { return &c.DecodeBudget }, parseSize, formatInt),
	boolKey("allow_leading_wildcard_searches", false, "let search queries start with * or ? (slow on large stores)",
		func(c *Config) *bool { return &c.LeadingWildcard }),
	newKey("web_interface_dir", "", "directory of a built Graylog 4.x web interface (index.html or module.json and its bundles) to serve at / (default: none)",
		func(c *Config) *string { return &c.WebInterfaceDir }, parseAny, formatString),
	newKey("search_max_concurrent", "0", "searches, exports and aggregations that run at once; more wait for a place (0: twice the CPUs, at least 4)",
		func(c *Config) *int { return &c.SearchMaxConcurrent }, parseConcurrency, strconv.Itoa),
	newKey("search_max_queue_duration", "10s", "how long a search waits for a place before it is answered 503 with Retry-After",
		func(c *Config) *time.Duration { return &c.SearchMaxQueue }, parseDuration, formatDuration),
	boolKey("transport_email_enabled", false, "send email notifications through the mail server below",
		func(c *Config) *bool { return &c.Email.Enabled }),
	newKey("transport_email_hostname", "", "host name of the mail server (SMTP)",
		func(c *Config) *string { return &c.Email.Hostname }, parseAny, formatString),
	newKey("transport_email_port", "25", "port of the mail server",
		func(c *Config) *int { return &c.Email.Port }, parsePort, strconv.Itoa),
	boolKey("transport_email_use_auth", false, "log in to the mail server (AUTH PLAIN) with the user name and password below",
		func(c *Config) *bool { return &c.Email.UseAuth }),
	newKey("transport_email_auth_username", "", "user name at the mail server",
		func(c *Config) *string { return &c.Email.Username }, parseAny, formatString),
	secret(newKey("transport_email_auth_password", "", "password at the mail server",
		func(c *Config) *string { return &c.Email.Password }, parseAny, formatString)),
	boolKey("transport_email_use_tls", false, "upgrade the connection to the mail server with STARTTLS (refusing a server that does not offer it)",
		func(c *Config) *bool { return &c.Email.UseTLS }),
	boolKey("transport_email_use_ssl", false, "speak TLS to the mail server from the first byte (SMTPS, usually port 465)",
		func(c *Config) *bool { return &c.Email.UseSSL }),
	newKey("transport_email_from_email", "", "sender address of notifications that name none",
		func(c *Config) *string { return &c.Email.FromEmail }, parseAny, formatString),
	newKey("transport_email_subject_prefix", "", "text put before the subject of legacy alarm callback emails",
		func(c *Config) *string { return &c.Email.SubjectPrefix }, parseAny, formatString),
	newKey("transport_email_web_interface_url", "", "web interface URL that legacy alert emails link streams to",
		func(c *Config) *string { return &c.Email.WebInterfaceURL }, parseAny, formatString),
	newKey("transport_email_socket_connection_timeout", "10s", "how long connecting to the mail server may take",
		func(c *Config) *time.Duration { return &c.Email.ConnectTimeout }, parseDuration, formatDuration),
	newKey("transport_email_socket_timeout", "10s", "how long one delivery to the mail server may take",
		func(c *Config) *time.Duration { return &c.Email.SocketTimeout }, parseDuration, formatDuration),
	boolKey("enable_legacy_alerts", false, "evaluate legacy (2.x/3.0) stream alert conditions and run their alarm callbacks, as Graylog 4.0 does only when asked",
		func(c *Config) *bool { return &c.EnableLegacyAlerts }),
	newKey("alert_check_interval", "60", "seconds between evaluations of legacy alert conditions",
		func(c *Config) *time.Duration { return &c.AlertCheckInterval }, parseSeconds, formatSeconds),
}

// byName indexes table.
var byName = func() map[string]*Key {
	m := make(map[string]*Key, len(table))
	for i := range table {
		m[table[i].Name] = &table[i]
	}
	return m
}()

// newKey builds a Key for a Config field from a parse function, which also
// checks and normalises, and its inverse.
func newKey[T any](name, def, desc string, field func(*Config) *T, parse func(string) (T, error), format func(T) string) Key {
	return Key{
		Name: name, Default: def, Description: desc,
		Set: func(c *Config, value string) error {
			v, err := parse(value)
			if err != nil {
				return err
			}
			*field(c) = v
			return nil
		},
		Get: func(c *Config) string { return format(*field(c)) },
	}
}

func boolKey(name string, def bool, desc string, field func(*Config) *bool) Key {
	k := newKey(name, formatBool(def), desc, field, parseBool, formatBool)
	k.Bool = true
	return k
}

func formatBool(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func secret(k Key) Key {
	k.Secret = true
	return k
}

func redacted(k Key, redact func(string) string) Key {
	k.Redact = redact
	return k
}

// display returns value as it may be logged: masked if secret, redacted if
// the key has a redaction.
func (k *Key) display(value string) string {
	switch {
	case k.Secret && value != "":
		return mask
	case k.Redact != nil:
		return k.Redact(value)
	}
	return value
}

// Table returns the keys loggate understands, in Config field order.
func Table() []Key { return slices.Clone(table) }

// Keys returns the names of the keys loggate understands, sorted.
func Keys() []string {
	names := make([]string, len(table))
	for i, k := range table {
		names[i] = k.Name
	}
	slices.Sort(names)
	return names
}
