package config

import (
	"errors"
	"fmt"
	"math"
	"net"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // root_timezone must validate the same on a host without zoneinfo (scratch images)
	"unicode/utf8"

	"github.com/redis/go-redis/v9"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/auth/permission"
	"github.com/loggate/loggate/backend/upstream"
)

// mask replaces secrets in Redacted and in error messages.
const mask = "********"

func formatString(s string) string { return s }

func parseNonEmpty(what string) func(string) (string, error) {
	return func(s string) (string, error) {
		if s == "" {
			return "", fmt.Errorf("expected %s", what)
		}
		return s, nil
	}
}

func parseBool(s string) (bool, error) {
	b, err := strconv.ParseBool(strings.ToLower(s))
	if err != nil {
		return false, errors.New("expected true or false")
	}
	return b, nil
}

func formatInt(n int64) string { return strconv.FormatInt(n, 10) }

var errHostPort = errors.New("expected host:port, e.g. 127.0.0.1:9000")

// parseHostPort accepts what net.Listen("tcp", …) accepts, but only with a
// numeric port: a service name such as :http would surprise more than help.
func parseHostPort(s string) (string, error) {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return "", errHostPort
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return "", errors.New("expected host:port with a numeric port from 0 to 65535, e.g. 127.0.0.1:9000")
	}
	if host != "" && !validHost(host) {
		return "", errors.New("expected host:port with an IP address or host name, e.g. 127.0.0.1:9000")
	}
	return s, nil
}

