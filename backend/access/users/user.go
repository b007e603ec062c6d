// Package users owns user accounts: their storage, the root user from the
// configuration, the identities authentication checks, and the /users
// resource.
package users

import (
	"encoding/json"
	"math"
	"strings"
	"time"
	"unicode"
)

// Collection is the store collection of users.
const Collection = "users"

// DefaultSessionTimeout is Graylog's default session_timeout_ms (8 h).
const DefaultSessionTimeout = 8 * time.Hour

// Account statuses, as Graylog 4.0 names them.
const (
	StatusEnabled  = "enabled"
	StatusDisabled = "disabled"
	StatusDeleted  = "deleted" // kept, but like disabled it cannot log in
)

// User is a stored user.
type User struct {
	ID       string `json:"id"`
	Username string `json:"username"`
	// UsernameLower (FoldName of Username) makes usernames unique
	// regardless of case: permissions compare case-insensitively, so alice
	// and ALICE must not both exist. Lookups go through it too.
	UsernameLower    string          `json:"username_lower"`
	Email            string          `json:"email"`
	FullName         string          `json:"full_name"`
	PasswordHash     string          `json:"password_hash"`
	Permissions      []string        `json:"permissions"`
	Preferences      json.RawMessage `json:"preferences,omitempty"`
	Timezone         *string         `json:"timezone"`
	SessionTimeoutMs int64           `json:"session_timeout_ms"`
	External         bool            `json:"external"`
	Startpage        *Startpage      `json:"startpage"`
	RoleIDs          []string        `json:"role_ids"`
	AccountStatus    string          `json:"account_status"`
	ServiceAccount   bool            `json:"service_account"` // token use only; cannot log in
	// AuthServiceID and AuthServiceUID link an external user to the
	// authentication backend that created it and to its entry there
	// (entryUUID or objectGUID, base64 as in Graylog).
	AuthServiceID  string `json:"auth_service_id,omitempty"`
	AuthServiceUID string `json:"auth_service_uid,omitempty"`
	// AuthServiceKey is AuthServiceID and AuthServiceUID joined, for the
	// unique index that finds the user of a directory entry.
	AuthServiceKey string `json:"auth_service_key,omitempty"`
	ReadOnly       bool   `json:"-"` // only the root user, which is never stored
}

// Startpage is a user's start page.
type Startpage struct {
	Type *string `json:"type"`
	ID   *string `json:"id"`
}

// Enabled reports whether the account may log in.
func (u *User) Enabled() bool { return u.AccountStatus == StatusEnabled || u.AccountStatus == "" }

// SessionTimeout returns the user's session timeout. Graylog takes any
// long (Long.MAX_VALUE for "never"); one past what a time.Duration holds
// (~292 years) is that much, not an overflow into the past.
func (u *User) SessionTimeout() time.Duration {
	if u.SessionTimeoutMs <= 0 {
		return DefaultSessionTimeout
	}
	const maxMs = math.MaxInt64 / int64(time.Millisecond)
	return time.Duration(min(u.SessionTimeoutMs, maxMs)) * time.Millisecond
}

// sessionTimeoutMs is session_timeout_ms as set, or the default.
func (u *User) sessionTimeoutMs() int64 {
	if u.SessionTimeoutMs <= 0 {
		return DefaultSessionTimeout.Milliseconds()
	}
	return u.SessionTimeoutMs
}

// selfPermissions are held implicitly by every user on their own account.
// Graylog keys them by username, even in 4.0.
func selfPermissions(username string) []string {
	return []string{
		"users:edit:" + username,
		"users:passwordchange:" + username,
		"users:tokenlist:" + username,
		"users:tokencreate:" + username,
		"users:tokenremove:" + username,
	}
}

var defaultPreferences = json.RawMessage(`{"updateUnfocussed":false,"enableSmartSearch":true}`)

// Summary is Graylog 4.0's UserSummary.
type Summary struct {
	ID               string          `json:"id"`
	Username         string          `json:"username"`
	Email            string          `json:"email"`
	FullName         string          `json:"full_name"`
	Permissions      []string        `json:"permissions"`
	GRNPermissions   []string        `json:"grn_permissions"`
	Preferences      json.RawMessage `json:"preferences"`
	Timezone         *string         `json:"timezone"`
	SessionTimeoutMs int64           `json:"session_timeout_ms"`
	ReadOnly         bool            `json:"read_only"`
	External         bool            `json:"external"`
	Startpage        *Startpage      `json:"startpage"`
	Roles            []string        `json:"roles"`
	SessionActive    bool            `json:"session_active"`
	LastActivity     *string         `json:"last_activity"`
	ClientAddress    *string         `json:"client_address"`
	AccountStatus    string          `json:"account_status"`
	ServiceAccount   bool            `json:"service_account"`
}

// Ref returns the user's id and username, for references to the user in
// other resources' answers.
func (s Summary) Ref() (id, username string) { return s.ID, s.Username }

// Overview is Graylog 4.0's UserOverviewDTO, the item of /users/paginated.
type Overview struct {
	ID             string   `json:"id"`
	AuthServiceID  *string  `json:"auth_service_id"`
	AuthServiceUID *string  `json:"auth_service_uid"`
	Username       string   `json:"username"`
	Email          string   `json:"email"`
	FullName       string   `json:"full_name"`
	ExternalUser   bool     `json:"external_user"`
	Roles          []string `json:"roles"`
	ReadOnly       bool     `json:"read_only"`
	SessionActive  bool     `json:"session_active"`
	LastActivity   *string  `json:"last_activity"`
	ClientAddress  *string  `json:"client_address"`
	AccountStatus  string   `json:"account_status"`
	ServiceAccount bool     `json:"service_account"`
}

// FoldName is the one case folding of usernames, for their uniqueness, their
// lookup and logins alike: whatever makes a name taken also finds it. Each
// character becomes the lower case of the first of its Unicode simple case
// folding orbit, so that the Kelvin sign folds like K and k, as permissions
// compare them; for ASCII it is strings.ToLower, which earlier releases
// stored.
func FoldName(name string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return unicode.ToLower(least)
	}, name)
}
