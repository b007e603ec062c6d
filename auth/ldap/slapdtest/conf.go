package slapdtest

import (
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

const (
	schemaDir = "/etc/ldap/schema"
	moduleDir = "/usr/lib/ldap"
)

// slapdConf is the private server's configuration: the schemas an
// inetOrgPerson needs, one mdb database and the access rules of a typical
// directory (anonymous users may search but only bind with userPassword).
// dbnosync skips fsync: the data must survive Stop and Restart, which kill
// only the process, never the machine.
func slapdConf(dir, rootPW, tlsCert, tlsKey string) string {
	var b strings.Builder
	for _, s := range []string{"core", "cosine", "nis", "inetorgperson"} {
		fmt.Fprintf(&b, "include %s\n", filepath.Join(schemaDir, s+".schema"))
	}
	// Debian builds back_mdb as a module; other builds link it in.
	if _, err := os.Stat(filepath.Join(moduleDir, "back_mdb.so")); err == nil {
		fmt.Fprintf(&b, "modulepath %s\nmoduleload back_mdb\n", moduleDir)
	}
	fmt.Fprintf(&b, "pidfile %s\nargsfile %s\n", filepath.Join(dir, "slapd.pid"), filepath.Join(dir, "slapd.args"))
	if tlsCert != "" {
		fmt.Fprintf(&b, "TLSCertificateFile %s\nTLSCertificateKeyFile %s\n", tlsCert, tlsKey)
	}
	fmt.Fprintf(&b, "database mdb\nmaxsize 104857600\ndbnosync\n")
	fmt.Fprintf(&b, "suffix %q\nrootdn %q\nrootpw %s\n", BaseDN, AdminDN, rootPW)
	fmt.Fprintf(&b, "directory %s\n", filepath.Join(dir, "db"))
	b.WriteString("access to attrs=userPassword by self write by anonymous auth by * none\n")
	b.WriteString("access to * by * read\n")
	return b.String()
}

// ssha hashes password as slappasswd does by default, so that no slappasswd
// process is needed per server or per user.
func ssha(password string) string {
	salt := make([]byte, 8)
	_, _ = rand.Read(salt) // never fails (crypto/rand panics instead)
	h := sha1.New()
	h.Write([]byte(password))
	h.Write(salt)
	return "{SSHA}" + base64.StdEncoding.EncodeToString(append(h.Sum(nil), salt...))
}
