package notify

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/smtp"
	neturl "net/url"
	"strconv"
	"strings"
	"time"

	"github.com/loggate/loggate/backend/alerts/template"
)

// URLChecker says whether the URL allow-list (/system/urlwhitelist) lets
// a URL through.
type URLChecker interface {
	Permits(ctx context.Context, url string) (bool, error)
}

// UserEmails returns the email addresses of users, by username.
type UserEmails interface {
	Emails(ctx context.Context, usernames []string) ([]string, error)
}

// EmailConfig is the email transport: Graylog's transport_email_* keys.
type EmailConfig struct {
	Enabled         bool
	Hostname        string
	Port            int
	UseAuth         bool
	Username        string
	Password        string
	UseTLS          bool // STARTTLS
	UseSSL          bool // SMTPS: TLS from the first byte
	FromEmail       string
	SubjectPrefix   string
	WebInterfaceURL string
	ConnectTimeout  time.Duration
	SocketTimeout   time.Duration
	// TLS, when set, verifies the server (tests trust their own
	// certificate with it); otherwise the system's roots.
	TLS *tls.Config
}

// StreamDocs returns a stream's document (as GET /streams/{id} shows it),
// for the legacy alarm callbacks; ok is false for an unknown stream.
type StreamDocs interface {
	StreamDoc(id string) (doc map[string]any, ok bool)
}

// Deliverer sends notifications.
type Deliverer struct {
	HTTP      *http.Client
	Allowed   URLChecker
	Email     EmailConfig
	Users     UserEmails
	Streams   StreamDocs
	UserAgent string
}

// Failure kinds, for the system notification a failure raises.
var (
	errNotAllowed    = errors.New("URL not allowed")
	errTransportOff  = errors.New("email transport disabled")
	errTransport     = errors.New("email transport failed")
	errNoRecipients  = errors.New("no recipients")
	errUnknownLegacy = errors.New("unknown alarm callback")
)

// failure is a failed delivery: Graylog's words for it (the test
// endpoints answer them), its kind and its cause.
type failure struct {
	msg         string
	kind, cause error
}

func (f *failure) Error() string { return f.msg }

func (f *failure) Unwrap() []error {
	var out []error
	for _, e := range []error{f.kind, f.cause} {
		if e != nil {
			out = append(out, e)
		}
	}
	return out
}

// failed builds a failure whose message is format with args.
func failed(kind, cause error, format string, args ...any) error {
	return &failure{msg: fmt.Sprintf(format, args...), kind: kind, cause: cause}
}

// Deliver sends one notification of m.
func (d *Deliverer) Deliver(ctx context.Context, n Notification, m Model) error {
	switch n.Config.Type {
	case TypeHTTP:
		return d.post(ctx, n.Config.URL, m)
	case TypeEmail:
		return d.email(ctx, n.Config, m)
	case TypeLegacy:
		return d.legacy(ctx, n, m)
	}
	return fmt.Errorf("notification %s has unknown type %q", n.ID, n.Config.Type)
}

// post sends body as JSON to an allowed URL; anything but a 2xx fails.
func (d *Deliverer) post(ctx context.Context, url string, body any) error {
	ok, err := d.Allowed.Permits(ctx, url)
	if err != nil {
		return err
	}
	if !ok {
		return failed(errNotAllowed, nil, "URL <%s> is not whitelisted.", RedactURL(url))
	}
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		// The parse error quotes the URL whole.
		return fmt.Errorf("HTTP notification to %s: the URL is not valid", RedactURL(url))
	}
	req.Header.Set("Content-Type", "application/json")
	if d.UserAgent != "" {
		req.Header.Set("User-Agent", d.UserAgent)
	}
	resp, err := d.HTTP.Do(req)
	if err != nil {
		return failed(nil, err, "Error while sending the HTTP notification: %v", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return failed(nil, nil, "Expected successful HTTP response [2xx] but got [%d]. %s", resp.StatusCode, RedactURL(url))
	}
	return nil
}

// RedactURL is raw without the password of its user info: delivery errors
// are logged and shown as system notifications, to more users than may
// read the notification's configuration, and content packs export it. A
// URL that does not parse is cut at its user info the same way.
func RedactURL(raw string) string {
	if u, err := neturl.Parse(raw); err == nil {
		return u.Redacted()
	}
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw
	}
	authority, path, slash := strings.Cut(rest, "/")
	if at := strings.LastIndex(authority, "@"); at >= 0 {
		if user, _, hasPassword := strings.Cut(authority[:at], ":"); hasPassword {
			authority = user + ":xxxxx" + authority[at:]
		}
	}
	if slash {
		path = "/" + path
	}
	return scheme + "://" + authority + path
}

// email renders the notification's templates and sends one mail to each
// recipient.
func (d *Deliverer) email(ctx context.Context, c Config, m Model) error {
	return d.emailWith(ctx, c, templateModel(m))
}

