// Package service builds the school library's use cases from their stores
// (NewLibrary) and holds the tests that run them together, as the service
// runs them.
//
// The use cases live in one package per bounded context:
//
//	usecase      what every context is built on: the clock, the school a
//	             request acts on, record ids, list paging, background jobs,
//	             upload slots and the expiry sweep
//	identity     accounts, sign-in, sessions, passwords, sign-up and mail;
//	             staff accounts and their invitations
//	reading      the books of /v1/books: reading lists, progress,
//	             recommendations
//	users        profiles, preferences, statistics, data export and
//	             account deletion of /v1/users
//	schools      a school's settings, calendar and loan rules
//	students     students, roster syncs and rollover
//	circulation  loans, renewals, holds, charges, notices and slips
//	collection   holdings, their files and imports, cataloguing,
//	             stocktakes, reports and the public catalogue
//
// A context calls only the contexts below it; test/architecture_test.go
// says which. Handlers decode a request, call one method of a use case and
// encode the result; everything a use case needs from the outside world
// comes through a port.
//
// It may import ports, the core's domain packages (core/library, core/user,
// core/catalog, core/errs, core/csvout), the standard library (not net/http
// or database/sql), github.com/google/uuid and golang.org/x/text, and nothing else.
package service