func validHost(host string) bool {
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	if len(host) > 253 {
		return false
	}
	for label := range strings.SplitSeq(strings.TrimSuffix(host, "."), ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, c := range []byte(label) {
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// parsePublishURI checks an http_publish_uri and ends its path in "/", as
// Graylog does. Empty means: derive it from http_bind_address.
func parsePublishURI(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Opaque != "" || u.Hostname() == "" {
		return "", errors.New("expected an absolute http or https URI, e.g. http://127.0.0.1:9000/")
	}
	if u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return "", errors.New("expected an http or https URI without user info, query or fragment, e.g. http://127.0.0.1:9000/")
	}
	if p := u.Port(); p != "" {
		if _, err := strconv.ParseUint(p, 10, 16); err != nil {
			return "", errors.New("expected an http or https URI with a port from 0 to 65535, e.g. http://127.0.0.1:9000/")
		}
	}
	if a, err := netip.ParseAddr(u.Hostname()); err == nil && a.IsUnspecified() {
		// Graylog refuses these too: clients and other nodes cannot connect to "any address".
		return "", errors.New("expected a URI that clients can connect to, not a wildcard address such as 0.0.0.0")
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		if u.RawPath != "" {
			u.RawPath += "/"
		}
	}
	return u.String(), nil
}

// derivePublishURI is Graylog's default http_publish_uri:
// http://<http_bind_address>/. A wildcard bind address would publish an
// address nobody can connect to, so it publishes loopback instead and reports
// wildcard, for a warning to set http_publish_uri.
func derivePublishURI(bind string) (uri string, wildcard bool) {
	host, port, err := net.SplitHostPort(bind)
	if err != nil {
		return "", false // cannot happen after parseHostPort
	}
	if a, err := netip.ParseAddr(host); host == "" || err == nil && a.IsUnspecified() {
		wildcard = true
		host = "127.0.0.1"
		if a.Is6() {
			host = "::1"
		}
	}
	return "http://" + net.JoinHostPort(host, port) + "/", wildcard
}

// sizeUnits are the suffixes of jadconfig's Size, which Graylog uses for its
// size settings, plus the IEC ones; all are powers of 1024 as in Graylog.
var sizeUnits = map[string]int64{
	"": 1, "b": 1, "byte": 1, "bytes": 1,
	"k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10, "kilobyte": 1 << 10, "kilobytes": 1 << 10,
	"m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20, "megabyte": 1 << 20, "megabytes": 1 << 20,
	"g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30, "gigabyte": 1 << 30, "gigabytes": 1 << 30,
	"t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40, "terabyte": 1 << 40, "terabytes": 1 << 40,
}

var errSize = errors.New("expected a positive number of bytes, optionally with a unit, e.g. 8388608, 512KB, 8MB or 1GiB")

// parseSize parses a byte count such as "8388608", "512KB" or "1 GiB".
func parseSize(s string) (int64, error) {
	digits := len(s) - len(strings.TrimLeft(s, "0123456789"))
	mult, ok := sizeUnits[strings.ToLower(trim(s[digits:]))]
	if digits == 0 || !ok {
		return 0, errSize
	}
	n, err := strconv.ParseInt(s[:digits], 10, 64)
	if err != nil || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("expected a size below 8EiB")
	}
	if n == 0 {
		return 0, errSize
	}
	return n * mult, nil
}

func parseUsername(s string) (string, error) {
	// The same rule as for every username: it becomes part of permission
	// strings, and a colon would end it early in HTTP Basic credentials.
	if err := permission.ValidName("user name", s); err != nil {
		return "", fmt.Errorf("expected a user name without ':', ',', '*', '/', '\\' or spaces around it: %w", err)
	}
	return s, nil
}

func parseSHA256Hex(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	if len(s) != 64 || strings.Trim(strings.ToLower(s), "0123456789abcdef") != "" {
		return "", errors.New("expected 64 hexadecimal characters, the SHA-256 of the password (echo -n password | sha256sum)")
	}
	return strings.ToLower(s), nil
}

func parseTimezone(s string) (string, error) {
	if s == "" || s == "Local" {
		// LoadLocation accepts both, but they name no zone a client understands.
		return "", errors.New("expected a time zone name such as UTC or Europe/Berlin")
	}
	if _, err := time.LoadLocation(s); err != nil {
		return "", fmt.Errorf("expected a time zone name such as UTC or Europe/Berlin: %w", err)
	}
	return s, nil
}

func parsePasswordSecret(s string) (string, error) {
	if s != "" && utf8.RuneCountInString(s) < 16 {
		// Graylog's own minimum; the error must not say more about the secret.
		return "", errors.New("expected at least 16 characters")
	}
	return s, nil
}

var releasePattern = regexp.MustCompile(`^[0-9]{1,4}\.[0-9]{1,4}$`)

func parseRelease(s string) (string, error) {
	if !releasePattern.MatchString(s) {
		return "", errors.New("expected a Graylog release as <major>.<minor>, e.g. 4.0")
	}
	return s, nil
}

func parseAny(s string) (string, error) { return s, nil }

func parseOptionalRelease(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	return parseRelease(s)
}

// parseListeners reads compat_listeners: comma-separated host:port=release.
func parseListeners(s string) ([]Listener, error) {
	var out []Listener
	seen := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		addr, rel, ok := strings.Cut(f, "=")
		if !ok {
			return nil, fmt.Errorf("expected host:port=release, e.g. 127.0.0.1:9001=2.4, got %q", f)
		}
		addr, rel = strings.TrimSpace(addr), strings.TrimSpace(rel)
		if _, err := parseHostPort(addr); err != nil {
			return nil, fmt.Errorf("%q: %w", f, err)
		}
		if _, err := parseRelease(rel); err != nil {
			return nil, fmt.Errorf("%q: %w", f, err)
		}
		if seen[addr] {
			return nil, fmt.Errorf("%s is listed twice", addr)
		}
		seen[addr] = true
		out = append(out, Listener{Address: addr, Release: rel})
	}
	return out, nil
}

func formatListeners(ls []Listener) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = l.Address + "=" + l.Release
	}
	return strings.Join(parts, ", ")
}

func parseTrustedProxies(s string) (string, error) {
	if _, err := auth.ParseTrustedProxies(s); err != nil {
		return "", fmt.Errorf("expected addresses or CIDR ranges separated by commas: %w", err)
	}
	return s, nil
}

func parseMongoURI(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "mongodb" && u.Scheme != "mongodb+srv") || u.Host == "" {
		return "", errors.New("expected mongodb://[user:password@]host[:port][/database][?options] or mongodb+srv://…")
	}
	return s, nil
}

func parseRedisURI(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	if _, err := redis.ParseURL(s); err != nil {
		const expected = "expected redis://[[user]:password@]host[:port][/db], rediss://… or unix:///path"
		if detail := redisDetail(s, err); detail != nil {
			return "", fmt.Errorf("%s: %w", expected, detail)
		}
		return "", errors.New(expected)
	}
	return s, nil
}

// redisDetail returns what go-redis found wrong with uri, without the
// password: url.Parse quotes the whole URI in its errors, and a password with
// a '/' or '#' in it moves its tail into the path or fragment, where go-redis
// quotes it. Nil means nothing can be said safely.
func redisDetail(uri string, err error) error {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		err = ue.Err
	}
	if !strings.Contains(uri, "@") {
		return err
	}
	u, perr := url.Parse(uri)
	if perr != nil || u.User == nil {
		return nil
	}
	if p, ok := u.User.Password(); ok && p != "" {
		return errors.New(strings.ReplaceAll(err.Error(), p, mask))
	}
	return err
}

