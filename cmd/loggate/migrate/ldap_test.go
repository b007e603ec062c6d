package migrate_test

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/loggate/loggate/auth/ldap/slapdtest"
	"github.com/loggate/loggate/backend/access/authservices"
	"github.com/loggate/loggate/backend/access/users"
	"github.com/loggate/loggate/cmd/loggate/config"
	"github.com/loggate/loggate/cmd/loggate/migrate"
	"github.com/loggate/loggate/cmd/loggate/node"
	"github.com/loggate/loggate/internal/golden"
)

const (
	// oldSecret is the password_secret of the Graylog 3.x the settings
	// come from; loggate has its own.
	oldSecret   = "graylog3-old-password-secret-0123456789abcdef"
	newSecret   = "loggate-test-secret-0123456789"
	salt        = "0f1e2d3c4b5a6978"
	rootHashHex = "" // filled in init
)

var rootHash = func() string { s := sha256.Sum256([]byte("adminpass")); return hex.EncodeToString(s[:]) }()

// encrypt is Graylog 3.x's AESTools.encrypt: AES/CBC/ISO10126Padding, the
// key the first 16 bytes of password_secret, the IV the salt, in hex.
func encrypt(t *testing.T, plain string) string {
	t.Helper()
	block, err := aes.NewCipher([]byte(oldSecret[:16]))
	if err != nil {
		t.Fatal(err)
	}
	pad := aes.BlockSize - len(plain)%aes.BlockSize
	b := append([]byte(plain), slices.Repeat([]byte{0x42}, pad-1)...)
	b = append(b, byte(pad))
	out := make([]byte, len(b))
	cipher.NewCBCEncrypter(block, []byte(salt)).CryptBlocks(out, b)
	return hex.EncodeToString(out)
}

// fixture is a data_dir and the 3.x settings of a directory.
type fixture struct {
	dataDir, file string
	dir           *slapdtest.Server
	cipher        string
}

func (f *fixture) args(extra ...string) []string {
	return append([]string{"ldap", "--from", f.file, "--graylog-password-secret", oldSecret,
		"--data_dir", f.dataDir, "--password_secret", newSecret, "--root_password_sha2", rootHash,
		"--http_publish_uri", "http://loggate.example.org:9000/"}, extra...)
}

// run runs the command and returns its stdout and stderr.
func (f *fixture) run(t *testing.T, extra ...string) (string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := migrate.Run(context.Background(), f.args(extra...), nil, migrate.Options{Stdout: &out, Stderr: &errOut}); err != nil {
		t.Fatalf("migrate %v: %v\nstderr: %s", extra, err, errOut.String())
	}
	got := out.String() + errOut.String()
	for _, secret := range []string{"adminpass", slapdtest.AdminPassword, f.cipher, oldSecret, newSecret} {
		if strings.Contains(got, secret) {
			t.Errorf("the output shows a secret (%.6s…):\n%s", secret, got)
		}
	}
	return out.String(), errOut.String()
}

// open opens the data_dir as the command does, for checks.
func (f *fixture) open(t *testing.T) *node.Node {
	t.Helper()
	cfg, _, err := config.Load([]string{"--data_dir", f.dataDir, "--password_secret", newSecret, "--root_password_sha2", rootHash}, nil)
	if err != nil {
		t.Fatal(err)
	}
	n, err := node.New(context.Background(), cfg, node.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	return n
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{dataDir: t.TempDir(), dir: slapdtest.Start(t, slapdtest.WithTLS())}
	f.file = filepath.Join(t.TempDir(), "ldap_settings.json")
	// The roles of the old Graylog are ids; the Reader role keeps its id
	// here, Graylog 3.x's "Dashboard Creator" no longer exists.
	n := f.open(t)
	reader, err := n.Roles.ByName(context.Background(), "Reader")
	if err != nil {
		t.Fatal(err)
	}
	// A user a 3.x LDAP login created, whose backend is gone.
	if err := n.Users.Create(context.Background(), &users.User{Username: "alice", Email: "alice@example.org", FullName: "Alice Liddell",
		External: true, RoleIDs: []string{reader.ID}, AuthServiceID: "5f0000000000000000000000", AuthServiceUID: "b2xk", AuthServiceKey: "5f0000000000000000000000:b2xk"}); err != nil {
		t.Fatal(err)
	}
	_ = n.Close()
	f.cipher = encrypt(t, slapdtest.AdminPassword)
	doc := fmt.Sprintf(`{"_id":{"$oid":"5c0a1b2c3d4e5f6a7b8c9d0e"},"enabled":true,"system_username":%q,"system_password":%q,
"system_password_salt":%q,"ldap_uri":"ldap://%s:%d","use_start_tls":true,"trust_all_certificates":true,"active_directory":false,
"search_base":%q,"principal_search_pattern":"(&(objectClass=inetOrgPerson)(uid={0}))","username_attribute":"cn",
"default_group":%q,"additional_default_groups":["5a0000000000000000000001"],
"group_mapping_list":[{"group":"cn=admins,ou=groups,dc=example,dc=org","role_id":%q},{"group":"cn=ops,ou=groups,dc=example,dc=org","role_id":"5a0000000000000000000001"}],
"group_search_base":"ou=groups,dc=example,dc=org","group_id_attribute":"cn","group_search_pattern":"(objectClass=groupOfNames)"}
{"_id":{"$oid":"5c0a1b2c3d4e5f6a7b8c9d0f"},"enabled":false,"ldap_uri":"ldap://old-ldap.example.org:389","principal_search_pattern":"(uid={0})"}
`, slapdtest.AdminDN, f.cipher, salt, f.dir.Host, f.dir.Port, slapdtest.PeopleDN, reader.ID, reader.ID)
	if err := os.WriteFile(f.file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

var objectID = regexp.MustCompile(`[0-9a-f]{24}`)

// normalise hides what differs between runs: the directory's port, ids.
func (f *fixture) normalise(s string) string {
	s = strings.ReplaceAll(s, fmt.Sprintf("%s:%d", f.dir.Host, f.dir.Port), "<slapd>")
	s = strings.ReplaceAll(s, f.file, "<file>")
	return objectID.ReplaceAllStringFunc(s, func(id string) string {
		if strings.HasPrefix(id, "5c0a") || strings.HasPrefix(id, "5a00") {
			return id // the fixture's own
		}
		return "<id>"
	})
}

func compareGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name+".golden"), []byte(got))
}

