// Package contentpacks owns Graylog 4.0's content packs: uploaded v1 packs
// and their revisions (/system/content_packs), their installations, which
// create entities through the services that own them, and the catalog of
// entities that can be exported into a pack (/system/catalog).
//
// Entity types installed, exported and uninstalled: grok_pattern, stream
// (with its rules), input (with its extractors and static fields),
// lookup_adapter, lookup_cache, lookup_table, pipeline_rule, pipeline
// (with its stream connections), output (attached to the streams of the
// pack), url_whitelist_entry, sidecar_collector,
// sidecar_collector_configuration, notification and event_definition (with
// its scheduler job), and Graylog 4.0's views: dashboard version 2 and
// search version 1 (each with its search). The 3.x dashboards of dashboard
// version 1 install and uninstall, converted into dashboards of version 2
// as Graylog 4.0 converts them; the catalog exports dashboards as version
// 2 only. Other types are stored in uploaded packs but refused, with a 400
// naming the type, when a pack holding them is installed or when the
// catalog is asked to export them.
package contentpacks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/loggate/loggate/router/api"
)

// MaxEntities is the most entities one pack may hold; MaxParameters the
// most parameters. Bigger packs are refused with a 400.
const (
	MaxEntities   = 10000
	MaxParameters = 1000
)

// ServerVersion is the server_version given to uploaded packs that name
// none.
const ServerVersion = "4.0.17"

// version is a model version ("v"): Graylog writes it as a string and
// reads a string or a number.
type version string

func (v *version) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*v = version(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("a model version is a string")
	}
	*v = version(n.String())
	return nil
}

// ModelType is an entity's type: a name and a version.
type ModelType struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Pack is a content pack of version 1 (Graylog's ContentPackV1).
type Pack struct {
	V             version     `json:"v"`
	ID            string      `json:"id"`
	Rev           int         `json:"rev"`
	Name          string      `json:"name"`
	Summary       string      `json:"summary"`
	Description   string      `json:"description"`
	Vendor        string      `json:"vendor"`
	URL           string      `json:"url"`
	Parameters    []Parameter `json:"parameters"`
	Entities      []Entity    `json:"entities"`
	ServerVersion string      `json:"server_version"`
	CreatedAt     api.Time    `json:"created_at"`
}

// Parameter is a pack's parameter; its default value is a literal of its
// type.
type Parameter struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	Type         string          `json:"type"`
	DefaultValue json.RawMessage `json:"default_value,omitempty"`
}

// Entity is an entity of a pack (Graylog's EntityV1).
type Entity struct {
	V           version           `json:"v"`
	Type        ModelType         `json:"type"`
	ID          string            `json:"id"`
	Data        json.RawMessage   `json:"data"`
	Constraints []json.RawMessage `json:"constraints"`
}

// Descriptor names an entity: of a pack (an entity id) or of this server.
type Descriptor struct {
	ID   string    `json:"id"`
	Type ModelType `json:"type"`
}

// NativeDescriptor is an entity an installation created or found on the
// server (Graylog's NativeEntityDescriptor).
type NativeDescriptor struct {
	ID              string    `json:"id"`
	Type            ModelType `json:"type"`
	ContentPackEnID string    `json:"content_pack_entity_id"`
	Title           string    `json:"title"`
	FoundOnSystem   bool      `json:"found_on_system"`
}

// Installation is an installation of a pack revision (Graylog's
// ContentPackInstallation).
type Installation struct {
	ID         string              `json:"_id"`
	PackID     string              `json:"content_pack_id"`
	PackRev    int                 `json:"content_pack_revision"`
	Parameters map[string]ValueRef `json:"parameters"`
	Entities   []NativeDescriptor  `json:"entities"`
	Comment    string              `json:"comment"`
	CreatedAt  api.Time            `json:"created_at"`
	CreatedBy  string              `json:"created_by"`
}

// Uninstallation is what removing an installation did.
type Uninstallation struct {
	Entities []NativeDescriptor `json:"entities"`
	Failed   []NativeDescriptor `json:"failed_entities"`
	Skipped  []NativeDescriptor `json:"skipped_entities"`
}

// Excerpt is an entity of this server the catalog lists.
type Excerpt struct {
	ID    string    `json:"id"`
	Type  ModelType `json:"type"`
	Title string    `json:"title"`
}

// ValueRef is Graylog's ValueReference: a typed literal, or with @type
// "parameter" the name of a pack parameter.
type ValueRef struct {
	Type  string          `json:"@type"`
	Value json.RawMessage `json:"@value"`
}

// The value types of references and parameters.
const (
	TypeBoolean   = "boolean"
	TypeDouble    = "double"
	TypeFloat     = "float"
	TypeInteger   = "integer"
	TypeLong      = "long"
	TypeString    = "string"
	TypeParameter = "parameter"
)

// checkLiteral reports whether raw is a literal of the value type t.
func checkLiteral(t string, raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return fmt.Errorf("a %s value is missing", t)
	}
	switch t {
	case TypeString, TypeParameter:
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return fmt.Errorf("%s is not a %s", raw, t)
		}
	case TypeBoolean:
		var b bool
		if json.Unmarshal(raw, &b) != nil {
			return fmt.Errorf("%s is not a boolean", raw)
		}
	case TypeInteger, TypeLong:
		bits := 64
		if t == TypeInteger {
			bits = 32
		}
		if _, err := strconv.ParseInt(string(raw), 10, bits); err != nil {
			return fmt.Errorf("%s is not an %s", raw, t)
		}
	case TypeDouble, TypeFloat:
		var f float64
		if json.Unmarshal(raw, &f) != nil || raw[0] == '"' {
			return fmt.Errorf("%s is not a %s", raw, t)
		}
	default:
		return fmt.Errorf("unknown value type %q", t)
	}
	return nil
}

// ref makes a literal reference of a decoded JSON value (decoded with
// UseNumber), typed as Graylog's ReferenceMapUtils types Java values.
func ref(v any) *ValueRef {
	var t string
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		t = TypeString
	case bool:
		t = TypeBoolean
	case json.Number:
		t = TypeDouble
		if n, err := strconv.ParseInt(x.String(), 10, 64); err == nil {
			t = TypeLong
			if int64(int32(n)) == n {
				t = TypeInteger
			}
		}
	case int:
		t = TypeInteger
	case int64:
		t = TypeLong
	case float64:
		t = TypeDouble
	default:
		return nil
	}
	b, _ := json.Marshal(v)
	return &ValueRef{Type: t, Value: b}
}
