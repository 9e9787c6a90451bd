package sqliterepo

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"sync"
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
	// whole is set for a statement that reads or counts a whole table on
	// purpose: the RecordStore copies every record of a store, with the
	// service stopped.
	whole bool
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

// newWholeStmt registers a statement that reads or counts a whole table
// (see stmt.whole).
func newWholeStmt(name, sql string) *stmt {
	s := newStmt(name, sql)
	s.whole = true
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

// A statement is prepared once per connection and kept: SQLite then skips
// parsing and planning, which is most of the cost of a small statement
// (a book by id: 25 µs prepared, 55 µs not; a search page: 48 µs against
// 192 µs).

// pool is the writer or the read pool, with the statements prepared on it
// so far (database/sql prepares each again on every other connection of
// the pool that runs it, and keeps that too).
type pool struct {
	db    *sql.DB
	stmts sync.Map // *stmt -> *sql.Stmt
}

// prepared returns s prepared on p, preparing it on first use. The caller
// must hold none of p's connections: preparing waits for one.
func (p *pool) prepared(ctx context.Context, s *stmt) (*sql.Stmt, error) {
	if ps, ok := p.stmts.Load(s); ok {
		return ps.(*sql.Stmt), nil
	}
	ps, err := p.db.PrepareContext(ctx, s.sql)
	if err != nil {
		return nil, err
	}
	if prev, loaded := p.stmts.LoadOrStore(s, ps); loaded {
		_ = ps.Close() // another goroutine prepared it first
		return prev.(*sql.Stmt), nil
	}
	return ps, nil
}

// close closes every statement prepared on p, then p.
func (p *pool) close() error {
	p.stmts.Range(func(_, ps any) bool {
		_ = ps.(*sql.Stmt).Close()
		return true
	})
	return p.db.Close()
}

// txn is a transaction on a pool.
type txn struct {
	tx   *sql.Tx
	pool *pool
	// missed are statements the pool had not prepared yet: the transaction
	// holds a connection, so preparing them on the pool could wait for
	// itself. They run prepared on the transaction alone and are prepared
	// on the pool once it is over.
	missed []*stmt
}

// stmt returns s ready to run in t.
func (t *txn) stmt(ctx context.Context, s *stmt) (*sql.Stmt, error) {
	if ps, ok := t.pool.stmts.Load(s); ok {
		return t.tx.StmtContext(ctx, ps.(*sql.Stmt)), nil
	}
	t.missed = append(t.missed, s)
	return t.tx.PrepareContext(ctx, s.sql)
}

// prepareMissed prepares on the pool what t ran unprepared; a failure only
// means the next use prepares again.
func (t *txn) prepareMissed(ctx context.Context) {
	for _, s := range t.missed {
		if _, err := t.pool.prepared(ctx, s); err != nil {
			return
		}
	}
}

// target is where a statement runs: a pool (the writer or the readers), or
// a transaction on one.
type target interface {
	stmt(ctx context.Context, s *stmt) (*sql.Stmt, error)
}

func (p *pool) stmt(ctx context.Context, s *stmt) (*sql.Stmt, error) { return p.prepared(ctx, s) }

// These helpers are the only places in the package that run statements
// (TestOnlyHelpersRunSQL holds that): each takes a registered statement and
// reports it to the observer.

// exec runs s on t.
func (d *DB) exec(ctx context.Context, t target, s *stmt, args ...any) (sql.Result, error) {
	d.observe(s)
	ps, err := t.stmt(ctx, s)
	if err != nil {
		return nil, d.closedErr(err)
	}
	res, err := ps.ExecContext(ctx, args...)
	return res, d.closedErr(err)
}

// query runs s on t for rows; the caller closes them.
func (d *DB) query(ctx context.Context, t target, s *stmt, args ...any) (*sql.Rows, error) {
	d.observe(s)
	ps, err := t.stmt(ctx, s)
	if err != nil {
		return nil, d.closedErr(err)
	}
	rows, err := ps.QueryContext(ctx, args...)
	return rows, d.closedErr(err)
}

// queryRow runs s on t for one row. Scan reports sql.ErrNoRows for none.
func (d *DB) queryRow(ctx context.Context, t target, s *stmt, args ...any) row {
	d.observe(s)
	ps, err := t.stmt(ctx, s)
	if err != nil {
		return row{d: d, err: err}
	}
	return row{d: d, r: ps.QueryRowContext(ctx, args...)}
}

// row is a *sql.Row, or the error of preparing its statement, whose errors
// say when the database was closed.
type row struct {
	d   *DB
	r   *sql.Row
	err error
}

// Scan copies the row's columns into dest.
func (r row) Scan(dest ...any) error {
	if r.err != nil {
		return r.d.closedErr(r.err)
	}
	return r.d.closedErr(r.r.Scan(dest...))
}

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
