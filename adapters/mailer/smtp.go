// Package mailer implements ports.Mailer: SMTP through go-mail, and a
// development outbox that writes each message to a directory and logs it,
// for running the service without a mail server.
//
// Like every adapter it may import ports, the core packages and outside
// libraries, but no other adapter and nothing under cmd (the layer rules of
// test/architecture_test.go).
package mailer

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/mail"
	"time"

	gomail "github.com/wneessen/go-mail"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/ports"
)

// TLSMode is how the connection to the SMTP server is protected.
type TLSMode string

// The TLS modes.
const (
	// TLSNone sends in clear text: for a relay on the same host or a test
	// server only. Credentials are never sent this way (see NewSMTP).
	TLSNone TLSMode = "none"
	// TLSStartTLS upgrades a plain connection with STARTTLS, and fails
	// when the server does not offer it (submission, port 587).
	TLSStartTLS TLSMode = "starttls"
	// TLSImplicit opens the connection with TLS (submissions, port 465).
	TLSImplicit TLSMode = "tls"
)

// DefaultPort is the usual port of each mode.
func (m TLSMode) DefaultPort() int {
	switch m {
	case TLSImplicit:
		return 465
	case TLSNone:
		return 25
	default:
		return 587
	}
}

// SMTPConfig holds the SMTP server's settings.
type SMTPConfig struct {
	Host     string
	Port     int // 0: the mode's default port
	TLS      TLSMode
	Username string // empty: no authentication
	Password string
	From     string // the sender, e.g. "Reading library <noreply@library.example.org>"
	// Timeout bounds connecting and each SMTP exchange (default 15s).
	Timeout time.Duration
	// TLSConfig overrides the TLS settings (tests trust their own CA with
	// it); nil verifies the server's certificate against the system roots.
	TLSConfig *tls.Config
}

// SMTP sends each message over its own connection to the configured
// server. It is safe for concurrent use.
type SMTP struct {
	cfg  SMTPConfig
	opts []gomail.Option
}

var _ ports.Mailer = (*SMTP)(nil)

// NewSMTP checks cfg and returns the mailer. Authentication over a clear
// connection is refused: the password would cross the network readable.
func NewSMTP(cfg SMTPConfig) (*SMTP, error) {
	if cfg.Host == "" {
		return nil, fmt.Errorf("mailer: no SMTP host")
	}
	if _, err := mail.ParseAddress(cfg.From); err != nil {
		return nil, fmt.Errorf("mailer: sender %q is not an address: %w", cfg.From, err)
	}
	if cfg.Port == 0 {
		cfg.Port = cfg.TLS.DefaultPort()
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 15 * time.Second
	}
	opts := []gomail.Option{gomail.WithPort(cfg.Port), gomail.WithTimeout(cfg.Timeout)}
	switch cfg.TLS {
	case TLSNone:
		if cfg.Username != "" {
			return nil, fmt.Errorf("mailer: SMTP credentials need TLS (starttls or tls), not %q", cfg.TLS)
		}
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	case TLSStartTLS:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	case TLSImplicit:
		opts = append(opts, gomail.WithSSL())
	default:
		return nil, fmt.Errorf("mailer: TLS mode %q is not none, starttls or tls", cfg.TLS)
	}
	tc := cfg.TLSConfig
	if tc == nil {
		tc = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	tc = tc.Clone()
	tc.ServerName = cfg.Host
	opts = append(opts, gomail.WithTLSConfig(tc))
	if cfg.Username != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(cfg.Username), gomail.WithPassword(cfg.Password))
	}
	// Building a client once checks the options before the first message.
	if _, err := gomail.NewClient(cfg.Host, opts...); err != nil {
		return nil, fmt.Errorf("mailer: %w", err)
	}
	return &SMTP{cfg: cfg, opts: opts}, nil
}

// Send implements ports.Mailer.
func (s *SMTP) Send(ctx context.Context, m ports.Message) error {
	msg := gomail.NewMsg()
	if err := msg.From(s.cfg.From); err != nil {
		return errs.Wrap(err, "set the sender")
	}
	if err := msg.To(m.To); err != nil {
		return errs.InvalidField("to", "is not an email address")
	}
	msg.Subject(m.Subject)
	msg.SetDate()
	msg.SetMessageID()
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	client, err := gomail.NewClient(s.cfg.Host, s.opts...)
	if err != nil {
		return errs.Wrap(err, "build the SMTP client")
	}
	if err := client.DialAndSendWithContext(ctx, msg); err != nil {
		// The cause names the server and its answer, never the password.
		return &errs.Error{Kind: errs.Unavailable, Code: errs.CodeMailUnavailable, Message: "The mail server did not take the message.", Err: err}
	}
	return nil
}
