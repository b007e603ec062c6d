package authservices_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/loggate/loggate/backend/access/authservices"
)

// password reads the stored system password of a backend the way the
// authenticator does: by activating it and asking Active.
func (e *env) password(t testing.TB, id string) string {
	t.Helper()
	e.activate(t, id)
	a, err := e.svc.Active(t.Context())
	if err != nil || a == nil {
		t.Fatalf("Active: %v, %v", a, err)
	}
	return a.Config.SystemUserPassword
}

func TestEncryptedValueForms(t *testing.T) {
	cases := []struct {
		name, form string
		// wantCreate and wantUpdate are the stored password after a create,
		// and after an update of a backend created with "old".
		wantCreate, wantUpdate string
	}{
		{"plain string", `"new"`, "new", "new"},
		{"set_value", `{"set_value":"new"}`, "new", "new"},
		{"set_value with quotes", `{"set_value":"n\"e\\w"}`, `n"e\w`, `n"e\w`},
		{"empty set_value", `{"set_value":""}`, "", ""},
		{"empty string", `""`, "", ""},
		{"keep_value", `{"keep_value":true}`, "", "old"},
		{"delete_value", `{"delete_value":true}`, "", ""},
		{"null", `null`, "", ""},
		{"absent", ``, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			created := e.create(t, backendJSON("T", c.form))
			if created.passwordSet(t) != (c.wantCreate != "") {
				t.Errorf("create: is_set = %v, want %v", created.passwordSet(t), c.wantCreate != "")
			}
			if got := e.password(t, created.ID); got != c.wantCreate {
				t.Errorf("create: stored password %q, want %q", got, c.wantCreate)
			}

			id := e.create(t, backendJSON("T", `"old"`)).ID
			var out struct {
				Backend backendOut `json:"backend"`
			}
			e.ok(t, call{method: "PUT", path: backendsPath + "/" + id, body: backendJSON("T", c.form), perms: admin}, http.StatusOK, &out)
			if out.Backend.passwordSet(t) != (c.wantUpdate != "") {
				t.Errorf("update: is_set = %v, want %v", out.Backend.passwordSet(t), c.wantUpdate != "")
			}
			if got := e.password(t, id); got != c.wantUpdate {
				t.Errorf("update: stored password %q, want %q", got, c.wantUpdate)
			}
		})
	}
}

func TestPasswordIsNotStored(t *testing.T) {
	e := newEnv(t)
	const secret = "Sup3r-S3cret-Bind-Passw0rd"
	id := e.create(t, backendJSON("T", `{"set_value":"`+secret+`"}`)).ID
	e.activate(t, id)
	// Everything the service stored, in every collection it writes.
	var all bytes.Buffer
	for _, coll := range []string{authservices.Collection, authservices.ConfigCollection} {
		if err := e.st.List(t.Context(), coll, func(_ string, doc []byte) error {
			all.Write(doc)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if bytes.Contains(all.Bytes(), []byte(secret)) {
		t.Fatalf("the store holds the password in plain: %s", all.Bytes())
	}
	var doc struct {
		Config struct {
			SystemUserPassword struct {
				EncryptedValue string `json:"encrypted_value"`
			} `json:"system_user_password"`
		} `json:"config"`
	}
	raw, err := e.st.Get(t.Context(), authservices.Collection, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	sealed := doc.Config.SystemUserPassword.EncryptedValue
	if plain, err := e.sealer.Open(sealed); err != nil || plain != secret {
		t.Errorf("the stored value opens to %q, %v; want the password", plain, err)
	}
	// Nor does any answer carry it.
	for _, c := range []call{
		{method: "GET", path: backendsPath + "/" + id},
		{method: "GET", path: backendsPath},
		{method: "GET", path: "/system/authentication/services/active-backend"},
	} {
		c.perms = admin
		if w := e.do(t, c); bytes.Contains(w.Body.Bytes(), []byte(secret)) || bytes.Contains(w.Body.Bytes(), []byte(sealed)) {
			t.Errorf("GET %s shows the password: %s", c.path, w.Body)
		}
	}
}

func TestEncryptedValueFormatting(t *testing.T) {
	const secret = "hunter2-but-longer"
	v := authservices.SetValue(secret)
	login := authservices.UserLogin{Username: "alice", Password: secret}
	for _, s := range []string{
		fmt.Sprint(v), fmt.Sprintf("%v %+v %#v %s", v, v, v, v),
		fmt.Sprintf("%v %+v %#v", login, login, login),
		fmt.Sprintf("%+v", authservices.BackendInput{Password: v}),
		fmt.Sprintf("%+v", authservices.TestRequest{Backend: authservices.BackendInput{Password: v}, UserLogin: &login}),
	} {
		if bytes.Contains([]byte(s), []byte(secret)) {
			t.Errorf("formatting shows the secret: %s", s)
		}
	}
	if v.Value() != secret || v.Action != authservices.SecretSet {
		t.Errorf("SetValue(%q) = %v with value %q", secret, v, v.Value())
	}
	if authservices.KeepValue().Action != authservices.SecretKeep || authservices.DeleteValue().Action != authservices.SecretDelete {
		t.Errorf("KeepValue/DeleteValue have the wrong actions")
	}
}
