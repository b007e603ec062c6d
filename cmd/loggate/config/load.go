package config

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// envPrefix starts the environment variables Load reads.
const envPrefix = "LOGGATE_"

// source says where a value came from, for errors and warnings.
type source struct {
	kind string // "file", "env" or "flag"
	name string // the file path, the variable or the flag name
	line int    // for files
}

func (s source) String() string {
	switch s.kind {
	case "file":
		return fmt.Sprintf("file %s line %d", s.name, s.line)
	case "env":
		return "env " + s.name
	}
	return "flag --" + s.name
}

// setting is one key = value from one source.
type setting struct {
	key, value string
	src        source
}

// Load builds the configuration from args (the command-line arguments after
// the subcommand), environ (in os.Environ form) and the file named by
// --config, or by LOGGATE_CONFIG when there is no --config flag.
//
// Keys loggate does not know give warnings, for the caller to log; they are
// returned even when err is not nil. Every invalid value is reported, joined
// into err. A help flag (-h, --help) returns ErrHelp; Usage has the text.
func Load(args []string, environ []string) (cfg Config, warnings []string, err error) {
	flags, path, err := parseArgs(args)
	if err != nil {
		return Config{}, nil, err
	}
	env, envPath := parseEnviron(environ)
	if path == "" {
		path = envPath
	}
	var settings []setting
	if path != "" {
		if settings, err = readFile(path); err != nil {
			return Config{}, nil, err
		}
	}
	settings = append(append(settings, env...), flags...)
	cfg, warnings, err = resolve(settings)
	cfg.ConfigFile = path
	return cfg, warnings, err
}

// resolve applies settings, later ones winning, over the defaults. Only the
// winning value of a key is checked: a bad value in a file can be overridden
// from the environment without editing the file.
func resolve(settings []setting) (Config, []string, error) {
	var warnings []string
	final := make(map[string]setting)
	for _, s := range settings {
		if _, ok := byName[s.key]; !ok {
			warnings = append(warnings, unknownKey(s))
			continue
		}
		final[s.key] = s
	}
	cfg := defaults()
	var errs []error
	for i := range table {
		k := &table[i]
		if s, ok := final[k.Name]; ok {
			if err := k.Set(&cfg, s.value); err != nil {
				errs = append(errs, invalid(k, s, err))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, warnings, err
	}
	if cfg.HTTPPublishURI == "" {
		var wildcard bool
		cfg.HTTPPublishURI, wildcard = derivePublishURI(cfg.HTTPBindAddress)
		if wildcard {
			warnings = append(warnings, fmt.Sprintf(
				"http_publish_uri is not set and http_bind_address %q listens on all interfaces: publishing %s, which other hosts cannot reach; set http_publish_uri",
				cfg.HTTPBindAddress, cfg.HTTPPublishURI))
		}
	}
	return cfg, warnings, nil
}

func invalid(k *Key, s setting, err error) error {
	if k.Secret {
		return fmt.Errorf("invalid %s (%s): %w", k.Name, s.src, err)
	}
	return fmt.Errorf("invalid %s %q (%s): %w", k.Name, k.display(s.value), s.src, err)
}

func unknownKey(s setting) string {
	msg := fmt.Sprintf("ignoring unknown configuration key %q (%s)", s.key, s.src)
	if near := suggest(s.key); near != "" {
		msg += fmt.Sprintf("; did you mean %q?", near)
	}
	return msg
}

// readFile reads and parses the configuration file at path.
func readFile(path string) ([]setting, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config file: %w", err)
	}
	entries, err := parseFile(data)
	if err != nil {
		return nil, fmt.Errorf("config file %s %w", path, err)
	}
	settings := make([]setting, len(entries))
	for i, e := range entries {
		settings[i] = setting{key: e.key, value: e.value, src: source{kind: "file", name: path, line: e.line}}
	}
	return settings, nil
}

// parseEnviron returns the LOGGATE_ variables as settings, and
// LOGGATE_CONFIG apart.
func parseEnviron(environ []string) (settings []setting, configPath string) {
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, envPrefix) {
			continue
		}
		key, value := strings.ToLower(name[len(envPrefix):]), trim(value)
		if key == "config" {
			configPath = value
			continue
		}
		settings = append(settings, setting{key: key, value: value, src: source{kind: "env", name: name}})
	}
	return settings, configPath
}

// parseArgs reads --key value, --key=value and bare --key for booleans, with
// one or two dashes as Go's flag package allows. Unknown flags are kept for
// a warning, taking the next argument as their value unless it looks like a
// flag. There are no positional arguments, so a bare boolean may also be
// followed by its value (--http_enable_cors false).
func parseArgs(args []string) (flags []setting, configPath string, err error) {
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			if i+1 < len(args) {
				return nil, "", fmt.Errorf("unexpected argument %q", args[i+1])
			}
			break
		}
		if len(arg) < 2 || arg[0] != '-' {
			return nil, "", fmt.Errorf("unexpected argument %q: expected --key value or --key=value", arg)
		}
		name := strings.TrimPrefix(arg[1:], "-")
		if name == "" || name[0] == '-' || name[0] == '=' {
			return nil, "", fmt.Errorf("bad flag syntax: %s", arg)
		}
		name, value, hasValue := strings.Cut(name, "=")
		if name == "h" || name == "help" {
			return nil, "", ErrHelp
		}
		k := byName[name]
		known := k != nil || name == "config"
		switch {
		case hasValue:
		case k != nil && k.Bool:
			value = "true"
			if i+1 < len(args) && isBool(args[i+1]) {
				i++
				value = args[i]
			}
		case i+1 < len(args) && (known || !strings.HasPrefix(args[i+1], "-")):
			i++
			value = args[i]
		case known:
			return nil, "", fmt.Errorf("flag --%s needs a value", name)
		}
		value = trim(value)
		if name == "config" {
			if value == "" {
				return nil, "", errors.New("flag --config needs a value")
			}
			configPath = value
			continue
		}
		flags = append(flags, setting{key: name, value: value, src: source{kind: "flag", name: name}})
	}
	return flags, configPath, nil
}

func isBool(s string) bool {
	_, err := strconv.ParseBool(strings.ToLower(s))
	return err == nil
}

// suggest returns the known key closest to an unknown one, if it is close
// enough to be a typo, such as http-bind-address or HTTP_BIND_ADRESS.
func suggest(unknown string) string {
	u := strings.ReplaceAll(strings.ToLower(unknown), "-", "_")
	best, bestDist := "", 3
	for i := range table {
		if d := distance(u, table[i].Name); d < bestDist {
			best, bestDist = table[i].Name, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
