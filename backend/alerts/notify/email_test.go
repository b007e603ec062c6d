package notify

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/internal/smtptest"
	"github.com/loggate/loggate/router/api"
)

// Email notifications reach a real SMTP server in each of its transport
// modes, logged in where it requires it, with the default templates
// rendered from the event.
func TestEmailDelivery(t *testing.T) {
	tests := []struct {
		name           string
		mode           string
		user, password string
		useTLS, useSSL bool
	}{
		{"plain", smtptest.Plain, "", "", false, false},
		{"plain with AUTH", smtptest.Plain, "alerts", "s3cret", false, false},
		{"STARTTLS with AUTH", smtptest.StartTLS, "alerts", "s3cret", true, false},
		{"SMTPS with AUTH", smtptest.SMTPS, "alerts", "s3cret", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := smtptest.Start(t, smtptest.Options{Mode: tt.mode, User: tt.user, Password: tt.password})
			d := &Deliverer{Email: EmailConfig{Enabled: true, Hostname: srv.Host, Port: srv.Port, UseAuth: tt.user != "",
				Username: tt.user, Password: tt.password, UseTLS: tt.useTLS, UseSSL: tt.useSSL, TLS: srv.TLS}}
			n := Notification{ID: "n1", Title: "mail", Config: Config{Type: TypeEmail, Sender: "loggate@example.org",
				Subject: DefaultSubject, BodyTemplate: DefaultBody, EmailRecipients: []string{"ops@example.org", "dev@example.org"}}}
			m := testModel("admin", api.Time{Time: time.Date(2020, 12, 1, 10, 0, 0, 0, time.UTC)})
			if err := d.Deliver(context.Background(), n, m); err != nil {
				t.Fatal(err)
			}
			got, err := srv.Messages()
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 {
				t.Fatalf("%d messages, want one per recipient", len(got))
			}
			msg := got[0]
			if msg.MailFrom != "loggate@example.org" || len(msg.RcptTos) != 1 || msg.RcptTos[0] != "ops@example.org" || got[1].RcptTos[0] != "dev@example.org" {
				t.Errorf("envelope %+v / %+v", msg, got[1])
			}
			if (tt.user != "") != (msg.Login != nil) || msg.Login != nil && *msg.Login != tt.user {
				t.Errorf("login %v", msg.Login)
			}
			if msg.TLS != (tt.useTLS || tt.useSSL) {
				t.Errorf("tls %v", msg.TLS)
			}
			for _, want := range []string{
				"Subject: Graylog event notification: Event Definition Test Title\r\n",
				"From: loggate@example.org\r\n", "To: ops@example.org\r\n",
				"Title:       Event Definition Test Title\r\n",
				"Type:        notification-test-v1\r\n",
				"Timestamp:            2020-12-01T10:00:00.000Z\r\n",
				"Message:              Notification test message triggered from user <admin>\r\n",
				"Key:                  testkey\r\n", "Priority:             2\r\n", "Alert:                true\r\n",
				"  field1: value1\r\n  field2: value2\r\n",
			} {
				if !strings.Contains(msg.Content, want) {
					t.Errorf("message lacks %q:\n%s", want, msg.Content)
				}
			}
			if strings.Contains(msg.Content, "[Backlog]") {
				t.Errorf("an empty backlog is shown:\n%s", msg.Content)
			}
		})
	}
}

// A server that wants AUTH refuses wrong credentials, and STARTTLS is not
// skipped when the server does not offer it: both are failures, as is a
// disabled transport.
func TestEmailFailures(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{Mode: smtptest.StartTLS, User: "alerts", Password: "s3cret"})
	plain := smtptest.Start(t, smtptest.Options{})
	n := Notification{ID: "n1", Config: Config{Type: TypeEmail, Sender: "a@example.org", Subject: "s", BodyTemplate: "b",
		EmailRecipients: []string{"ops@example.org"}}}
	m := testModel("admin", api.Time{Time: time.Now()})
	for name, cfg := range map[string]EmailConfig{
		"wrong password": {Enabled: true, Hostname: srv.Host, Port: srv.Port, UseTLS: true, UseAuth: true, Username: "alerts", Password: "nope", TLS: srv.TLS},
		"no STARTTLS":    {Enabled: true, Hostname: plain.Host, Port: plain.Port, UseTLS: true, TLS: plain.TLS},
		"disabled":       {Hostname: plain.Host, Port: plain.Port},
	} {
		d := &Deliverer{Email: cfg}
		if err := d.Deliver(context.Background(), n, m); err == nil {
			t.Errorf("%s: delivered", name)
		}
	}
	if got, _ := plain.Messages(); len(got) != 0 {
		t.Errorf("%d messages reached the server", len(got))
	}
}
