package mailer_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/readinglibrary/service/adapters/mailer"
	"github.com/readinglibrary/service/adapters/mailer/mailpittest"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/ports"
	"github.com/readinglibrary/service/test/tlscert"
)

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

const from = "Reading library <noreply@library.example.org>"

var msg = ports.Message{To: "reader@example.org", Subject: "Reset your password – ünïcode", Text: "Open https://library.example.org/x?token=abc\n"}

func checkDelivered(t *testing.T, mp *mailpittest.Server) mailpittest.Message {
	t.Helper()
	got := mp.WaitFor(t, msg.To, 1)
	if len(got) != 1 || got[0].Subject != msg.Subject || got[0].From.Address != "noreply@library.example.org" ||
		strings.TrimSpace(got[0].Text) != strings.TrimSpace(msg.Text) {
		t.Fatalf("delivered = %+v, want %+v", got, msg)
	}
	return got[0]
}

func TestSMTPWithoutTLS(t *testing.T) {
	mp := mailpittest.Start(t)
	m, err := mailer.NewSMTP(mailer.SMTPConfig{Host: mp.SMTPHost, Port: mp.SMTPPort, TLS: mailer.TLSNone, From: from})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Send(ctx(t), msg); err != nil {
		t.Fatal(err)
	}
	checkDelivered(t, mp)
}

// authFile writes an htpasswd file with one user.
func authFile(t *testing.T, name, password string) string {
	t.Helper()
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "smtp-users")
	if err := os.WriteFile(p, []byte(name+":"+string(h)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// STARTTLS with a user and password, against a server that requires both:
// the message arrives tagged with the user that authenticated, and a wrong
// password fails without its value in the error.
func TestSMTPStartTLSWithAuthentication(t *testing.T) {
	cert, key, client := tlscert.Files(t)
	mp := mailpittest.Start(t, "--smtp-tls-cert", cert, "--smtp-tls-key", key, "--smtp-require-starttls",
		"--smtp-auth-file", authFile(t, "library", "smtp-secret-1"), "--tags-username")
	cfg := mailer.SMTPConfig{Host: mp.SMTPHost, Port: mp.SMTPPort, TLS: mailer.TLSStartTLS, Username: "library", Password: "smtp-secret-1", From: from, TLSConfig: client}
	m, err := mailer.NewSMTP(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Send(ctx(t), msg); err != nil {
		t.Fatal(err)
	}
	if got := checkDelivered(t, mp); !slices.Contains(got.Tags, "library") {
		t.Fatalf("tags = %v, want the authenticated user", got.Tags)
	}

	cfg.Password = "wrong-secret-2"
	m, err = mailer.NewSMTP(cfg)
	if err != nil {
		t.Fatal(err)
	}
	err = m.Send(ctx(t), ports.Message{To: "other@example.org", Subject: "x", Text: "x"})
	if errs.KindOf(err) != errs.Unavailable {
		t.Fatalf("wrong password: %v, want Unavailable", err)
	}
	if strings.Contains(err.Error(), "wrong-secret-2") {
		t.Fatalf("the error shows the password: %v", err)
	}
}

func TestSMTPImplicitTLS(t *testing.T) {
	cert, key, client := tlscert.Files(t)
	mp := mailpittest.Start(t, "--smtp-tls-cert", cert, "--smtp-tls-key", key, "--smtp-require-tls")
	m, err := mailer.NewSMTP(mailer.SMTPConfig{Host: mp.SMTPHost, Port: mp.SMTPPort, TLS: mailer.TLSImplicit, From: from, TLSConfig: client})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Send(ctx(t), msg); err != nil {
		t.Fatal(err)
	}
	checkDelivered(t, mp)
}

// starttls means encrypted or nothing: a server that does not offer
// STARTTLS gets no message, and one whose certificate is not trusted
// neither.
func TestSMTPStartTLSIsMandatory(t *testing.T) {
	plain := mailpittest.Start(t)
	m, err := mailer.NewSMTP(mailer.SMTPConfig{Host: plain.SMTPHost, Port: plain.SMTPPort, TLS: mailer.TLSStartTLS, From: from})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Send(ctx(t), msg); errs.KindOf(err) != errs.Unavailable {
		t.Fatalf("STARTTLS to a server without it: %v, want Unavailable", err)
	}
	cert, key, _ := tlscert.Files(t)
	untrusted := mailpittest.Start(t, "--smtp-tls-cert", cert, "--smtp-tls-key", key)
	m, err = mailer.NewSMTP(mailer.SMTPConfig{Host: untrusted.SMTPHost, Port: untrusted.SMTPPort, TLS: mailer.TLSStartTLS, From: from})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Send(ctx(t), msg); errs.KindOf(err) != errs.Unavailable {
		t.Fatalf("STARTTLS with an untrusted certificate: %v, want Unavailable", err)
	}
	if n := len(plain.Messages(t)) + len(untrusted.Messages(t)); n != 0 {
		t.Fatalf("%d messages went out unprotected", n)
	}
}

func TestNewSMTPRefusesBadSettings(t *testing.T) {
	for name, cfg := range map[string]mailer.SMTPConfig{
		"credentials in clear": {Host: "127.0.0.1", TLS: mailer.TLSNone, Username: "u", Password: "p", From: from},
		"unknown TLS mode":     {Host: "127.0.0.1", TLS: "ssl", From: from},
		"no host":              {TLS: mailer.TLSStartTLS, From: from},
		"bad sender":           {Host: "127.0.0.1", TLS: mailer.TLSStartTLS, From: "not an address"},
	} {
		if _, err := mailer.NewSMTP(cfg); err == nil {
			t.Errorf("%s: NewSMTP accepted %+v", name, cfg)
		}
	}
}

// The development outbox keeps the whole message in a file and logs that
// it did, without the body (which carries the links' secrets).
func TestOutbox(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "outbox")
	var logs bytes.Buffer
	o := mailer.NewOutbox(dir, slog.New(slog.NewJSONHandler(&logs, nil)))
	if err := o.Send(ctx(t), msg); err != nil {
		t.Fatal(err)
	}
	if err := o.Send(ctx(t), ports.Message{To: "reader@example.org\r\nBcc: x@example.org", Subject: "x", Text: "x"}); errs.KindOf(err) != errs.Invalid {
		t.Fatalf("a recipient with a header in it: %v, want Invalid", err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.eml"))
	if len(files) != 1 {
		t.Fatalf("outbox files = %v, want 1", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"To: reader@example.org\r\n", "Subject: =?utf-8?q?", "https://library.example.org/x?token=abc"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("outbox file lacks %q:\n%s", want, b)
		}
	}
	if st, _ := os.Stat(files[0]); st.Mode().Perm() != 0o600 {
		t.Errorf("outbox file mode = %v, want 0600", st.Mode().Perm())
	}
	if !strings.Contains(logs.String(), "reader@example.org") || strings.Contains(logs.String(), "token=abc") {
		t.Fatalf("log = %s, want the recipient and not the body", logs.String())
	}
}
