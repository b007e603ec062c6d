package migrate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/loggate/loggate/backend/access/authservices"
	"github.com/loggate/loggate/backend/access/users"
	"github.com/loggate/loggate/backend/system/loggers"
	"github.com/loggate/loggate/cmd/loggate/config"
	"github.com/loggate/loggate/cmd/loggate/node"
	legacyldap "github.com/loggate/loggate/legacy/ldap"
	"github.com/loggate/loggate/router/api"
)

func runLDAP(ctx context.Context, args, environ []string, o Options) error {
	f, rest, err := parseFlags(args)
	if err != nil {
		return err
	}
	cfg, warnings, err := config.Load(rest, environ)
	if errors.Is(err, config.ErrHelp) {
		fmt.Fprint(o.Stdout, Usage)
		return nil
	}
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintln(o.Stderr, "warning:", w)
	}
	var docs []legacyldap.Document
	source := f.from
	if f.from != "" {
		docs, err = readFile(f.from)
	} else {
		source = "MongoDB"
		docs, err = ReadMongoDB(ctx, f.fromMongoDB)
	}
	if err != nil {
		return err
	}
	secret := f.secret
	if secret == "" {
		secret = cfg.PasswordSecret
	}
	if err := checkUnlocked(cfg.DataDir); err != nil {
		return err
	}
	sink := loggers.NewTextSink(o.Stderr)
	n, err := node.New(ctx, cfg, node.Options{LogSink: sink})
	if err != nil {
		return fmt.Errorf("open data_dir %s: %w", cfg.DataDir, err)
	}
	defer n.Close()
	if pw := n.GeneratedRootPassword; pw != "" {
		// No node has started on data_dir: opening it generated the
		// administrator's password, and only its hash is kept.
		fmt.Fprintf(o.Stdout, "First start of data_dir %s: the password of %q is %s\n"+
			"It is shown this once; only its hash is kept. Set root_password_sha2 to choose your own.\n\n",
			cfg.DataDir, cfg.RootUsername, pw)
	}
	svc := legacyldap.NewService(n.AuthServices, legacyldap.RoleService(n.Roles), n.Store, n.Levels.Logger("loggate.migrate"))
	m := &ldapMigration{o: o, svc: svc, roles: legacyldap.RoleService(n.Roles), backends: n.AuthServices, users: n.Users, publish: cfg.HTTPPublishURI}
	return m.run(ctx, source, docs, secret, f.apply, f.linkUsers)
}

// lockTimeout is the store's wait for the data_dir lock.
const lockTimeout = 2 * time.Second

// checkUnlocked fails after lockTimeout when a node holds data_dir's
// store. node.New says so too, but its cleanup of a half-built node does
// not survive that failure yet; asking first keeps the message. A
// read-only open takes a shared lock and changes nothing.
func checkUnlocked(dataDir string) error {
	path := filepath.Join(dataDir, "loggate.db")
	if _, err := os.Stat(path); err != nil {
		return nil // a new data_dir: nothing can hold it
	}
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: lockTimeout})
	if errors.Is(err, berrors.ErrTimeout) {
		return fmt.Errorf("open %s: the file is locked, another loggate may be running with the same data_dir; stop it first", path)
	}
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	return db.Close()
}

// ldapMigration is one run of `loggate migrate ldap` on an open node.
type ldapMigration struct {
	o        Options
	svc      *legacyldap.Service
	roles    legacyldap.Roles
	backends *authservices.Service
	users    *users.Service
	publish  string
}

func (m *ldapMigration) run(ctx context.Context, source string, docs []legacyldap.Document, secret string, apply, link bool) error {
	out := m.o.Stdout
	fmt.Fprintf(out, "Read %d LDAP settings document(s) from %s.\n", len(docs), source)
	plans, err := m.svc.Plan(ctx, docs, secret)
	if err != nil {
		return err
	}
	todo := 0
	for _, p := range plans {
		printPlan(out, p, m.roleNames(ctx, p.Backend.DefaultRoles))
		if p.Skip == "" {
			todo++
		}
	}
	if apply && todo > 0 {
		if plans, err = m.svc.Apply(ctx, plans); err != nil {
			return err
		}
		for _, p := range plans {
			if p.BackendID != "" {
				fmt.Fprintf(out, "\nCreated the inactive backend %s (%q) for document %s.\n", p.BackendID, p.Backend.Title, p.Document.ID)
				fmt.Fprintf(out, "Review it, then activate it with the 4.0 API:\n  %s\n", activateCommand(m.publish, p.BackendID))
			}
		}
	}
	linked := 0
	if link {
		if linked, err = m.linkUsers(ctx, plans, apply); err != nil {
			return err
		}
	}
	switch {
	case todo == 0 && linked == 0:
		fmt.Fprintln(out, "\nNothing to do.")
	case !apply:
		fmt.Fprintln(out, "\nDry run: nothing was changed. Run again with --apply to do it.")
	}
	return nil
}

