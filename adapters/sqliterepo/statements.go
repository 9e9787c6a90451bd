package sqliterepo

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
)

// stmt is one SQL statement of the package, with a name for the statement
// observer and the logs. Statements are only ever made by newStmt, at
// package initialisation, so the registry holds every one of them and the
// query-plan test can explain each; the helpers that run statements refuse
// any other.
type stmt struct {
	name string
	sql  string
	// walks is set for a paged statement allowed to walk an index in the
	// page's order and stop at the page's end (LIMIT), instead of looking
	// rows up: an unfiltered page is read that way.
	walks bool
	// registered is true only for statements made by newStmt.
	registered bool
}

// registry holds every statement by name.
var registry = map[string]*stmt{}

// newStmt registers a statement. A name used twice is a bug, caught at
// start.
func newStmt(name, sql string) *stmt {
	if _, dup := registry[name]; dup {
		panic(fmt.Sprintf("sqliterepo: statement %q registered twice", name))
	}
	s := &stmt{name: name, sql: sql, registered: true}
	registry[name] = s
	return s
}

// newWalkingStmt registers a paged statement that may walk an index in
// order (see stmt.walks).
func newWalkingStmt(name, sql string) *stmt {
	s := newStmt(name, sql)
	s.walks = true
	return s
}

// statements returns every registered statement, ordered by name.
func statements() []*stmt {
	out := make([]*stmt, 0, len(registry))
	for _, s := range registry {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// querier is where a statement runs: the read pool, the writer, or a write
// transaction.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// These helpers are the only places in the package that hand SQL to
// database/sql (TestOnlyHelpersRunSQL holds that): each takes a registered
// statement and reports it to the observer.

// exec runs s on q.
func (d *DB) exec(ctx context.Context, q querier, s *stmt, args ...any) (sql.Result, error) {
	d.observe(s)
	res, err := q.ExecContext(ctx, s.sql, args...)
	return res, d.closedErr(err)
}

// query runs s on q for rows; the caller closes them.
func (d *DB) query(ctx context.Context, q querier, s *stmt, args ...any) (*sql.Rows, error) {
	d.observe(s)
	rows, err := q.QueryContext(ctx, s.sql, args...)
	return rows, d.closedErr(err)
}

// queryRow runs s on q for one row. Scan reports sql.ErrNoRows for none.
func (d *DB) queryRow(ctx context.Context, q querier, s *stmt, args ...any) row {
	d.observe(s)
	return row{d: d, r: q.QueryRowContext(ctx, s.sql, args...)}
}

// row is a *sql.Row whose errors say when the database was closed.
type row struct {
	d *DB
	r *sql.Row
}

// Scan copies the row's columns into dest.
func (r row) Scan(dest ...any) error { return r.d.closedErr(r.r.Scan(dest...)) }

// observe reports s to the statement observer. A statement that newStmt did
// not make is a bug: it would escape the query-plan test.
func (d *DB) observe(s *stmt) {
	if !s.registered {
		panic(fmt.Sprintf("sqliterepo: statement %q is not registered", s.name))
	}
	if d.observer != nil {
		d.observer(s.name)
	}
}
