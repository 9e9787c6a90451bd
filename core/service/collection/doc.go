// Package collection holds the use cases of what a library owns: books and
// copies with their labels, holdings files (MARC and CSV imports and
// exports), cataloguing from the school's catalogue server, stocktakes,
// reports and the public catalogue.
//
// It calls usecase and circulation. It may import ports, the core's domain packages (core/library, core/user,
// core/catalog, core/errs, core/csvout), the standard library (not net/http
// or database/sql), github.com/google/uuid and golang.org/x/text.
package collection