// backendDocs returns the stored backends and legacy record, raw.
func backendDocs(t *testing.T, n *node.Node) string {
	t.Helper()
	var b strings.Builder
	for _, coll := range []string{authservices.Collection, "legacy_ldap"} {
		err := n.Store.List(context.Background(), coll, func(id string, doc []byte) error {
			fmt.Fprintf(&b, "%s/%s %s\n", coll, id, doc)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

func TestMigrateLDAP(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)

	// The dry run shows the plan and changes nothing.
	out, _ := f.run(t)
	compareGolden(t, "dry_run", f.normalise(out))
	n := f.open(t)
	if docs := backendDocs(t, n); docs != "" {
		t.Fatalf("the dry run stored %s", docs)
	}
	_ = n.Close()

	// --apply creates one inactive backend.
	out, _ = f.run(t, "--apply")
	compareGolden(t, "apply", f.normalise(out))
	n = f.open(t)
	bs, err := n.AuthServices.List(ctx)
	if err != nil || len(bs) != 1 {
		t.Fatalf("backends %+v, %v", bs, err)
	}
	b := bs[0]
	reader, _ := n.Roles.ByName(ctx, "Reader")
	if b.Title != fmt.Sprintf("LDAP - ldap://%s:%d", f.dir.Host, f.dir.Port) || b.Config.TransportSecurity != "start_tls" ||
		b.Config.VerifyCertificates || !b.PasswordSet || b.Config.UserNameAttribute != "uid" || b.Config.UserFullNameAttribute != "cn" ||
		b.Config.UserUniqueIDAttribute != "entryUUID" || !slices.Equal(b.DefaultRoles, []string{reader.ID}) {
		t.Errorf("backend %+v", b)
	}
	if !strings.Contains(out, b.ID) {
		t.Errorf("the output does not name the backend %s", b.ID)
	}
	if id, _ := n.AuthServices.ActiveID(ctx); id != "" {
		t.Fatalf("the migration activated %s", id)
	}
	// Activated, it logs directory users in with the decrypted password.
	if err := n.AuthServices.SetActive(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	active, err := n.AuthServices.Active(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := active.Directory.Authenticate(ctx, slapdtest.Bob.UID, slapdtest.Bob.Password); err != nil {
		t.Errorf("directory login with the migrated backend: %v", err)
	}
	before := backendDocs(t, n)
	_ = n.Close()

	// A second run has nothing to do.
	out, _ = f.run(t, "--apply")
	if !strings.Contains(out, "already migrated") || !strings.Contains(out, "Nothing to do.") {
		t.Errorf("second run:\n%s", out)
	}
	n = f.open(t)
	if after := backendDocs(t, n); after != before {
		t.Errorf("the second run changed the store:\n--- before\n%s--- after\n%s", before, after)
	}
	_ = n.Close()

	// --link-users links alice, whose backend is gone, to the new one.
	out, progress := f.run(t, "--apply", "--link-users")
	if !strings.Contains(out, "Linked 1 external user(s) to backend "+b.ID) || progress != "linking users: 1/1 (100%)\n" {
		t.Errorf("link users:\n%s\nstderr: %q", out, progress)
	}
	n = f.open(t)
	alice, err := n.Users.ByName(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if alice.AuthServiceID != b.ID || alice.AuthServiceUID != "" || alice.AuthServiceKey != "" {
		t.Errorf("alice after linking: %+v", alice)
	}
	// Her next login re-links her by name.
	id, err := (authLogin{n}).login(ctx, "alice", slapdtest.Alice.Password)
	if err != nil || id != alice.ID {
		t.Errorf("alice's login: %q, %v; want her account %s", id, err, alice.ID)
	}
	_ = n.Close()
	out, _ = f.run(t, "--apply", "--link-users")
	if !strings.Contains(out, "Nothing to do.") {
		t.Errorf("third run:\n%s", out)
	}
}

// authLogin logs a directory user in through the node's authenticator.
type authLogin struct{ n *node.Node }

func (a authLogin) login(ctx context.Context, user, password string) (string, error) {
	active, err := a.n.AuthServices.Active(ctx)
	if err != nil {
		return "", err
	}
	e, err := active.Directory.Authenticate(ctx, user, password)
	if err != nil {
		return "", err
	}
	idn, err := a.n.Users.Provision(ctx, users.ExternalAccount{BackendID: active.BackendID, UID: e.Base64UniqueID(),
		Username: e.Username, FullName: e.FullName, Email: e.Email, DefaultRoles: active.DefaultRoles})
	if err != nil {
		return "", err
	}
	return idn.UserID, nil
}

func TestMigrateLDAPWrongSecret(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var out, errOut bytes.Buffer
	args := f.args()
	args[4] = "not-the-old-graylog-secret"
	if err := migrate.Run(context.Background(), args, nil, migrate.Options{Stdout: &out, Stderr: &errOut}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "stored, but NOT decrypted") {
		t.Errorf("output:\n%s", out.String())
	}
}

func TestFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"ldap"}, "say where the 3.x LDAP settings are"},
		{[]string{"ldap", "--from", "a", "--from-mongodb", "b"}, "either --from or --from-mongodb"},
		{[]string{"ldap", "--from"}, "needs a value"},
		{[]string{"ldap", "--from=x", "--apply=maybe"}, "--apply"},
		{[]string{"ldap", "--from", "/nonexistent/file.json", "--data_dir", "x"}, "no such file"},
		{[]string{"users"}, `unknown migration "users"`},
	}
	for _, tc := range tests {
		var out bytes.Buffer
		err := migrate.Run(context.Background(), tc.args, nil, migrate.Options{Stdout: &out, Stderr: &out})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
	var out bytes.Buffer
	if err := migrate.Run(context.Background(), []string{"help"}, nil, migrate.Options{Stdout: &out}); err != nil || !strings.Contains(out.String(), "--link-users") {
		t.Errorf("help: %v %s", err, out.String())
	}
}

// A node serving the data_dir holds its lock: the command gives up with a
// message saying so rather than waiting.
func TestMigrateLDAPWhileNodeRuns(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.open(t)
	var out bytes.Buffer
	err := migrate.Run(context.Background(), f.args("--apply"), nil, migrate.Options{Stdout: &out, Stderr: &out})
	if err == nil || !strings.Contains(err.Error(), "another loggate may be running with the same data_dir") {
		t.Errorf("got %v, want the lock message", err)
	}
}

// On a data_dir no node has started on, opening it generates the root
// password, as a first start does: the command must show it once, or no one
// can ever log in as the administrator.
func TestMigrateLDAPFreshDataDirShowsRootPassword(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(t.TempDir(), "data")
	file := filepath.Join(t.TempDir(), "ldap_settings.json")
	if err := os.WriteFile(file, []byte(`{"_id":{"$oid":"5c0a1b2c3d4e5f6a7b8c9d0f"},"enabled":false,"ldap_uri":"ldap://old-ldap.example.org:389"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	args := []string{"ldap", "--from", file, "--data_dir", dataDir, "--password_secret", newSecret}
	if err := migrate.Run(context.Background(), args, nil, migrate.Options{Stdout: &out, Stderr: &errOut}); err != nil {
		t.Fatalf("migrate: %v\nstderr: %s", err, errOut.String())
	}
	cfg, _, err := config.Load([]string{"--data_dir", dataDir, "--password_secret", newSecret}, nil)
	if err != nil {
		t.Fatal(err)
	}
	n, err := node.New(context.Background(), cfg, node.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if n.GeneratedRootPassword != "" {
		return // the command left the store without a root password: nothing was lost
	}
	m := regexp.MustCompile(`password of "admin" is (\S+)`).FindStringSubmatch(out.String() + errOut.String())
	if m == nil {
		t.Fatalf("the root password was generated and stored, but the output does not show it:\n%s%s", out.String(), errOut.String())
	}
	if _, err := n.Auth.VerifyPassword(context.Background(), "admin", m[1]); err != nil {
		t.Errorf("the password shown does not log admin in: %v", err)
	}
}
