// Package reading holds the use cases of the books interface
// (/v1/books): the catalogue of readable books and their content, reading
// lists, reading progress and recommendations.
//
// It calls the usecase package and no other context. It may import ports, the core's domain packages (core/library, core/user,
// core/catalog, core/errs, core/csvout), the standard library (not net/http
// or database/sql), github.com/google/uuid and golang.org/x/text.
package reading
