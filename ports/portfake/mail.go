package portfake

import (
	"context"
	"sync"

	"github.com/readinglibrary/service/ports"
)

// Outbox is a ports.Mailer that keeps every message it is given, in order.
// It is safe for concurrent senders and readers: the identity service sends
// mail in the background.
type Outbox struct {
	mu   sync.Mutex
	sent []ports.Message
}

var _ ports.Mailer = (*Outbox)(nil)

func (o *Outbox) Send(_ context.Context, m ports.Message) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.sent = append(o.sent, m)
	return nil
}

// Sent returns a copy of every message sent so far.
func (o *Outbox) Sent() []ports.Message {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]ports.Message(nil), o.sent...)
}

// To returns the messages sent to addr so far.
func (o *Outbox) To(addr string) []ports.Message {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []ports.Message
	for _, m := range o.sent {
		if m.To == addr {
			out = append(out, m)
		}
	}
	return out
}
