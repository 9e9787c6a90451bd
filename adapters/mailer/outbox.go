package mailer

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"mime"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/ports"
)

// Outbox is the development mailer: each message becomes a file in a
// directory, readable in a text editor or a mail client (.eml), so a
// developer can follow the links it carries without a mail server. The log
// says a message was written, to whom, with which subject and in which
// file; never its body, which carries single-use secrets (reset and
// confirmation links).
type Outbox struct {
	dir string
	log *slog.Logger
	// Now is replaceable in tests.
	Now func() time.Time
}

var _ ports.Mailer = (*Outbox)(nil)

// NewOutbox returns an outbox writing to dir, made on the first message.
func NewOutbox(dir string, log *slog.Logger) *Outbox {
	if log == nil {
		log = slog.Default()
	}
	return &Outbox{dir: dir, log: log, Now: time.Now}
}

// Send implements ports.Mailer: one file per message, named by time and a
// random suffix so messages sort by time and never overwrite each other.
// The file is readable by its owner only.
func (o *Outbox) Send(_ context.Context, m ports.Message) error {
	if _, err := mail.ParseAddress(m.To); err != nil || strings.ContainsAny(m.To, "\r\n") {
		return errs.InvalidField("to", "is not an email address")
	}
	if err := os.MkdirAll(o.dir, 0o700); err != nil {
		return errs.Wrap(err, "make the outbox directory")
	}
	now := o.Now().UTC()
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	name := fmt.Sprintf("%s-%s.eml", now.Format("20060102T150405.000000000Z"), hex.EncodeToString(suffix))
	var b strings.Builder
	fmt.Fprintf(&b, "Date: %s\r\n", now.Format(time.RFC1123Z))
	fmt.Fprintf(&b, "To: %s\r\n", m.To)
	fmt.Fprintf(&b, "Subject: %s\r\n", subjectHeader(m.Subject))
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n")
	b.WriteString(strings.ReplaceAll(m.Text, "\n", "\r\n"))
	path := filepath.Join(o.dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		return errs.Wrap(err, "write the message to the outbox")
	}
	o.log.Info("mail written to the outbox (no SMTP server is configured)", "to", m.To, "subject", m.Subject, "file", path)
	return nil
}

// subjectHeader encodes a subject that is not plain ASCII as an RFC 2047
// word, and drops line breaks that would start a new header.
func subjectHeader(s string) string {
	return mime.QEncoding.Encode("utf-8", strings.NewReplacer("\r", " ", "\n", " ").Replace(s))
}
