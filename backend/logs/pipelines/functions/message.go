package functions

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/pipelines/lang"
	"github.com/loggate/loggate/backend/logs/streams"
)

func messageFunctions(d Deps) []*lang.Function {
	return []*lang.Function{
		fn("has_field", lang.TBoolean, "Checks whether a message contains a value for a field", func(c *lang.Context, a lang.Args) (any, error) {
			return a.Message(c, 1).Has(a.String(0, "")), nil
		}, req("field", lang.TString, "The field to check"), msgParam),
		fn("set_field", lang.TVoid, "Sets a new field in a message", func(c *lang.Context, a lang.Args) (any, error) {
			field := a.String(0, "")
			if field == "" {
				return nil, nil
			}
			a.Message(c, 4).SetField(affix(a.String(2, ""), field, a.String(3, "")), a.Get(1))
			return nil, nil
		}, req("field", lang.TString, "The new field name"), req("value", lang.TObject, "The new field value"),
			opt("prefix", lang.TString, "The prefix for the field name"), opt("suffix", lang.TString, "The suffix for the field name"), msgParam),
		fn("set_fields", lang.TVoid, "Sets new fields in a message", func(c *lang.Context, a lang.Args) (any, error) {
			msg := a.Message(c, 3)
			prefix, suffix := a.String(1, ""), a.String(2, "")
			// In key order, so that fields land in one order every time.
			if r, ok := a.Get(0).(*lang.MatchResult); ok {
				// grok() and regex() results: no map needed.
				for k, v := range r.Sorted() {
					msg.SetField(affix(prefix, k, suffix), v)
				}
			} else if m, ok := lang.AsMap(a.Get(0)); ok {
				var buf [16]string
				keys := slices.AppendSeq(buf[:0], maps.Keys(m))
				slices.Sort(keys)
				for _, k := range keys {
					msg.SetField(affix(prefix, k, suffix), m[k])
				}
			}
			return nil, nil
		}, req("fields", lang.TMap, "The map of new fields to set"),
			opt("prefix", lang.TString, "The prefix for the field names"), opt("suffix", lang.TString, "The suffix for the field names"), msgParam),
		fn("rename_field", lang.TVoid, "Rename a message field", func(c *lang.Context, a lang.Args) (any, error) {
			from, to := a.String(0, ""), a.String(1, "")
			msg := a.Message(c, 2)
			if from == to || !msg.Has(from) {
				return nil, nil
			}
			v := msg.Field(from)
			msg.RemoveField(from)
			msg.SetField(to, v)
			return nil, nil
		}, req("old_field", lang.TString, "The old name of the field"), req("new_field", lang.TString, "The new name of the field"), msgParam),
		fn("remove_field", lang.TVoid, "Removes a field from a message", func(c *lang.Context, a lang.Args) (any, error) {
			a.Message(c, 1).RemoveField(a.String(0, ""))
			return nil, nil
		}, req("field", lang.TString, "The field to remove"), msgParam),
		fn("drop_message", lang.TVoid, "Discards a message from further processing", func(c *lang.Context, a lang.Args) (any, error) {
			a.Message(c, 0).Dropped = true
			return nil, nil
		}, msgParam),
		fn("create_message", lang.TMessage, "Create a new message", func(c *lang.Context, a lang.Args) (any, error) {
			cur := c.Message
			text := a.String(0, fieldString(cur, messages.FieldMessage))
			source := a.String(1, fieldString(cur, messages.FieldSource))
			ts, ok := a.Get(2).(time.Time)
			if !ok || !a.Has(2) {
				ts = d.Now()
			}
			m := &lang.Message{Message: &messages.Message{ID: uuid.NewString(), Timestamp: ts.UTC().Truncate(time.Millisecond)}}
			m.SetField(messages.FieldMessage, text)
			m.SetField(messages.FieldSource, source)
			c.Created = append(c.Created, m)
			return m, nil
		}, opt("message", lang.TString, "The 'message' field of the new message, defaults to '$message.message'"),
			opt("source", lang.TString, "The 'source' field of the new message, defaults to '$message.source'"),
			opt("timestamp", lang.TDateTime, "The 'timestamp' field of the message, defaults to 'now'")),
		fn("clone_message", lang.TMessage, "Clones a message", func(c *lang.Context, a lang.Args) (any, error) {
			src := a.Message(c, 0)
			cp := &messages.Message{ID: uuid.NewString(), Timestamp: src.Timestamp,
				Streams: slices.Clone(src.Streams), Fields: slices.Clone(src.Fields)}
			if cp.Timestamp.IsZero() {
				cp.Timestamp = d.Now().UTC().Truncate(time.Millisecond)
			}
			m := &lang.Message{Message: cp}
			c.Created = append(c.Created, m)
			return m, nil
		}, msgParam),
		fn("route_to_stream", lang.TVoid, "Routes a message to a stream", func(c *lang.Context, a lang.Args) (any, error) {
			var buf [1]string
			ids, err := streamIDs(d, a, buf[:0])
			if err != nil {
				return nil, err
			}
			msg := a.Message(c, 2)
			for _, id := range ids {
				msg.AddStream(id)
			}
			if len(ids) > 0 && a.Bool(3, false) {
				msg.RemoveStream(streams.DefaultStreamID)
			}
			return nil, nil
		}, opt("name", lang.TString, "The name of the stream to route the message to, must match exactly"),
			opt("id", lang.TString, "The ID of the stream, this is much faster than using 'name'"), msgParam,
			opt("remove_from_default", lang.TBoolean, "After routing the message, remove it from the default stream")),
		fn("remove_from_stream", lang.TVoid, "Removes a message from a stream. Removing the last stream will put the message back onto the default stream. To complete drop a message use the drop_message function.", func(c *lang.Context, a lang.Args) (any, error) {
			var buf [1]string
			ids, err := streamIDs(d, a, buf[:0])
			if err != nil {
				return nil, err
			}
			msg := a.Message(c, 2)
			for _, id := range ids {
				msg.RemoveStream(id)
			}
			if len(msg.Streams) == 0 {
				msg.AddStream(streams.DefaultStreamID)
			}
			return nil, nil
		}, opt("name", lang.TString, "The name of the stream to remove the message from, must match exactly"),
			opt("id", lang.TString, "The ID of the stream, this is much faster than using 'name'"), msgParam),
		fn("from_input", lang.TBoolean, "Checks whether a message arrived on the given input", func(c *lang.Context, a lang.Args) (any, error) {
			src := fieldString(c.Message, messages.FieldSourceInput)
			if a.Has(0) {
				return src != "" && src == a.String(0, ""), nil
			}
			if !a.Has(1) || d.Inputs == nil || src == "" {
				return false, nil
			}
			title, ok := d.Inputs.Title(src)
			return ok && strings.EqualFold(title, a.String(1, "")), nil
		}, opt("id", lang.TString, "The input's ID, this is much faster than 'name'"), opt("name", lang.TString, "The input's name")),
		fn("traffic_accounting_size", lang.TLong, "Calculates the current size of the message as used by the traffic accounting system", func(c *lang.Context, a lang.Args) (any, error) {
			if d.Size == nil {
				return int64(0), nil
			}
			return d.Size(a.Message(c, 0).Message), nil
		}, msgParam),
	}
}

// streamIDs resolves route_to_stream's id or name: the id wins; a name
// means every running stream of that title; unknown or paused streams are
// none. An id is appended to dst, which spares an allocation per message.
func streamIDs(d Deps, a lang.Args, dst []string) ([]string, error) {
	if !a.Has(0) && !a.Has(1) {
		return nil, errors.New("either 'name' or 'id' is required")
	}
	if d.Streams == nil {
		return nil, nil
	}
	if a.Has(1) {
		id := a.String(1, "")
		if id == streams.DefaultStreamID || d.Streams.Enabled(id) {
			return append(dst, id), nil
		}
		return nil, nil
	}
	return d.Streams.EnabledTitled(a.String(0, "")), nil
}

func fieldString(m *lang.Message, key string) string {
	s, _ := lang.ToString(m.Field(key))
	return s
}

// affix puts a prefix and a suffix around a field name; most calls have
// neither, and then there is nothing to join.
func affix(prefix, name, suffix string) string {
	if prefix == "" && suffix == "" {
		return name
	}
	return prefix + name + suffix
}