// activateCommand is the 4.0 API call that activates a backend.
func activateCommand(publish, id string) string {
	base := strings.TrimSuffix(publish, "/") + "/api"
	return fmt.Sprintf(`curl -u <admin> -H 'X-Requested-By: cli' -H 'Content-Type: application/json' -X POST %s/system/authentication/services/configuration -d '{"active_backend":"%s"}'`, base, id)
}

// roleNames names role ids for the operator ("Reader"), the id where the
// role has none.
func (m *ldapMigration) roleNames(ctx context.Context, ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id
		if name, err := m.roles.RoleName(ctx, id); err == nil {
			out[i] = name
		}
	}
	return out
}

// printPlan describes one document's migration, never a secret.
func printPlan(w io.Writer, p legacyldap.Plan, roles []string) {
	fmt.Fprintf(w, "\nDocument %s (%s):\n", p.Document.ID, p.Document.LdapURI)
	if p.Skip != "" {
		fmt.Fprintf(w, "  skipped: %s\n", p.Skip)
		return
	}
	b, c := p.Backend, p.Backend.Config
	fmt.Fprintf(w, "  creates an inactive %s backend:\n", c.Type)
	row := func(k, v string) { fmt.Fprintf(w, "    %-26s %s\n", k+":", v) }
	row("title", b.Title)
	row("description", b.Description)
	for _, s := range c.Servers {
		row("server", fmt.Sprintf("%s:%d", s.Host, s.Port))
	}
	row("transport_security", c.TransportSecurity)
	row("verify_certificates", fmt.Sprint(c.VerifyCertificates))
	row("system_user_dn", c.SystemUserDN)
	switch {
	case !p.PasswordStored:
		row("system_user_password", "none")
	case p.PasswordError != nil:
		row("system_user_password", "stored, but NOT decrypted: "+p.PasswordError.Error()+"; the backend gets none, set it before activating")
	default:
		row("system_user_password", "decrypted (not shown), re-encrypted with loggate's key")
	}
	row("user_search_base", c.UserSearchBase)
	row("user_search_pattern", c.UserSearchPattern)
	row("user_name_attribute", c.UserNameAttribute)
	row("user_full_name_attribute", c.UserFullNameAttribute)
	if c.UserUniqueIDAttribute != "" {
		row("user_unique_id_attribute", c.UserUniqueIDAttribute)
	}
	row("default_roles", strings.Join(roles, ", "))
	if err := c.Validate(); err != nil {
		row("WARNING", "the configuration is invalid and cannot be created: "+err.Error())
	}
	if len(p.GroupMapping) > 0 {
		fmt.Fprintf(w, "  group mapping (kept for reference, NOT applied: 4.0 has no LDAP group mapping):\n")
		groups := make([]string, 0, len(p.GroupMapping))
		for g := range p.GroupMapping {
			groups = append(groups, g)
		}
		sort.Strings(groups)
		for _, g := range groups {
			fmt.Fprintf(w, "    %s -> %s\n", g, p.GroupMapping[g])
		}
	}
}

// linkUsers links the external users that no existing backend owns to the
// backend created now or, without one, the standing backend. Their unique
// id is cleared, so the next login finds them by name and re-links them
// (users.Service.Provision). It returns how many users were (or, in a dry
// run, would be) linked.
func (m *ldapMigration) linkUsers(ctx context.Context, plans []legacyldap.Plan, apply bool) (int, error) {
	target := ""
	for _, p := range plans {
		if p.BackendID != "" {
			target = p.BackendID
			break
		}
	}
	if target == "" {
		var err error
		if target, err = m.svc.StandingID(ctx); err != nil {
			return 0, err
		}
	}
	all, err := m.users.All(ctx)
	if err != nil {
		return 0, err
	}
	var orphans []*users.User
	for _, u := range all {
		if !u.External || u.ReadOnly {
			continue
		}
		if u.AuthServiceID != "" {
			_, err := m.backends.Get(ctx, u.AuthServiceID)
			if err == nil {
				continue
			}
			if api.ErrorCode(err) != api.NotFound {
				return 0, err
			}
		}
		orphans = append(orphans, u)
	}
	out := m.o.Stdout
	if len(orphans) == 0 {
		return 0, nil
	}
	if target == "" {
		fmt.Fprintf(out, "\n%d external user(s) have no backend, but there is none to link them to (run with --apply first).\n", len(orphans))
		return 0, nil
	}
	if !apply {
		fmt.Fprintf(out, "\nWould link %d external user(s) to backend %s.\n", len(orphans), target)
		return len(orphans), nil
	}
	bar := newProgress(m.o.Stderr, m.o.Terminal, "linking users", len(orphans))
	for i, u := range orphans {
		err := m.users.Update(ctx, u.ID, func(u *users.User) error {
			u.AuthServiceID, u.AuthServiceUID, u.AuthServiceKey = target, "", ""
			return nil
		})
		if err != nil {
			return i, fmt.Errorf("link user %s: %w", u.Username, err)
		}
		bar.Step(i + 1)
	}
	fmt.Fprintf(out, "\nLinked %d external user(s) to backend %s; each is re-linked by name at its next login.\n", len(orphans), target)
	return len(orphans), nil
}