// redactURI hides the password of a redis_uri. A URI with an '@' that does
// not parse, or has the '@' outside a user info part, may hold a password
// anywhere and is hidden whole.
func redactURI(s string) string {
	if s == "" {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		if strings.Contains(s, "@") {
			return mask
		}
		return s // without an '@' there is no user info, hence no password
	}
	if _, ok := u.User.Password(); !ok {
		return s
	}
	user := url.User(u.User.Username()).String()
	u.User = nil
	rest, ok := strings.CutPrefix(u.String(), u.Scheme+"://")
	if u.Scheme == "" || !ok {
		return mask
	}
	return u.Scheme + "://" + user + ":" + mask + "@" + rest
}

// parseUpstreamURI checks an upstream_uri (see upstream.ParseBaseURI) and
// normalises its path to end in /api. Empty means: serve natively.
func parseUpstreamURI(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	u, err := upstream.ParseBaseURI(s)
	if err != nil {
		return "", err
	}
	return u.String(), nil
}

// parseHosts parses elasticsearch_hosts: comma-separated http(s) URLs.
func parseHosts(s string) ([]string, error) {
	if splitsUserInfo(s) {
		// A ',' in a password: the parts are pieces of URLs, and quoting
		// one would show a piece of the password.
		return nil, errors.New("expected comma-separated http(s)://[user:password@]host:port URLs; write a ',' in a user name or password as %2C")
	}
	var hosts []string
	for _, h := range strings.Split(s, ",") {
		if h = strings.TrimSpace(h); h == "" {
			continue
		}
		u, err := url.Parse(h)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("expected comma-separated http(s)://[user:password@]host:port URLs, got %q", redactURI(h))
		}
		hosts = append(hosts, strings.TrimSuffix(h, "/"))
	}
	return hosts, nil
}

func formatHosts(hosts []string) string { return strings.Join(hosts, ",") }

// splitsUserInfo reports whether splitting s at its commas cuts through the
// user info of a URL: some part after the first does not start a URL of its
// own, and s has an '@'.
func splitsUserInfo(s string) bool {
	if !strings.Contains(s, "@") {
		return false
	}
	for i, p := range strings.Split(s, ",") {
		p = strings.ToLower(strings.TrimSpace(p))
		if i > 0 && p != "" && !strings.HasPrefix(p, "http://") && !strings.HasPrefix(p, "https://") {
			return true
		}
	}
	return false
}

func redactHosts(s string) string {
	if splitsUserInfo(s) {
		return mask
	}
	parts := strings.Split(s, ",")
	for i, p := range parts {
		parts[i] = redactURI(strings.TrimSpace(p))
	}
	return strings.Join(parts, ",")
}

// parseDuration parses a Go duration such as 12h or 90m, and days as 7d,
// the unit Graylog's files use for long durations.
// parseConcurrency reads a count of concurrent requests: 0 (the default)
// to 10,000.
func parseConcurrency(s string) (int, error) {
	n, err := strconv.Atoi(trim(s))
	if err != nil || n < 0 || n > 10_000 {
		return 0, errors.New("expected a whole number from 0 to 10000")
	}
	return n, nil
}

func parseDuration(s string) (time.Duration, error) {
	s = trim(s)
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n <= 0 || n > 100_000 {
			return 0, errors.New("expected a positive duration such as 12h, 90m or 7d")
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	v, err := time.ParseDuration(s)
	if err != nil || v <= 0 {
		return 0, errors.New("expected a positive duration such as 12h, 90m or 7d")
	}
	return v, nil
}

func formatDuration(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		return strconv.Itoa(int(d/(24*time.Hour))) + "d"
	}
	return d.String()
}

// parsePort reads a TCP port number.
func parsePort(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 || n > 65535 {
		return 0, fmt.Errorf("want a port number from 1 to 65535")
	}
	return n, nil
}

// parseSeconds reads a whole number of seconds, as Graylog's integer
// interval keys are written.
func parseSeconds(s string) (time.Duration, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 || n > 86400 {
		return 0, fmt.Errorf("want a number of seconds from 1 to 86400")
	}
	return time.Duration(n) * time.Second, nil
}

func formatSeconds(d time.Duration) string { return strconv.Itoa(int(d / time.Second)) }
