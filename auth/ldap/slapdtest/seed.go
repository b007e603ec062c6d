package slapdtest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-ldap/ldap/v3"
)

// User is an inetOrgPerson under PeopleDN.
type User struct {
	UID, Password, CN, Mail string
}

// The users every server starts with. Treat them as constants.
var (
	Alice = User{UID: "alice", Password: "alicepw", CN: "Alice Liddell", Mail: "alice@example.org"}
	Bob   = User{UID: "bob", Password: "bobpw", CN: "Bob Builder", Mail: "bob@example.org"}
)

// UserDN is the DN of the user uid under PeopleDN.
func UserDN(uid string) string { return "uid=" + ldap.EscapeDN(uid) + "," + PeopleDN }

// AddUser adds an inetOrgPerson uid under PeopleDN with the password (stored
// salted and hashed, as slappasswd would), common name cn and mail, and
// returns its DN. An empty mail leaves the attribute out.
func (s *Server) AddUser(tb testing.TB, uid, password, cn, mail string) string {
	tb.Helper()
	c, err := s.adminConn()
	if err != nil {
		tb.Fatalf("slapdtest: %v", err)
	}
	defer c.Close()
	dn, err := addUser(c, User{UID: uid, Password: password, CN: cn, Mail: mail})
	if err != nil {
		tb.Fatalf("slapdtest: add user %s: %v", uid, err)
	}
	return dn
}

// Admin returns a connection bound as AdminDN, closed when tb ends, for
// tests that shape the directory beyond AddUser.
func (s *Server) Admin(tb testing.TB) *ldap.Conn {
	tb.Helper()
	c, err := s.adminConn()
	if err != nil {
		tb.Fatalf("slapdtest: %v", err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	return c
}

func (s *Server) adminConn() (*ldap.Conn, error) {
	c, err := s.dial(5 * time.Second)
	if err != nil {
		return nil, err
	}
	if err := c.Bind(AdminDN, AdminPassword); err != nil {
		c.Close()
		return nil, fmt.Errorf("bind as %s: %w", AdminDN, err)
	}
	return c, nil
}

// seed creates the suffix, PeopleDN, Alice and Bob.
func (s *Server) seed() error {
	c, err := s.adminConn()
	if err != nil {
		return err
	}
	defer c.Close()
	base := ldap.NewAddRequest(BaseDN, nil)
	base.Attribute("objectClass", []string{"dcObject", "organization"})
	base.Attribute("o", []string{"Example Org"})
	base.Attribute("dc", []string{"example"})
	people := ldap.NewAddRequest(PeopleDN, nil)
	people.Attribute("objectClass", []string{"organizationalUnit"})
	people.Attribute("ou", []string{"people"})
	for _, req := range []*ldap.AddRequest{base, people} {
		if err := c.Add(req); err != nil {
			return fmt.Errorf("add %s: %w", req.DN, err)
		}
	}
	for _, u := range []User{Alice, Bob} {
		if _, err := addUser(c, u); err != nil {
			return fmt.Errorf("add %s: %w", u.UID, err)
		}
	}
	return nil
}

func addUser(c *ldap.Conn, u User) (string, error) {
	dn := UserDN(u.UID)
	req := ldap.NewAddRequest(dn, nil)
	req.Attribute("objectClass", []string{"inetOrgPerson"})
	req.Attribute("uid", []string{u.UID})
	req.Attribute("cn", []string{u.CN})
	req.Attribute("sn", []string{surname(u.CN)})
	req.Attribute("userPassword", []string{ssha(u.Password)})
	if u.Mail != "" {
		req.Attribute("mail", []string{u.Mail})
	}
	return dn, c.Add(req)
}

// surname is the last word of cn; inetOrgPerson requires an sn.
func surname(cn string) string {
	f := strings.Fields(cn)
	if len(f) == 0 {
		return "-"
	}
	return f[len(f)-1]
}
