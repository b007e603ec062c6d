package clusterconfig

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"

	"github.com/loggate/loggate/backend/logs/javaregex"

	"github.com/loggate/loggate/router/api"
)

// WhitelistEntry is one entry of Graylog's URL whitelist.
type WhitelistEntry struct {
	ID    string `json:"id"`
	Type  string `json:"type"` // literal or regex
	Value string `json:"value"`
	Title string `json:"title"`
}

// Whitelist is Graylog's UrlWhitelist: the URLs that HTTP notifications and
// lookup adapters may call.
type Whitelist struct {
	Entries  []WhitelistEntry `json:"entries"`
	Disabled bool             `json:"disabled"`
}

// Permits reports whether url is whitelisted: every URL is when the
// whitelist is disabled; else a literal entry must equal it or a regex
// entry be found in it, as Graylog's entries match.
func (w Whitelist) Permits(url string) bool {
	if w.Disabled {
		return true
	}
	for _, e := range w.Entries {
		switch e.Type {
		case "literal":
			if e.Value == url {
				return true
			}
		case "regex":
			if re, err := regexp.Compile(e.Value); err == nil && re.MatchString(url) {
				return true
			}
		}
	}
	return false
}

func (w Whitelist) validate() error {
	ids := map[string]bool{}
	for _, e := range w.Entries {
		if e.ID == "" {
			return errors.New("every entry needs an id")
		}
		if ids[e.ID] {
			return fmt.Errorf("there are entries with the duplicate id %q", e.ID)
		}
		ids[e.ID] = true
		switch e.Type {
		case "literal":
		case "regex":
			if err := javaregex.CheckSize(e.Value); err != nil {
				return fmt.Errorf("entry %q: invalid regular expression: %w", e.ID, err)
			}
			if _, err := regexp.Compile(e.Value); err != nil {
				return fmt.Errorf("entry %q: invalid regular expression: %w", e.ID, err)
			}
		default:
			return fmt.Errorf("entry %q: type must be literal or regex", e.ID)
		}
	}
	return nil
}

func validateWhitelist(doc []byte) error {
	var w Whitelist
	if err := json.Unmarshal(doc, &w); err != nil {
		return err
	}
	return w.validate()
}

// Whitelist returns the URL whitelist: the stored one, or an enabled one
// without entries, which is what Graylog starts with.
func (s *Service) Whitelist(ctx context.Context) (Whitelist, error) {
	w := Whitelist{Entries: []WhitelistEntry{}}
	err := s.load(ctx, URLWhitelistClass, &w)
	if w.Entries == nil {
		w.Entries = []WhitelistEntry{}
	}
	return w, err
}

// SetWhitelist stores the URL whitelist.
func (s *Service) SetWhitelist(ctx context.Context, w Whitelist) error {
	if w.Entries == nil {
		w.Entries = []WhitelistEntry{}
	}
	if err := w.validate(); err != nil {
		return invalid(err)
	}
	return s.save(ctx, URLWhitelistClass, w)
}

func invalid(err error) error {
	return api.Wrap(api.Invalid, "Invalid URL whitelist: "+err.Error(), err)
}

// templateVar is a placeholder of a URL template, ${name}.
var templateVar = regexp.MustCompile(`\$\{[^}]+\}`)

// RegexForTemplate is Graylog's RegexHelper.createRegexForUrlTemplate: a
// regex entry matching the URLs a template (an HTTP notification's or a
// lookup adapter's URL with ${placeholders}) produces — the text quoted,
// each placeholder any text.
func RegexForTemplate(template string) string {
	quoted := templateVar.ReplaceAllLiteralString(template, `\E.*?\Q`)
	return `^\Q` + quoted + `\E$`
}
