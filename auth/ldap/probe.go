package ldap

import (
	"context"
	"errors"
	"fmt"
)

// Result is the outcome of a backend test, in the shape of Graylog 4.0's
// AuthServiceBackendTestResult: a headline, the errors behind a failure and,
// for a login test, what was found.
type Result struct {
	Success bool           `json:"success"`
	Message string         `json:"message"`
	Errors  []string       `json:"errors"`
	Details map[string]any `json:"result"`
}

// TestConnection connects and binds as the system user (anonymously when
// there is none), for an administrator checking a configuration that may
// still be incomplete.
func (d *Directory) TestConnection(ctx context.Context) Result {
	s, err := d.open(ctx)
	if err != nil {
		return failure("Couldn't establish connection to "+d.where(), nil, err)
	}
	s.close()
	return Result{Success: true, Message: "Successfully connected to " + d.url, Errors: []string{}, Details: map[string]any{}}
}

// TestLogin authenticates username as Authenticate does and reports each
// step for an administrator: whether the user exists, whether the login
// succeeded, and the entry found (also returned when the password was
// wrong).
func (d *Directory) TestLogin(ctx context.Context, username, password string) (Result, *Entry) {
	if err := d.precheck(username); err != nil {
		return failure("Couldn't test user login on "+d.where(), nil, err), nil
	}
	s, err := d.open(ctx)
	if err != nil {
		return failure("Couldn't establish connection to "+d.where(), nil, err), nil
	}
	defer s.close()
	e, err := s.findUser(d, username)
	switch {
	case errors.Is(err, ErrUnknownUser):
		return failure(fmt.Sprintf("User <%s> doesn't exist", username), loginDetails(d.cfg, nil, false), err), nil
	case err != nil:
		return failure("Couldn't test user login on "+d.url, nil, err), nil
	}
	if password == "" {
		err = fmt.Errorf("%w: empty password", ErrInvalidCredentials)
	} else {
		err = s.bindUser(e.DN, password)
	}
	if err != nil {
		return failure(fmt.Sprintf("Login for user <%s> failed", username), loginDetails(d.cfg, e, false), err), e
	}
	return Result{
		Success: true,
		Message: fmt.Sprintf("Successfully logged in <%s> into %s", username, d.url),
		Errors:  []string{},
		Details: loginDetails(d.cfg, e, true),
	}, e
}

func (d *Directory) where() string {
	if d.url == "" {
		return "<no server>"
	}
	return d.url
}

func failure(msg string, details map[string]any, err error) Result {
	if details == nil {
		details = map[string]any{}
	}
	return Result{Message: msg, Errors: []string{err.Error()}, Details: details}
}

// loginDetails is Graylog's login test result: the user's DN, unique id
// (base64, as Graylog stores it), name, full name and email under the
// configured attribute names.
func loginDetails(cfg Config, e *Entry, loggedIn bool) map[string]any {
	user := map[string]string{}
	if e != nil {
		user["dn"] = e.DN
		user[cfg.uniqueIDAttribute()] = e.Base64UniqueID()
		user[cfg.UserNameAttribute] = e.Username
		user[cfg.UserFullNameAttribute] = e.FullName
		user["email"] = e.Email
	}
	return map[string]any{"user_exists": e != nil, "login_success": loggedIn, "user_details": user}
}
