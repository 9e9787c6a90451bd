// Package circulation holds the use cases of lending: check-out, check-in
// and renewal under the school's loan rules, holds and their pickup shelf
// (HoldDesk), losses, damage and charges, overdue notices and slips. Its
// LoanReader and HoldDesk serve the contexts above it too.
//
// It calls usecase and students. It may import ports, the core's domain packages (core/library, core/user,
// core/catalog, core/errs, core/csvout), the standard library (not net/http
// or database/sql), github.com/google/uuid and golang.org/x/text.
package circulation
