// Package migrate implements `loggate migrate`: one-off conversions run
// against a node's data_dir while no node serves it — a Graylog
// installation's settings into loggate's (ldap), and a single node's
// embedded stores into shared ones (store).
package migrate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Usage is the help text of the migrate command.
const Usage = `usage: loggate migrate ldap [--from FILE.json | --from-mongodb URI] [--graylog-password-secret S]
                           [--apply] [--link-users] [--config FILE] [--<key> value …]

Converts Graylog 3.x LDAP settings into a Graylog 4.0 LDAP or Active Directory
authentication backend, as Graylog 4.0's upgrade does: disabled settings are
skipped, the backend is created inactive until an operator activates it.

  --from FILE                 a mongoexport of the ldap_settings collection (one document, an
                              array, or one per line) or the body of 3.x GET /api/system/ldap/settings
  --from-mongodb URI          read the ldap_settings collection of the URI's database (default "graylog")
  --graylog-password-secret S the old Graylog's password_secret, to decrypt the system password
                              (default: loggate's own password_secret)
  --apply                     create the backend(s); without it, only show what would be done
  --link-users                link external users not linked to an existing backend to the new one
  --config, --<key>           the node's configuration, for its data_dir (no node may be running on it)

` + storeUsage

// Options are what a run needs from outside its arguments.
type Options struct {
	Stdout, Stderr io.Writer
	// Terminal reports whether Stderr is a terminal, where progress is a
	// bar redrawn in place rather than a line per tenth.
	Terminal bool
}

// Main runs `loggate migrate` with the process's terminal.
func Main(ctx context.Context, args, environ []string, stdout, stderr io.Writer) error {
	return Run(ctx, args, environ, Options{Stdout: stdout, Stderr: stderr, Terminal: isTerminal(stderr)})
}

// Run runs `loggate migrate <what> …`.
func Run(ctx context.Context, args, environ []string, o Options) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(o.Stdout, Usage)
		return nil
	}
	switch args[0] {
	case "ldap":
		return runLDAP(ctx, args[1:], environ, o)
	case "store":
		return runStore(ctx, args[1:], o)
	}
	return fmt.Errorf("unknown migration %q; run 'loggate migrate help'", args[0])
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// ldapFlags are the migration's own flags; the rest is node configuration.
type ldapFlags struct {
	from, fromMongoDB, secret string
	apply, linkUsers          bool
}

// parseFlags takes the migration's flags out of args and returns the rest
// for config.Load.
func parseFlags(args []string) (ldapFlags, []string, error) {
	var f ldapFlags
	var rest []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		if !strings.HasPrefix(arg, "-") {
			rest = append(rest, arg)
			continue
		}
		var str *string
		var flag *bool
		switch name {
		case "from":
			str = &f.from
		case "from-mongodb":
			str = &f.fromMongoDB
		case "graylog-password-secret":
			str = &f.secret
		case "apply":
			flag = &f.apply
		case "link-users":
			flag = &f.linkUsers
		default:
			rest = append(rest, arg)
			continue
		}
		if flag != nil {
			*flag = true
			if hasValue {
				b, err := strconv.ParseBool(value)
				if err != nil {
					return f, nil, fmt.Errorf("flag --%s: %w", name, err)
				}
				*flag = b
			}
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return f, nil, fmt.Errorf("flag --%s needs a value", name)
			}
			i++
			value = args[i]
		}
		*str = value
	}
	switch {
	case f.from != "" && f.fromMongoDB != "":
		return f, nil, errors.New("give either --from or --from-mongodb, not both")
	case f.from == "" && f.fromMongoDB == "":
		return f, nil, errors.New("say where the 3.x LDAP settings are: --from FILE.json or --from-mongodb URI")
	}
	return f, rest, nil
}
