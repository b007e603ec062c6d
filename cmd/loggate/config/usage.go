package config

import (
	"errors"
	"fmt"
	"strings"
)

// ErrHelp is returned by Load when the arguments ask for help (-h, --help).
// The caller prints Usage.
var ErrHelp = errors.New("config: help requested")

// Usage describes the configuration sources and every key with its default.
func Usage() string {
	var b strings.Builder
	b.WriteString(`Configuration, lowest precedence first: defaults; the file named by --config
(Graylog server.conf syntax: key = value); environment variables LOGGATE_<KEY>,
e.g. LOGGATE_HTTP_BIND_ADDRESS; flags --<key> value or --<key>=value.
Keep secrets in the file or the environment: command lines are visible to all users.

  --config FILE
    	read keys from FILE (environment: LOGGATE_CONFIG)
`)
	for _, name := range Keys() {
		k := byName[name]
		arg := " value"
		if k.Bool {
			arg = ""
		}
		fmt.Fprintf(&b, "  --%s%s\n    \t%s", k.Name, arg, k.Description)
		if k.Default != "" {
			fmt.Fprintf(&b, " (default %q)", k.Default)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
