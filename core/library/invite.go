package library

import "time"

// Invite is a single-use invitation to set a password for a new staff
// account. Only the SHA-256 of its token is stored.
type Invite struct {
	TokenHash string
	AccountID string
	ExpiresAt time.Time
	CreatedAt time.Time
}