// emailWith sends an email notification with the given template model.
func (d *Deliverer) emailWith(ctx context.Context, c Config, model map[string]any) error {
	if !d.Email.Enabled {
		return failed(errTransportOff, nil, "Email transport is not enabled in server configuration file!")
	}
	to := append([]string{}, c.EmailRecipients...)
	if len(c.UserRecipients) > 0 && d.Users != nil {
		emails, err := d.Users.Emails(ctx, c.UserRecipients)
		if err != nil {
			return err
		}
		to = append(to, emails...)
	}
	if len(to) == 0 {
		return failed(errNoRecipients, nil, "No recipients have been defined!")
	}
	subject, err := render(c.Subject, model)
	if err != nil {
		return err
	}
	body, err := render(c.BodyTemplate, model)
	if err != nil {
		return err
	}
	from := c.Sender
	if from == "" {
		from = d.Email.FromEmail
	}
	return d.send(ctx, from, to, subject, body)
}

func render(src string, model map[string]any) (string, error) {
	t, err := template.Parse(src)
	if err != nil {
		return "", err
	}
	return t.Execute(model)
}

// send delivers one message per recipient over SMTP.
func (d *Deliverer) send(ctx context.Context, from string, to []string, subject, body string) error {
	for _, rcpt := range to {
		if err := d.sendOne(ctx, from, rcpt, subject, body); err != nil {
			return fmt.Errorf("%w: %w", errTransport, err)
		}
	}
	return nil
}

func (d *Deliverer) sendOne(ctx context.Context, from, to, subject, body string) error {
	cfg := d.Email
	addr := net.JoinHostPort(cfg.Hostname, strconv.Itoa(cfg.Port))
	connect := cfg.ConnectTimeout
	if connect <= 0 {
		connect = 10 * time.Second
	}
	dialer := &net.Dialer{Timeout: connect}
	tlsCfg := cfg.TLS
	if tlsCfg == nil {
		tlsCfg = &tls.Config{}
	}
	tlsCfg = tlsCfg.Clone()
	if tlsCfg.ServerName == "" {
		tlsCfg.ServerName = cfg.Hostname
	}
	var conn net.Conn
	var err error
	if cfg.UseSSL {
		conn, err = (&tls.Dialer{NetDialer: dialer, Config: tlsCfg}).DialContext(ctx, "tcp", addr)
	} else {
		conn, err = dialer.DialContext(ctx, "tcp", addr)
	}
	if err != nil {
		return err
	}
	socket := cfg.SocketTimeout
	if socket <= 0 {
		socket = 10 * time.Second
	}
	_ = conn.SetDeadline(time.Now().Add(socket))
	c, err := smtp.NewClient(conn, cfg.Hostname)
	if err != nil {
		conn.Close()
		return err
	}
	defer c.Close()
	if cfg.UseTLS && !cfg.UseSSL {
		if ok, _ := c.Extension("STARTTLS"); !ok {
			return errors.New("the mail server does not offer STARTTLS, which transport_email_use_tls requires")
		}
		if err := c.StartTLS(tlsCfg); err != nil {
			return err
		}
	}
	if cfg.UseAuth {
		if err := c.Auth(smtp.PlainAuth("", cfg.Username, cfg.Password, cfg.Hostname)); err != nil {
			return err
		}
	}
	if err := c.Mail(from); err != nil {
		return err
	}
	if err := c.Rcpt(to); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(mailMessage(from, to, subject, body, time.Now())); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

// mailMessage is a plain-text message with its headers. Header values lose
// line breaks, so a template cannot add headers.
func mailMessage(from, to, subject, body string, at time.Time) []byte {
	clean := func(s string) string { return strings.NewReplacer("\r", " ", "\n", " ").Replace(s) }
	var b bytes.Buffer
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: %s\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n",
		clean(from), clean(to), mimeWord(clean(subject)), at.UTC().Format(time.RFC1123Z))
	body = strings.ReplaceAll(strings.ReplaceAll(body, "\r\n", "\n"), "\n", "\r\n")
	b.WriteString(body)
	if !strings.HasSuffix(body, "\r\n") {
		b.WriteString("\r\n")
	}
	return b.Bytes()
}

// mimeWord encodes a header value that is not plain ASCII.
func mimeWord(s string) string {
	for _, r := range s {
		if r > 126 {
			return mimeQ(s)
		}
	}
	return s
}

func mimeQ(s string) string {
	var b strings.Builder
	b.WriteString("=?UTF-8?Q?")
	for _, c := range []byte(s) {
		switch {
		case c == ' ':
			b.WriteByte('_')
		case c > 32 && c < 127 && c != '=' && c != '?' && c != '_':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "=%02X", c)
		}
	}
	b.WriteString("?=")
	return b.String()
}
