package users_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/access/users"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

func TestCreateAndGet(t *testing.T) {
	h := nodetest.Start(t)
	r := h.Do("POST", "/users", map[string]any{
		"username": "jdoe", "password": "secret1", "email": "jdoe@example.org", "full_name": "John Doe",
		"permissions": []string{"streams:read"}, "timezone": "Europe/Berlin", "session_timeout_ms": 3600000,
	}, nodetest.AsRoot())
	r.Want(t, http.StatusCreated)
	if loc := r.Header.Get("Location"); loc != h.URL+"/users/jdoe" {
		t.Errorf("Location %q", loc)
	}
	if len(r.Body) != 0 {
		t.Errorf("create answered a body: %s", r.Body)
	}
	u := h.Do("GET", "/users/jdoe", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	want := map[string]string{
		"username": "jdoe", "email": "jdoe@example.org", "full_name": "John Doe", "timezone": "Europe/Berlin",
		"session_timeout_ms": "3600000", "account_status": "enabled", "read_only": "false", "external": "false",
		"roles": `["Reader"]`,
	}
	for f, v := range want {
		if got := u.Get(f).Raw; strings.Trim(got, `"`) != v {
			t.Errorf("%s = %s, want %s", f, got, v)
		}
	}
	// Exactly Graylog 4.0.17's UserSummary fields (4.0.0's plus
	// service_account), nothing of the stored record.
	var fields []string
	for k := range u.Get("@this").Map() {
		fields = append(fields, k)
	}
	slices.Sort(fields)
	want4 := []string{"account_status", "client_address", "email", "external", "full_name", "grn_permissions", "id",
		"last_activity", "permissions", "preferences", "read_only", "roles", "service_account", "session_active",
		"session_timeout_ms", "startpage", "timezone", "username"}
	if !slices.Equal(fields, want4) {
		t.Errorf("UserSummary fields %v, want %v", fields, want4)
	}
	perms := u.Get("permissions").Raw
	for _, p := range []string{"streams:read", "users:edit:jdoe", "metrics:read"} {
		if !strings.Contains(perms, `"`+p+`"`) {
			t.Errorf("effective permissions lack %s: %s", p, perms)
		}
	}
	if strings.Contains(string(u.Body), "secret1") || strings.Contains(string(u.Body), "$2a$") {
		t.Errorf("password or hash leaked: %s", u.Body)
	}
	byID := h.Do("GET", "/users/id/"+u.Get("id").String(), nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if byID.Get("username").String() != "jdoe" {
		t.Errorf("by id: %s", byID.Body)
	}
	// The new user can log in; bcrypt is what is stored.
	h.Do("GET", "/users/jdoe", nil, nodetest.Basic("jdoe", "secret1")).Want(t, http.StatusOK)
}

func TestCreateErrors(t *testing.T) {
	h := nodetest.Start(t)
	h.CreateUser("taken", "pw")
	base := func(edit func(map[string]any)) map[string]any {
		m := map[string]any{"username": "new", "password": "pw", "email": "n@example.org", "full_name": "N", "permissions": []string{}}
		edit(m)
		return m
	}
	cases := []struct {
		name string
		body any
		msg  string
	}{
		{"taken", base(func(m map[string]any) { m["username"] = "taken" }), "Cannot create user taken. Username is already taken."},
		{"root name", base(func(m map[string]any) { m["username"] = "admin" }), "Username is already taken"},
		{"missing full_name", base(func(m map[string]any) { delete(m, "full_name") }), "Missing required properties: full_name."},
		{"missing several", map[string]any{"username": "x"}, "Missing required properties: password, email, full_name, permissions."},
		{"unknown property", base(func(m map[string]any) { m["first_name"] = "N" }), "Unable to map property first_name"},
		{"unknown role", base(func(m map[string]any) { m["roles"] = []string{"Reader", "Wizards"} }), "Invalid role names: Wizards"},
		{"bad permission", base(func(m map[string]any) { m["permissions"] = []string{"a::b"} }), "a::b"},
		{"bad timezone", base(func(m map[string]any) { m["timezone"] = "Mars/Olympus" }), "Invalid timezone"},
		{"bad timeout", base(func(m map[string]any) { m["session_timeout_ms"] = 0 }), "session_timeout_ms"},
		{"colon in name", base(func(m map[string]any) { m["username"] = "a:b" }), "must not contain ':'"},
		{"star as name", base(func(m map[string]any) { m["username"] = "*" }), "must not contain"},
		{"comma in name", base(func(m map[string]any) { m["username"] = "a,b" }), "must not contain"},
		{"other case of a taken name", base(func(m map[string]any) { m["username"] = "TAKEN" }), "Username is already taken"},
		{"other case of root", base(func(m map[string]any) { m["username"] = "Admin" }), "Username is already taken"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h.Do("POST", "/users", c.body, nodetest.AsRoot()).WantError(t, http.StatusBadRequest, c.msg)
		})
	}
	h.Do("GET", "/users/new", nil, nodetest.AsRoot()).Want(t, http.StatusNotFound)
}

func TestGetErrors(t *testing.T) {
	h := nodetest.Start(t)
	h.CreateUser("alice", "alicepw")
	h.CreateUser("bob", "bobpw")
	h.Do("GET", "/users/ghost", nil, nodetest.AsRoot()).WantError(t, http.StatusNotFound, "Couldn't find user ghost")
	h.Do("GET", "/users/id/5f0000000000000000000000", nil, nodetest.AsRoot()).WantError(t, http.StatusNotFound, "Couldn't find user with ID 5f0000000000000000000000")
	h.Do("GET", "/users/id/not-hex", nil, nodetest.AsRoot()).WantError(t, http.StatusNotFound, "Couldn't find user with ID not-hex")
	// Alice may read herself, not Bob, and the answer does not tell whether
	// a user exists.
	h.Do("GET", "/users/alice", nil, nodetest.Basic("alice", "alicepw")).Want(t, http.StatusOK)
	h.Do("GET", "/users/bob", nil, nodetest.Basic("alice", "alicepw")).WantError(t, http.StatusForbidden, "Not allowed to view user bob")
	h.Do("GET", "/users/ghost", nil, nodetest.Basic("alice", "alicepw")).WantError(t, http.StatusForbidden, "Not allowed to view user ghost")
	bobID := h.Do("GET", "/users/bob", nil, nodetest.AsRoot()).Get("id").String()
	h.Do("GET", "/users/id/"+bobID, nil, nodetest.Basic("alice", "alicepw")).WantError(t, http.StatusForbidden, "Not allowed to view userId "+bobID)
	// Root by its fixed id.
	root := h.Do("GET", "/users/id/local:admin", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if !root.Get("read_only").Bool() || root.Get("username").String() != "admin" {
		t.Errorf("root: %s", root.Body)
	}
}

func TestList(t *testing.T) {
	h := nodetest.Start(t)
	h.CreateUser("zed", "pw")
	h.CreateUser("amy", "pw")
	r := h.Do("GET", "/users", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if names := r.Get("users.#.username").Raw; names != `["admin","amy","graylog-sidecar","zed"]` {
		t.Errorf("GET /users: root must come first, then the stored users by name: %v", names)
	}
	if r.Header.Get("Deprecation") != "true" || !strings.Contains(r.Header.Get("Link"), `/api/users/paginated>; rel="successor-version"`) {
		t.Errorf("deprecation headers: %v", r.Header)
	}
	h.Do("GET", "/users", nil, nodetest.Basic("amy", "pw")).WantError(t, http.StatusForbidden, "Not authorized")
}

func TestPaginated(t *testing.T) {
	h := nodetest.Start(t)
	for i := range 7 {
		h.CreateUser(fmt.Sprintf("user%d", i), "pw")
	}
	r := h.Do("GET", "/users/paginated?page=2&per_page=3&sort=username&order=desc", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	// The seven and the built-in graylog-sidecar.
	if r.Get("total").Int() != 8 || r.Get("page").Int() != 2 || r.Get("per_page").Int() != 3 || r.Get("count").Int() != 3 {
		t.Errorf("envelope: %s", r.Body)
	}
	if got := r.Get("users.#.username").Raw; got != `["user3","user2","user1"]` {
		t.Errorf("page 2 desc: %s", got)
	}
	if r.Get("context.admin_user.username").String() != "admin" || r.Get("grand_total").Exists() {
		t.Errorf("context/grand_total: %s", r.Body)
	}
	if !r.Get("users.0.external_user").Exists() || !r.Get("users.0.account_status").Exists() {
		t.Errorf("overview fields: %s", r.Get("users.0").Raw)
	}
	q := h.Do("GET", "/users/paginated?query=username:user4", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if q.Get("total").Int() != 1 || q.Get("query").String() != "username:user4" {
		t.Errorf("query: %s", q.Body)
	}
	// Huge numbers are empty pages, not a crash or a huge allocation.
	huge := h.Do("GET", "/users/paginated?per_page=2000000000&page=9223372036854775806", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if huge.Get("count").Int() != 0 {
		t.Errorf("huge page: %s", huge.Body)
	}
	h.Do("GET", "/users/paginated?per_page=9223372036854775807", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	for _, bad := range []string{"page=0", "per_page=-1", "per_page=x", "sort=password", "order=up", `query=color:red`, `query="open`} {
		h.Do("GET", "/users/paginated?"+bad, nil, nodetest.AsRoot()).WantError(t, http.StatusBadRequest, "")
	}
	// Paginated and unpaginated listings agree.
	all := h.Do("GET", "/users/paginated?per_page=100&sort=username", nil, nodetest.AsRoot())
	list := h.Do("GET", "/users", nil, nodetest.AsRoot())
	if int(all.Get("total").Int())+1 != len(list.Get("users").Array()) {
		t.Errorf("paginated total %d + root != %d listed", all.Get("total").Int(), len(list.Get("users").Array()))
	}
}

func TestUpdate(t *testing.T) {
	h := nodetest.Start(t)
	id := h.CreateUser("carol", "pw")
	h.Do("PUT", "/users/"+id, map[string]any{"full_name": "Carol C", "email": "c@example.org", "timezone": "Asia/Tokyo", "roles": []string{"Admin"}, "unknown": 1}, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	u := h.Do("GET", "/users/carol", nil, nodetest.AsRoot())
	if u.Get("full_name").String() != "Carol C" || u.Get("timezone").String() != "Asia/Tokyo" || u.Get("roles").Raw != `["Admin"]` {
		t.Errorf("after update: %s", u.Body)
	}
	// Absent timezone leaves it; explicit null clears it.
	h.Do("PUT", "/users/"+id, map[string]any{"email": "c2@example.org"}, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	if h.Do("GET", "/users/carol", nil, nodetest.AsRoot()).Get("timezone").String() != "Asia/Tokyo" {
		t.Error("partial update cleared the timezone")
	}
	h.Do("PUT", "/users/"+id, `{"timezone":null}`, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	if tz := h.Do("GET", "/users/carol", nil, nodetest.AsRoot()).Get("timezone"); tz.Type.String() != "Null" {
		t.Errorf("timezone %s after null", tz.Raw)
	}
	// A user editing themselves cannot grant themselves roles or permissions.
	h.CreateUser("dave", "pw")
	daveID := h.Do("GET", "/users/dave", nil, nodetest.AsRoot()).Get("id").String()
	h.Do("PUT", "/users/"+daveID, map[string]any{"roles": []string{"Admin"}, "permissions": []string{"*"}, "full_name": "D"}, nodetest.Basic("dave", "pw")).Want(t, http.StatusNoContent)
	d := h.Do("GET", "/users/dave", nil, nodetest.AsRoot())
	if d.Get("roles").Raw != `["Reader"]` || strings.Contains(d.Get("permissions").Raw, `"*"`) || d.Get("full_name").String() != "D" {
		t.Errorf("self-escalation: %s", d.Body)
	}
	h.Do("PUT", "/users/"+id, map[string]any{"full_name": "x"}, nodetest.Basic("dave", "pw")).WantError(t, http.StatusForbidden, "Not authorized")
	h.Do("PUT", "/users/local:admin", map[string]any{"full_name": "x"}, nodetest.AsRoot()).WantError(t, http.StatusBadRequest, "Cannot modify readonly user admin")
	h.Do("PUT", "/users/5f0000000000000000000000", map[string]any{"full_name": "x"}, nodetest.AsRoot()).WantError(t, http.StatusNotFound, "Couldn't find user with ID")
	h.Do("PUT", "/users/"+id, map[string]any{"roles": []string{"Nope"}}, nodetest.AsRoot()).WantError(t, http.StatusBadRequest, "Invalid role names: Nope")
	h.Do("PUT", "/users/"+id, `{"timezone": 5}`, nodetest.AsRoot()).WantError(t, http.StatusBadRequest, "")
}

func TestPassword(t *testing.T) {
	h := nodetest.Start(t)
	id := h.CreateUser("erin", "old-pw")
	as := nodetest.Basic("erin", "old-pw")
	h.Do("PUT", "/users/"+id+"/password", map[string]any{"password": "new-pw"}, as).WantError(t, http.StatusBadRequest, "Old password is missing or incorrect.")
	h.Do("PUT", "/users/"+id+"/password", map[string]any{"old_password": "wrong", "password": "new-pw"}, as).WantError(t, http.StatusBadRequest, "Old password is missing or incorrect.")
	// Cache the old credentials, then change the password: they stop working at once.
	h.Do("GET", "/users/erin", nil, as).Want(t, http.StatusOK)
	h.Do("PUT", "/users/"+id+"/password", map[string]any{"old_password": "old-pw", "password": "new-pw"}, as).Want(t, http.StatusNoContent)
	h.Do("GET", "/users/erin", nil, as).Want(t, http.StatusUnauthorized)
	h.Do("GET", "/users/erin", nil, nodetest.Basic("erin", "new-pw")).Want(t, http.StatusOK)
	// An administrator resets it without the old one.
	h.Do("PUT", "/users/"+id+"/password", map[string]any{"password": "reset-pw"}, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	h.Do("GET", "/users/erin", nil, nodetest.Basic("erin", "reset-pw")).Want(t, http.StatusOK)
	// Others may not.
	h.CreateUser("frank", "pw")
	h.Do("PUT", "/users/"+id+"/password", map[string]any{"old_password": "reset-pw", "password": "x"}, nodetest.Basic("frank", "pw")).
		WantError(t, http.StatusForbidden, "Not allowed to change password for user erin")
	h.Do("PUT", "/users/local:admin/password", map[string]any{"old_password": "adminpass", "password": "x"}, nodetest.AsRoot()).
		WantError(t, http.StatusBadRequest, "Cannot modify readonly user admin")
	h.Do("PUT", "/users/"+id+"/password", map[string]any{"password": ""}, nodetest.AsRoot()).WantError(t, http.StatusBadRequest, "password")
}

func TestStatus(t *testing.T) {
	h := nodetest.Start(t)
	id := h.CreateUser("gina", "pw")
	as := nodetest.Basic("gina", "pw")
	h.Do("GET", "/users/gina", nil, as).Want(t, http.StatusOK)
	h.Do("PUT", "/users/"+id+"/status/DISABLED", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	h.Do("PUT", "/users/"+id+"/status/disabled", nil, nodetest.AsRoot()).Want(t, http.StatusNotModified)
	h.Do("GET", "/users/gina", nil, as).Want(t, http.StatusUnauthorized)
	if s := h.Do("GET", "/users/gina", nil, nodetest.AsRoot()).Get("account_status").String(); s != "disabled" {
		t.Errorf("account_status %q", s)
	}
	h.Do("PUT", "/users/"+id+"/status/enabled", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	h.Do("GET", "/users/gina", nil, as).Want(t, http.StatusOK)
	h.Do("PUT", "/users/"+id+"/status/sleeping", nil, nodetest.AsRoot()).WantError(t, http.StatusBadRequest, "Invalid account status")
	h.Do("PUT", "/users/"+id+"/status/deleted", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	h.Do("GET", "/users/gina", nil, as).Want(t, http.StatusUnauthorized)
	h.Do("PUT", "/users/"+id+"/status/enabled", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	h.Do("PUT", "/users/"+id+"/status/disabled", nil, as).WantError(t, http.StatusBadRequest, "Users are not allowed to set their own status")
}

func TestDelete(t *testing.T) {
	h := nodetest.Start(t)
	id := h.CreateUser("hank", "pw")
	tok, _ := h.CreateToken(id, "t", nodetest.Basic("hank", "pw"))
	sid := h.Login("hank", "pw")
	h.Do("GET", "/cluster", nil, nodetest.Token(tok)).Want(t, http.StatusOK)
	h.Do("DELETE", "/users/hank", nil, nodetest.Basic("hank", "pw")).WantError(t, http.StatusForbidden, "")
	h.Do("DELETE", "/users/hank", nil, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	h.Do("DELETE", "/users/hank", nil, nodetest.AsRoot()).WantError(t, http.StatusNotFound, "Couldn't find user hank")
	for _, opt := range []nodetest.ReqOption{nodetest.Token(tok), nodetest.Session(sid), nodetest.Basic("hank", "pw")} {
		h.Do("GET", "/cluster", nil, opt).Want(t, http.StatusUnauthorized)
	}
	id2 := h.CreateUser("ivy", "pw")
	h.Do("DELETE", "/users/id/"+id2, nil, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	h.Do("DELETE", "/users/id/"+id2, nil, nodetest.AsRoot()).WantError(t, http.StatusNotFound, "Couldn't find user "+id2)
	h.Do("DELETE", "/users/admin", nil, nodetest.AsRoot()).WantError(t, http.StatusBadRequest, "Cannot delete readonly user admin")
}

func TestPermissionsAndPreferences(t *testing.T) {
	h := nodetest.Start(t)
	h.CreateUser("jack", "pw")
	h.Do("PUT", "/users/jack/permissions", map[string]any{"permissions": []string{"Streams:Read:abc", "metrics:read"}}, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	perms := h.Do("GET", "/users/jack", nil, nodetest.AsRoot()).Get("permissions").Raw
	if !strings.Contains(perms, "streams:read:abc") {
		t.Errorf("permissions %s", perms)
	}
	h.Do("PUT", "/users/jack/permissions", map[string]any{"permissions": []string{"bad::"}}, nodetest.AsRoot()).WantError(t, http.StatusBadRequest, "")
	h.Do("PUT", "/users/jack/permissions", map[string]any{"permissions": []string{"*"}}, nodetest.Basic("jack", "pw")).WantError(t, http.StatusForbidden, "")
	h.Do("PUT", "/users/ghost/permissions", map[string]any{"permissions": []string{}}, nodetest.AsRoot()).WantError(t, http.StatusNotFound, "ghost")
	h.Do("DELETE", "/users/jack/permissions", nil, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	if strings.Contains(h.Do("GET", "/users/jack", nil, nodetest.AsRoot()).Get("permissions").Raw, "streams:read:abc") {
		t.Error("permissions not cleared")
	}
	h.Do("PUT", "/users/jack/preferences", map[string]any{"preferences": map[string]any{"enableSmartSearch": false}}, nodetest.Basic("jack", "pw")).Want(t, http.StatusNoContent)
	if got := h.Do("GET", "/users/jack", nil, nodetest.AsRoot()).Get("preferences.enableSmartSearch"); got.Type.String() != "False" {
		t.Errorf("preferences %s", got.Raw)
	}
	h.Do("PUT", "/users/jack/preferences", map[string]any{"preferences": []int{1}}, nodetest.AsRoot()).WantError(t, http.StatusBadRequest, "object")
}

// Graylog's Sidecar system user is there from the start, as its migration
// creates it at every start: a service account with the Sidecar System
// (Internal) and Reader roles that no password logs in; deleted or stripped
// of a role, it is back at the next start.
func TestSidecarUser(t *testing.T) {
	h := nodetest.Start(t)
	check := func() string {
		t.Helper()
		r := h.Do("GET", "/users/graylog-sidecar", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
		if r.Get("full_name").String() != "Sidecar System User (built-in)" || r.Get("email").String() != "sidecar@graylog.local" ||
			!r.Get("service_account").Bool() || r.Get("read_only").Bool() || r.Get("timezone").String() != "UTC" {
			t.Errorf("graylog-sidecar: %s", r.Body)
		}
		if roles := r.Get("roles").Raw; !strings.Contains(roles, `"Sidecar System (Internal)"`) || !strings.Contains(roles, `"Reader"`) {
			t.Errorf("graylog-sidecar roles: %s", roles)
		}
		return r.Get("id").String()
	}
	id := check()
	h.Do("GET", "/users/graylog-sidecar", nil, nodetest.Basic("graylog-sidecar", "")).Want(t, http.StatusUnauthorized)
	h.Restart()
	if check() != id {
		t.Errorf("graylog-sidecar created again though it was there")
	}
	h.Do("PUT", "/users/"+id, map[string]any{"roles": []string{"Reader"}}, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	h.Restart()
	if check() != id {
		t.Errorf("graylog-sidecar replaced, not given its roles back")
	}
	h.Do("DELETE", "/users/id/"+id, nil, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	h.Do("GET", "/users/graylog-sidecar", nil, nodetest.AsRoot()).Want(t, http.StatusNotFound)
	h.Restart()
	check()
}

func TestUsersSurviveRestart(t *testing.T) {
	h := nodetest.Start(t)
	id := h.CreateUser("kim", "kimpw")
	h.Restart()
	r := h.Do("GET", "/users/kim", nil, nodetest.Basic("kim", "kimpw")).Want(t, http.StatusOK)
	if r.Get("id").String() != id {
		t.Errorf("id changed across restart")
	}
}

// One folding makes a username taken, finds it and logs it in: a name taken
// by another case (or by the Kelvin sign, which folds like k) is also found
// and logs in under that case.
func TestUsernameFolding(t *testing.T) {
	h := nodetest.Start(t)
	kelvin := "\u212aadmin"
	h.CreateUser(kelvin, "kelvinpw")
	h.CreateUser("Carol", "carolpw")
	body := map[string]any{"username": "kadmin", "password": "pw", "email": "k@example.org", "full_name": "K", "permissions": []string{}}
	h.Do("POST", "/users", body, nodetest.AsRoot()).WantError(t, http.StatusBadRequest, "Username is already taken")
	for _, c := range []struct{ name, stored, password string }{
		{"kadmin", kelvin, "kelvinpw"}, {"KADMIN", kelvin, "kelvinpw"}, {kelvin, kelvin, "kelvinpw"},
		{"carol", "Carol", "carolpw"}, {"CAROL", "Carol", "carolpw"}, {"ADMIN", "admin", nodetest.RootPassword},
	} {
		got := h.Do("GET", "/users/"+url.PathEscape(c.name), nil, nodetest.AsRoot()).Want(t, http.StatusOK).Get("username").String()
		if got != c.stored {
			t.Errorf("GET /users/%s found %q, want %q", c.name, got, c.stored)
		}
		h.Do("GET", "/cluster", nil, nodetest.Basic(c.name, c.password)).Want(t, http.StatusOK)
		sid := h.Login(c.name, c.password)
		if got := h.Do("GET", "/system/sessions", nil, nodetest.Session(sid)).Get("is_valid").Bool(); !got {
			t.Errorf("session of %s is not valid", c.name)
		}
	}
	h.Do("GET", "/cluster", nil, nodetest.Basic("kadmin", "carolpw")).Want(t, http.StatusUnauthorized)
}

// FuzzFoldName: names equal under Unicode simple case folding (as
// permissions compare them) fold to the same name.
func FuzzFoldName(f *testing.F) {
	f.Add("kadmin", "\u212aADMIN")
	f.Add("ſam", "SAM")
	f.Add("σς", "ΣΣ")
	f.Fuzz(func(t *testing.T, a, b string) {
		if strings.EqualFold(a, b) && users.FoldName(a) != users.FoldName(b) {
			t.Errorf("FoldName(%q) = %q, FoldName(%q) = %q", a, users.FoldName(a), b, users.FoldName(b))
		}
		if users.FoldName(users.FoldName(a)) != users.FoldName(a) {
			t.Errorf("FoldName is not idempotent on %q", a)
		}
	})
}

// TestListingActivity: the listings, which read every user's sessions in
// one pass, show each user's activity as the single user does.
func TestListingActivity(t *testing.T) {
	h := nodetest.Start(t)
	for _, name := range []string{"ann", "ben", "cid"} {
		h.CreateUser(name, "pw")
	}
	h.Login("ann", "pw")
	h.Login("ben", "pw")
	h.Login("ben", "pw")
	single := map[string]string{}
	for _, name := range []string{"ann", "ben", "cid"} {
		u := h.Do("GET", "/users/"+name, nil, nodetest.AsRoot()).Want(t, http.StatusOK)
		single[name] = u.Get("session_active").Raw + " " + u.Get("last_activity").Raw + " " + u.Get("client_address").Raw
	}
	if !strings.HasPrefix(single["ann"], "true ") || !strings.HasPrefix(single["ben"], "true ") || single["cid"] != "false null null" {
		t.Fatalf("single users' activity: %v", single)
	}
	list := h.Do("GET", "/users", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	page := h.Do("GET", "/users/paginated?per_page=10", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	for name, want := range single {
		for _, r := range []*nodetest.Response{list, page} {
			u := r.Get(`users.#(username=="` + name + `")`)
			if got := u.Get("session_active").Raw + " " + u.Get("last_activity").Raw + " " + u.Get("client_address").Raw; got != want {
				t.Errorf("%s listed with activity %q, alone %q", name, got, want)
			}
		}
	}
	if page.Get("context.admin_user.username").String() != "admin" {
		t.Errorf("admin_user: %s", page.Get("context").Raw)
	}
}
