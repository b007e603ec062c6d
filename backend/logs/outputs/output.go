// Package outputs owns /system/outputs: the outputs that forward a stream's
// messages elsewhere, their types and configuration.
package outputs

import "github.com/loggate/loggate/router/api"

// Collection holds the stored outputs.
const Collection = "outputs"

// Summary is Graylog's OutputSummary: the shape of an output in
// /system/outputs and, embedded, in the /streams responses. It is also the
// stored document.
type Summary struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Type is the output type's Java class name, such as
	// org.graylog2.outputs.GelfOutput.
	Type string `json:"type"`
	// CreatorUserID is the creator's username, as Graylog records it.
	CreatorUserID string   `json:"creator_user_id"`
	CreatedAt     api.Time `json:"created_at"`
	// Configuration holds the values of the type's configuration fields,
	// each in its declared type.
	Configuration map[string]any `json:"configuration"`
	ContentPack   *string        `json:"content_pack"`
}
