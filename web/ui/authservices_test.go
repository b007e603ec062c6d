package ui_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/loggate/loggate/auth/ldap/slapdtest"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// TestAuthServicesPage configures a directory in the interface against a
// real slapd: test the connection and a login, create the service, activate
// it, and a directory user logs in.
func TestAuthServicesPage(t *testing.T) {
	dir := slapdtest.Start(t)
	h := nodetest.Start(t)
	b := newBrowser(t, h)
	b.open("/system/authentication/services", "#login-form")
	b.login()
	b.until("the form", `document.getElementById('auth-form') !== null`)
	f := `#auth-form [name="%s"]`
	fields := map[string]string{"title": "Directory", "host": dir.Host, "port": fmt.Sprint(dir.Port), "system_user_dn": dir.AdminDN,
		"system_user_password": dir.AdminPassword, "user_search_base": slapdtest.PeopleDN,
		"test_user": slapdtest.Alice.UID, "test_password": slapdtest.Alice.Password}
	sel := map[string]string{}
	for k, v := range fields {
		sel[fmt.Sprintf(f, k)] = v
	}
	b.fill("the directory", sel)
	b.do("test the connection", chromedp.Click(chromedp.ID("auth-test-connection")), chromedp.WaitVisible(chromedp.CSS("#auth-test-result.ok")))
	b.do("test a login", chromedp.Click(chromedp.ID("auth-test-login")))
	b.until("login tested", `document.getElementById('auth-test-result').innerText.includes('Alice Liddell')`)
	b.shot("system-authentication-services-test")
	b.do("create", chromedp.Click(chromedp.ID("auth-create")))
	b.until("listed", `[...document.querySelectorAll('table.grid td')].some(td => td.textContent === 'Directory')`)
	b.do("activate", chromedp.Evaluate[chromedp.Void](`void [...document.querySelectorAll('table.grid button')].find(x => x.textContent === 'Activate').click()`))
	b.until("active", `document.querySelector('table.grid .badge.on') !== null`)
	active := h.Do("GET", "/system/authentication/services/configuration", nil, nodetest.AsRoot()).Get("configuration.active_backend").String()
	backend := h.Do("GET", "/system/authentication/services/backends/"+active, nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if !strings.Contains(string(backend.Body), `"Directory"`) {
		t.Fatalf("active backend: %s", backend.Body)
	}
	h.Do("POST", "/system/sessions", map[string]any{"username": slapdtest.Alice.UID, "password": slapdtest.Alice.Password, "host": ""}).Want(t, http.StatusOK)
	b.shot("system-authentication-services")
}
