package ports

import "context"

// Message is one plain-text mail to one recipient.
type Message struct {
	To      string // one address, e.g. reader@example.org
	Subject string
	Text    string // the body, plain text
}

// Mailer sends mail on behalf of the service (password resets, sign-up
// confirmations).
type Mailer interface {
	// Send hands m to the mail server, or to wherever the adapter keeps
	// mail. Errors: Unavailable when the server cannot be reached or
	// refuses the message; Invalid when m.To is not an address.
	Send(ctx context.Context, m Message) error
}
