// Package schools holds the use cases of a school itself: its settings,
// its calendar of open days and its loan rules.
//
// It calls the usecase package and no other context. It may import ports, the core's domain packages (core/library, core/user,
// core/catalog, core/errs, core/csvout), the standard library (not net/http
// or database/sql), github.com/google/uuid and golang.org/x/text.
package schools
