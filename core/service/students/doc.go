// Package students holds the use cases of a school's students: the
// student records, roster files and OneRoster syncs, and the rollover
// between school years.
//
// It calls the usecase package and no other context. It may import ports, the core's domain packages (core/library, core/user,
// core/catalog, core/errs, core/csvout), the standard library (not net/http
// or database/sql), github.com/google/uuid and golang.org/x/text.
package students
