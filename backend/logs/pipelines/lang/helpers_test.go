package lang_test

import (
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
)

func newMessage() *messages.Message {
	return &messages.Message{ID: "m1", Timestamp: time.Date(2020, 12, 1, 10, 0, 0, 0, time.UTC),
		Fields: []messages.Field{{Key: "source", Value: "web-1"}, {Key: "x", Value: int64(3)}}}
}
