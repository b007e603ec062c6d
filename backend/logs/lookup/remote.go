package lookup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/theory/jsonpath"

	"github.com/loggate/loggate/router/api"
)

// jsonPathConfig is the httpjsonpath adapter's settings
// (HTTPJSONPathDataAdapter.Config): the URL with ${key} in it, and the
// JSONPath expressions of the single and the multi value.
type jsonPathConfig struct {
	Type       string            `json:"type"`
	URL        string            `json:"url"`
	SinglePath string            `json:"single_value_jsonpath"`
	MultiPath  string            `json:"multi_value_jsonpath"`
	UserAgent  string            `json:"user_agent"`
	Headers    map[string]string `json:"headers"`
}

func newJSONPathConfig() *jsonPathConfig {
	return &jsonPathConfig{Type: "httpjsonpath", UserAgent: "Graylog Lookup - https://www.graylog.org/", Headers: map[string]string{}}
}

func (c *jsonPathConfig) remoteURL() string { return c.URL }

func (c *jsonPathConfig) check(v *api.ValidationError) {
	checkURL(v, c.URL)
	if c.SinglePath == "" {
		v.Add("single_value_jsonpath", "The single value JSONPath is required.")
	} else if _, err := jsonpath.Parse(c.SinglePath); err != nil {
		v.Add("single_value_jsonpath", "Invalid JSONPath: %v", err)
	}
	if c.MultiPath != "" {
		if _, err := jsonpath.Parse(c.MultiPath); err != nil {
			v.Add("multi_value_jsonpath", "Invalid JSONPath: %v", err)
		}
	}
}

type jsonPathAdapter struct {
	c             *jsonPathConfig
	client        *http.Client
	permitted     func(ctx context.Context, url string) (bool, error)
	header        http.Header
	single, multi *jsonpath.Path
	err           atomic.Pointer[string]
}

func newJSONPathAdapter(cfg config, e env) adapter {
	c := cfg.(*jsonPathConfig)
	a := &jsonPathAdapter{c: c, client: e.client, permitted: e.permitted, header: http.Header{"Accept": {"application/json"}}}
	for k, v := range c.Headers {
		a.header.Set(k, v)
	}
	if c.UserAgent != "" {
		a.header.Set("User-Agent", c.UserAgent)
	}
	a.single, _ = jsonpath.Parse(c.SinglePath)
	if c.MultiPath != "" {
		a.multi, _ = jsonpath.Parse(c.MultiPath)
	}
	return a
}

func (a *jsonPathAdapter) failure() string {
	if p := a.err.Load(); p != nil {
		return *p
	}
	return ""
}

func (a *jsonPathAdapter) get(ctx context.Context, key string) (Result, error) {
	u := strings.ReplaceAll(a.c.URL, "${key}", url.QueryEscape(key))
	b, err := fetch(ctx, a.client, a.permitted, u, a.header)
	if err != nil {
		msg := err.Error()
		a.err.Store(&msg)
		return failed(), err
	}
	a.err.Store(nil)
	return jsonPathResult(b, a.single, a.multi)
}

// jsonPathResult picks the values out of an answer: the single value must
// be a string, number or boolean; the multi value is an object, or
// anything else under "value" (a list of strings is the string list too).
func jsonPathResult(body []byte, singlePath, multiPath *jsonpath.Path) (Result, error) {
	var doc any
	if err := json.Unmarshal(body, &doc); err != nil {
		return failed(), fmt.Errorf("the answer is not JSON: %w", err)
	}
	first := func(p *jsonpath.Path) (any, bool) {
		if p == nil {
			return nil, false
		}
		nodes := p.Select(doc)
		if len(nodes) == 0 || nodes[0] == nil {
			return nil, false
		}
		return nodes[0], true
	}
	s, ok := first(singlePath)
	if !ok {
		return empty(), nil
	}
	switch s.(type) {
	case string, float64, bool:
	default:
		return empty(), nil
	}
	r := single(s)
	if m, ok := first(multiPath); ok {
		switch x := m.(type) {
		case map[string]any:
			r.Multi = x
		case []any:
			r.Multi = map[string]any{"value": x}
			r.StringList = stringList(x)
		default:
			r.Multi = map[string]any{"value": x}
		}
	}
	return r, nil
}

// stringList is a list whose items are all strings, or nil.
func stringList(items []any) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		s, ok := it.(string)
		if !ok {
			return nil
		}
		out = append(out, s)
	}
	return out
}

