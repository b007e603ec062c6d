package migrate

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	legacyldap "github.com/loggate/loggate/legacy/ldap"
)

// DefaultDatabase is Graylog's MongoDB database when the URI names none.
const DefaultDatabase = "graylog"

// ldapCollection is Graylog 3.x's collection of LDAP settings.
const ldapCollection = "ldap_settings"

// mongoTimeout bounds talking to MongoDB.
const mongoTimeout = 30 * time.Second

// readFile reads the documents of a file.
func readFile(path string) ([]legacyldap.Document, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	docs, err := legacyldap.ParseDocuments(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return docs, nil
}

// ReadMongoDB reads the ldap_settings collection of the URI's database
// (DefaultDatabase when it names none) in _id order, as Graylog's migration
// does.
func ReadMongoDB(ctx context.Context, uri string) ([]legacyldap.Document, error) {
	ctx, cancel := context.WithTimeout(ctx, mongoTimeout)
	defer cancel()
	raws, db, err := findAll(ctx, uri, ldapCollection)
	if err != nil {
		return nil, err
	}
	if len(raws) == 0 {
		return nil, nil
	}
	all, err := json.Marshal(raws)
	if err != nil {
		return nil, err
	}
	docs, err := legacyldap.ParseDocuments(all)
	if err != nil {
		return nil, fmt.Errorf("%s.%s: %w", db, ldapCollection, err)
	}
	return docs, nil
}
