// Package users holds the use cases of the users interface (/v1/users):
// profiles, preferences, reading statistics, data export and permanent
// deletion, which reaches a student's loans and holds.
//
// It calls usecase, identity and circulation. It may import ports, the core's domain packages (core/library, core/user,
// core/catalog, core/errs, core/csvout), the standard library (not net/http
// or database/sql), github.com/google/uuid and golang.org/x/text.
package users