// dnsConfig is the dnslookup adapter's settings.
type dnsConfig struct {
	Type       string `json:"type"`
	LookupType string `json:"lookup_type"`
	ServerIPs  string `json:"server_ips"`
	// RequestTimeout is in milliseconds.
	RequestTimeout  int64   `json:"request_timeout"`
	TTLOverride     bool    `json:"cache_ttl_override_enabled"`
	TTLOverrideVal  int64   `json:"cache_ttl_override"`
	TTLOverrideUnit *string `json:"cache_ttl_override_unit"`
}

func newDNSConfig() *dnsConfig {
	return &dnsConfig{Type: "dnslookup", LookupType: "A", RequestTimeout: 10000}
}

// dnsTypes are the lookups the adapter makes.
var dnsTypes = []string{"A", "AAAA", "A_AAAA", "PTR", "TXT"}

func (c *dnsConfig) check(v *api.ValidationError) {
	found := false
	for _, t := range dnsTypes {
		found = found || t == c.LookupType
	}
	if !found {
		v.Add("lookup_type", "Unknown lookup type %q; use one of %s.", c.LookupType, strings.Join(dnsTypes, ", "))
	}
	if c.RequestTimeout < 1 {
		v.Add("request_timeout", "The request timeout must be at least 1 ms.")
	}
	for _, s := range c.servers() {
		host := s
		if h, _, err := net.SplitHostPort(s); err == nil {
			host = h
		}
		if net.ParseIP(host) == nil {
			v.Add("server_ips", "Invalid DNS server IP address %q.", s)
		}
	}
}

// servers are the configured DNS servers, host:port.
func (c *dnsConfig) servers() []string {
	var out []string
	for s := range strings.SplitSeq(c.ServerIPs, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(s); err != nil {
			s = net.JoinHostPort(s, "53")
		}
		out = append(out, s)
	}
	return out
}

type dnsAdapter struct {
	c        *dnsConfig
	resolver *net.Resolver
	ttl      int64
}

func newDNSAdapter(cfg config, _ env) adapter {
	c := cfg.(*dnsConfig)
	a := &dnsAdapter{c: c, resolver: net.DefaultResolver, ttl: noTTL}
	if servers := c.servers(); len(servers) > 0 {
		var next atomic.Uint32
		a.resolver = &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, servers[int(next.Add(1))%len(servers)])
		}}
	}
	if c.TTLOverride && c.TTLOverrideUnit != nil {
		if unit, ok := durationUnit(*c.TTLOverrideUnit); ok {
			a.ttl = (time.Duration(c.TTLOverrideVal) * unit).Milliseconds()
		}
	}
	return a
}

func (a *dnsAdapter) get(ctx context.Context, key string) (Result, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(a.c.RequestTimeout)*time.Millisecond)
	defer cancel()
	r, err := a.lookup(ctx, strings.TrimSpace(key))
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return empty(), nil
	}
	if err != nil {
		return failed(), err
	}
	if !r.Empty() {
		r.TTL = a.ttl
	}
	return r, nil
}

func (a *dnsAdapter) lookup(ctx context.Context, key string) (Result, error) {
	switch a.c.LookupType {
	case "PTR":
		if net.ParseIP(key) == nil {
			return empty(), nil
		}
		names, err := a.resolver.LookupAddr(ctx, key)
		if err != nil || len(names) == 0 {
			return empty(), err
		}
		fqdn := strings.TrimSuffix(names[0], ".")
		r := single(fqdn)
		r.Multi = map[string]any{"fqdn": fqdn, "domain": baseDomain(fqdn)}
		return r, nil
	case "TXT":
		txts, err := a.resolver.LookupTXT(ctx, key)
		if err != nil || len(txts) == 0 {
			return empty(), err
		}
		raw := make([]any, len(txts))
		for i, t := range txts {
			raw[i] = map[string]any{"value": t}
		}
		return Result{Multi: map[string]any{"raw_results": raw}, StringList: txts, TTL: noTTL}, nil
	}
	network := map[string]string{"A": "ip4", "AAAA": "ip6", "A_AAAA": "ip"}[a.c.LookupType]
	ips, err := a.resolver.LookupIP(ctx, network, key)
	if err != nil || len(ips) == 0 {
		return empty(), err
	}
	results := make([]any, len(ips))
	list := make([]string, len(ips))
	for i, ip := range ips {
		version := "IPv6"
		if ip.To4() != nil {
			version = "IPv4"
		}
		list[i] = ip.String()
		results[i] = map[string]any{"ip": list[i], "ip_version": version}
	}
	r := single(list[0])
	r.Multi = map[string]any{"results": results}
	r.StringList = list
	return r, nil
}

// baseDomain is the name's last two labels (example.com of
// www.example.com).
func baseDomain(fqdn string) string {
	labels := strings.Split(fqdn, ".")
	if len(labels) <= 2 {
		return fqdn
	}
	return strings.Join(labels[len(labels)-2:], ".")
}
