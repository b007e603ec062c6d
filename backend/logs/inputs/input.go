// Package inputs owns the configuration of message inputs: /system/inputs,
// their types under /system/inputs/types, and /system/inputstates, which
// reports what a runner (to come) made of each input.
package inputs

import (
	"encoding/json"
	"time"

	"github.com/loggate/loggate/router/api"
)

// Collection holds the stored inputs.
const Collection = "inputs"

// Input is a stored input: what a runner needs to launch it. Its
// Configuration holds passwords in clear; show clients a Summary.
type Input struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Type is the input type's Java class name.
	Type   string `json:"type"`
	Global bool   `json:"global"`
	// Node is the id of the node the input runs on; nil for a global input,
	// which runs on every node.
	Node *string `json:"node_id"`
	// Configuration holds the values of the type's configuration fields,
	// each in its declared type.
	Configuration map[string]any `json:"configuration"`
	// CreatorUserID is the creator's username, as Graylog records it.
	CreatorUserID string            `json:"creator_user_id"`
	CreatedAt     time.Time         `json:"created_at"`
	ContentPack   *string           `json:"content_pack"`
	StaticFields  map[string]string `json:"static_fields"`
	// Extractors are kept as stored: the extractors package owns them
	// (Graylog keeps them in the input document too).
	Extractors json.RawMessage `json:"extractors,omitempty"`
}

// Summary is Graylog's InputSummary, an input as clients see it, with its
// configuration under attributes and passwords masked.
type Summary struct {
	Title  string `json:"title"`
	Global bool   `json:"global"`
	// Name is the type's human name.
	Name          string            `json:"name"`
	ContentPack   *string           `json:"content_pack"`
	ID            string            `json:"id"`
	CreatedAt     api.Time          `json:"created_at"`
	Type          string            `json:"type"`
	CreatorUserID string            `json:"creator_user_id"`
	Attributes    map[string]any    `json:"attributes"`
	StaticFields  map[string]string `json:"static_fields"`
	Node          *string           `json:"node"`
}

// Summary returns the input as clients see it.
func (in Input) Summary() Summary {
	name := "Unknown Input (" + in.Type + ")"
	attrs := in.Configuration
	if t, ok := LookupType(in.Type); ok {
		name = t.Name
		attrs = t.Config.Mask(in.Configuration)
	}
	if attrs == nil {
		attrs = map[string]any{}
	}
	static := in.StaticFields
	if static == nil {
		static = map[string]string{}
	}
	return Summary{
		Title: in.Title, Global: in.Global, Name: name, ContentPack: in.ContentPack, ID: in.ID,
		CreatedAt: api.Time{Time: in.CreatedAt}, Type: in.Type, CreatorUserID: in.CreatorUserID,
		Attributes: attrs, StaticFields: static, Node: in.Node,
	}
}

// CreateRequest is Graylog's InputCreateRequest, the body of
// POST /system/inputs and of PUT /system/inputs/{inputId}.
type CreateRequest struct {
	Title         string                     `json:"title"`
	Type          string                     `json:"type"`
	Global        bool                       `json:"global"`
	Configuration map[string]json.RawMessage `json:"configuration"`
	// Node is the node a non-global input runs on; ignored for global ones.
	Node *string `json:"node"`
}
