package ldap

import (
	"errors"
	"reflect"
	"testing"

	goldap "github.com/go-ldap/ldap/v3"
)

func TestFormatGUID(t *testing.T) {
	for _, tc := range []struct {
		in      []byte
		want    string
		wantErr bool
	}{
		// The byte order Windows stores {3F2504E0-4F89-11D3-9A0C-0305E82C3301} in.
		{[]byte{0xe0, 0x04, 0x25, 0x3f, 0x89, 0x4f, 0xd3, 0x11, 0x9a, 0x0c, 0x03, 0x05, 0xe8, 0x2c, 0x33, 0x01},
			"3f2504e0-4f89-11d3-9a0c-0305e82c3301", false},
		{make([]byte, 16), "00000000-0000-0000-0000-000000000000", false},
		{make([]byte, 15), "", true},
		{nil, "", true},
	} {
		got, err := formatGUID(tc.in)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("formatGUID(%x) = %q, %v; want %q, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestSecret(t *testing.T) {
	for name, want := range map[string]bool{
		"userPassword": true, "USERPASSWORD": true, "unicodePwd": true, "sambaNTPassword": true,
		"passwordHistory": true, "mail": false, "cn": false, "pwdChangedTime": false,
	} {
		if got := secret(name); got != want {
			t.Errorf("secret(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestNewEntryAD covers the Active Directory conversions, for which there is
// no server in the tests: objectGUID is binary, other binary values are
// base64-encoded and password attributes are dropped.
func TestNewEntryAD(t *testing.T) {
	guid := []byte{0xe0, 0x04, 0x25, 0x3f, 0x89, 0x4f, 0xd3, 0x11, 0x9a, 0x0c, 0x03, 0x05, 0xe8, 0x2c, 0x33, 0x01}
	le := &goldap.Entry{DN: "CN=Alice,DC=corp", Attributes: []*goldap.EntryAttribute{
		{Name: "objectGUID", Values: []string{string(guid)}, ByteValues: [][]byte{guid}},
		{Name: "userPrincipalName", Values: []string{"alice@corp"}, ByteValues: [][]byte{[]byte("alice@corp")}},
		{Name: "displayName", Values: []string{"Alice"}, ByteValues: [][]byte{[]byte("Alice")}},
		{Name: "objectSid", Values: []string{"\x01\x05\xff"}, ByteValues: [][]byte{{0x01, 0x05, 0xff}}},
		{Name: "unicodePwd", Values: []string{"x"}, ByteValues: [][]byte{[]byte("x")}},
	}}
	e, err := newEntry(Defaults(TypeActiveDirectory), le)
	if err != nil {
		t.Fatal(err)
	}
	want := &Entry{
		DN: "CN=Alice,DC=corp", UniqueID: "3f2504e0-4f89-11d3-9a0c-0305e82c3301",
		Username: "alice@corp", FullName: "Alice",
		Attributes: map[string][]string{
			"objectGUID":        {"3f2504e0-4f89-11d3-9a0c-0305e82c3301"},
			"userPrincipalName": {"alice@corp"},
			"displayName":       {"Alice"},
			"objectSid":         {"AQX/"},
		},
		rawUniqueID: guid,
	}
	if !reflect.DeepEqual(e, want) {
		t.Errorf("newEntry =\n%+v\nwant\n%+v", e, want)
	}
	if got := e.Base64UniqueID(); got != "4AQlP4lP0xGaDAMF6CwzAQ==" {
		t.Errorf("Base64UniqueID = %q", got)
	}

	le.Attributes[0].ByteValues = [][]byte{guid[:8]}
	if _, err := newEntry(Defaults(TypeActiveDirectory), le); !errors.Is(err, ErrMisconfigured) {
		t.Errorf("newEntry with an 8-byte objectGUID = %v, want ErrMisconfigured", err)
	}
}
