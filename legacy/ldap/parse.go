package ldap

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loggate/loggate/router/api"
)

// ParseDocuments reads 3.x LDAP settings from a file: one document of the
// ldap_settings collection as mongoexport writes it (or several, as a JSON
// array or one per line), or the body of the 3.x GET /system/ldap/settings.
// A document without an _id gets one derived from its content, so that
// migrating it twice is recognised.
func ParseDocuments(data []byte) ([]Document, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, errors.New("no LDAP settings: the input is empty")
	}
	var raws []json.RawMessage
	if data[0] == '[' {
		if err := json.Unmarshal(data, &raws); err != nil {
			return nil, fmt.Errorf("LDAP settings: %w", err)
		}
	} else {
		// mongoexport writes one document per line.
		dec := json.NewDecoder(bytes.NewReader(data))
		for dec.More() {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, fmt.Errorf("LDAP settings: %w", err)
			}
			raws = append(raws, raw)
		}
	}
	docs := make([]Document, 0, len(raws))
	for i, raw := range raws {
		d, err := parseDocument(raw)
		if err != nil {
			return nil, fmt.Errorf("LDAP settings document %d: %w", i+1, err)
		}
		docs = append(docs, d)
	}
	return docs, nil
}

// parseDocument reads one document in either shape.
func parseDocument(raw json.RawMessage) (Document, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return Document{}, err
	}
	if keys == nil {
		return Document{}, errors.New("not a JSON object")
	}
	var d Document
	_, stored := keys["principal_search_pattern"]
	_, api := keys["search_pattern"]
	if api && !stored {
		var r SettingsResponse
		if err := json.Unmarshal(raw, &r); err != nil {
			return Document{}, err
		}
		d = Document{
			Enabled: r.Enabled, SystemUsername: r.SystemUsername, LdapURI: r.LdapURI,
			UseStartTLS: r.UseStartTLS, TrustAllCertificates: r.TrustAllCertificates,
			ActiveDirectory: r.ActiveDirectory, SearchBase: r.SearchBase,
			PrincipalSearchPattern: r.SearchPattern, UsernameAttribute: r.DisplayNameAttribute,
			DefaultGroup: r.DefaultGroup, AdditionalDefaultGroups: r.AdditionalDefaultGroups,
			GroupMapping: r.GroupMapping, GroupSearchBase: r.GroupSearchBase,
			GroupIDAttribute: r.GroupIDAttribute, GroupSearchPattern: r.GroupSearchPattern,
			RolesByName: true,
		}
	} else if err := json.Unmarshal(raw, &d); err != nil {
		return Document{}, err
	}
	if d.LdapURI == "" {
		return Document{}, errors.New("no ldap_uri")
	}
	if d.ID == "" {
		d.ID = fingerprint(d)
	}
	return d, nil
}

// fingerprint identifies a document that has no _id by its content.
func fingerprint(d Document) string {
	b, _ := api.Marshal(plainDocument(d))
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:12])
}
