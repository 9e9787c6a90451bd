// Package identity holds the use cases of who someone is: accounts,
// sign-in and sessions, passwords and their resets, sign-up, external
// identity providers, the service's mail, and the school staff's accounts
// and invitations (Staff).
//
// It calls the usecase package and no other context. It may import ports, the core's domain packages (core/library, core/user,
// core/catalog, core/errs, core/csvout), the standard library (not net/http
// or database/sql), github.com/google/uuid and golang.org/x/text.
package identity
