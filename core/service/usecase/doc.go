// Package usecase is what the library's use-case contexts are built on:
// the clock (time and ids, replaceable in tests), the school a request acts
// on (SchoolScope), record ids, list paging, the runner of background jobs
// with its upload slots, the bounded background work of mail, the check of
// a constructor's dependencies, and the sweeper of expired records.
//
// It calls no context. It may import ports, the core's domain packages (core/library, core/user,
// core/catalog, core/errs, core/csvout), the standard library (not net/http
// or database/sql), github.com/google/uuid and golang.org/x/text.
package usecase
