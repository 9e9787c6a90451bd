// Package sqliterepo implements the ports repositories on one SQLite file,
// through modernc.org/sqlite (pure Go, no cgo): the service's embedded
// default store.
//
// Connections: one writer connection does every write, so writes never
// contend for SQLite's lock inside the process, and transactions begin
// IMMEDIATE so a transaction that reads before it writes cannot deadlock on
// a lock upgrade. Reads go to a pool of query_only connections; with the
// write-ahead log they run beside the writer and see every committed write.
//
// Exactly-once guarantees (a rotation claimed once, one reading-list item
// per account and book, one active signing key, unique session ids, one
// claim per lent copy, one renewal per loan and number, one account per
// student number of a school, one redemption per invitation) are UNIQUE or
// PRIMARY KEY constraints, or a check and a write inside one write
// transaction: both are serialised by SQLite whatever the number of racing
// callers.
//
// The schema is versioned by PRAGMA user_version and migrated at Open by a
// small runner over the SQL files embedded from migrations/, each applied in
// one transaction together with its version bump. A hand-written runner
// rather than goose or golang-migrate: it is a few dozen lines, adds no
// dependency, keeps the version in the database header where no other tool
// writes, makes the bump atomic with the migration, and refuses a database
// whose version is newer than the binary knows (see SchemaTooNewError)
// instead of running an old binary on a schema it does not understand.
//
// Every SQL statement is registered by name in one registry (statements.go)
// and run through helpers that take a registered statement, so the
// query-plan test can check that each one uses an index, and a statement
// observer (WithStatementObserver) can count them.
//
// The service runs no ANALYZE: the query plans are the ones the schema's
// indexes give without statistics, which the query-plan test checks (and
// checks again after an ANALYZE).
//
// Like every adapter it may import ports, the core packages and outside
// libraries, but no other adapter and nothing under cmd (the layer rules of
// test/architecture_test.go).
package sqliterepo

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/readinglibrary/service/ports"
)

// driverName is the database/sql name of modernc.org/sqlite.
const driverName = "sqlite"

// Defaults of the options.
const (
	defaultBusyTimeout = 5 * time.Second
	minReadConnections = 4
)

// durability is the synchronous setting of the writer. In WAL mode, NORMAL
// already survives a crash of the process (kill -9): a commit is in the
// log, in the operating system's cache, before it is acknowledged. Only an
// operating-system crash or a power cut could lose the last commits. FULL
// also syncs the log to disk at every commit, which survives those too. It
// cost about 0.25 ms more per commit on the project's 2-vCPU VM (a reading
// session recorded in 0.3 ms against 0.07 ms; BenchmarkRecordSession), a
// ceiling of some 3,000 writes a second through the one writer: far above
// what a school library asks, so FULL.
const durability = "FULL"

// DB is one SQLite database file holding the service's tables.
type DB struct {
	path     string
	write    *pool // one connection: every write
	read     *pool // query_only connections
	observer func(name string)
	file     os.FileInfo // the file Open opened, for Ping
	closed   atomic.Bool
}

// Option configures Open.
type Option func(*config)

type config struct {
	observer    func(name string)
	readConns   int
	busyTimeout time.Duration
}

// WithStatementObserver makes the repositories call f with the name of each
// statement they run, once per execution, before it runs (the SQLite
// counterpart of the MongoDB command monitor: tests count statements per
// request with it). Transaction control and the statements of Open itself
// (pragmas, migrations) are not reported. f is called from many goroutines
// at once. Without this option nothing is called.
func WithStatementObserver(f func(name string)) Option {
	return func(c *config) { c.observer = f }
}

// WithReadConnections sets the size of the read pool; the default is the
// number of CPUs, at least 4. Values below 1 keep the default.
func WithReadConnections(n int) Option {
	return func(c *config) {
		if n >= 1 {
			c.readConns = n
		}
	}
}

// WithBusyTimeout sets how long a statement waits for a lock held by
// another process (a backup tool, a second libraryd on the same file)
// before it fails as Unavailable; the default is 5 s. Values of 0 or less
// keep the default.
func WithBusyTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.busyTimeout = d
		}
	}
}

// FileMode is the mode of the database files Open and Backup create: the
// owner alone reads them. SQLite gives the write-ahead log and the shared
// memory file (library.db-wal, library.db-shm) the mode of the database
// file whenever it creates them, checkpoints and restarts included.
const FileMode fs.FileMode = 0o600

// Open opens (creating it with FileMode if needed) the database file at
// path, migrates its schema to the newest version this binary knows, and
// returns it. A database at a newer version is refused with a
// *SchemaTooNewError. The directory must exist. The mode of an existing
// file is left as it is.
func Open(ctx context.Context, path string, opts ...Option) (*DB, error) {
	cfg := config{readConns: max(minReadConnections, runtime.NumCPU()), busyTimeout: defaultBusyTimeout}
	for _, o := range opts {
		o(&cfg)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sqliterepo: database path %q: %w", path, err)
	}
	if err := createPrivate(abs); err != nil {
		return nil, fmt.Errorf("sqliterepo: create %s: %w", abs, err)
	}
	busy := "busy_timeout(" + strconv.FormatInt(max(cfg.busyTimeout.Milliseconds(), 1), 10) + ")"

	write, err := sql.Open(driverName, dsn(abs,
		busy, "journal_mode(WAL)", "synchronous("+durability+")", "foreign_keys(1)",
	)+"&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("sqliterepo: open %s: %w", abs, err)
	}
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)
	write.SetConnMaxIdleTime(0)
	// The observer sees the repositories' statements, not Open's own
	// (keying old books, below): it is set once those have run.
	d := &DB{path: abs, write: &pool{db: write}}

	if err := checkWAL(ctx, write); err != nil {
		_ = write.Close()
		return nil, fmt.Errorf("sqliterepo: open %s: %w", abs, err)
	}
	if err := migrate(ctx, write, migrations, filepath.Base(abs)); err != nil {
		_ = write.Close()
		var tooNew *SchemaTooNewError
		if errors.As(err, &tooNew) {
			return nil, err
		}
		return nil, fmt.Errorf("sqliterepo: migrate %s: %w", abs, err)
	}
	if err := d.fillMatchKeys(ctx); err != nil {
		_ = write.Close()
		return nil, fmt.Errorf("sqliterepo: migrate %s: %w", abs, err)
	}
	if err := d.fillAppLinkKeys(ctx); err != nil {
		_ = write.Close()
		return nil, fmt.Errorf("sqliterepo: migrate %s: %w", abs, err)
	}
	d.observer = cfg.observer

	// The file is in WAL mode now (a persistent setting), so readers need
	// no journal_mode of their own, which query_only would refuse anyway.
	read, err := sql.Open(driverName, dsn(abs, busy, "query_only(1)"))
	if err != nil {
		_ = write.Close()
		return nil, fmt.Errorf("sqliterepo: open %s for reading: %w", abs, err)
	}
	read.SetMaxOpenConns(cfg.readConns)
	read.SetMaxIdleConns(cfg.readConns)
	read.SetConnMaxLifetime(0)
	read.SetConnMaxIdleTime(0)
	d.read = &pool{db: read}
	if err := read.PingContext(ctx); err != nil {
		_ = d.Close()
		return nil, fmt.Errorf("sqliterepo: open %s for reading: %w", abs, err)
	}
	if d.file, err = os.Stat(abs); err != nil {
		_ = d.Close()
		return nil, fmt.Errorf("sqliterepo: open %s: %w", abs, err)
	}
	return d, nil
}

// createPrivate creates an empty file at path with FileMode, whatever the
// process's umask, unless a file is there already. SQLite takes an empty
// file for a new database; had it created the file itself, it would have
// given it 0644 less the umask, readable by everyone on the machine.
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, FileMode)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return errors.Join(f.Chmod(FileMode), f.Close())
}

// dsn is the driver's name for the file at abs with the given pragmas.
func dsn(abs string, pragmas ...string) string {
	q := url.Values{"_pragma": pragmas}
	return (&url.URL{Scheme: "file", Path: abs, RawQuery: q.Encode()}).String()
}

// checkWAL makes sure the file is in WAL mode: some file systems (network
// ones) refuse it, and without it readers and the writer block each other.
func checkWAL(ctx context.Context, write *sql.DB) error {
	var mode string
	if err := write.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return err
	}
	if mode != "wal" {
		return fmt.Errorf("the database is in journal mode %q, not wal: is the file on a local file system?", mode)
	}
	return nil
}

// Path returns the absolute path of the database file.
func (d *DB) Path() string { return d.path }

// Close closes every connection. Calls on the repositories afterwards fail
// as Unavailable.
func (d *DB) Close() error {
	d.closed.Store(true)
	var errRead error
	if d.read != nil {
		errRead = d.read.close()
	}
	if err := errors.Join(errRead, d.write.close()); err != nil {
		return fmt.Errorf("sqliterepo: close %s: %w", d.path, err)
	}
	return nil
}

// closedErr marks err as the result of using a closed database, which
// database/sql only says in text.
func (d *DB) closedErr(err error) error {
	if err != nil && d.closed.Load() {
		return errors.Join(errClosed, err)
	}
	return err
}

// inTx runs fn in a write transaction (BEGIN IMMEDIATE) and commits it;
// any error from fn rolls it back and is returned as it is. Errors of the
// transaction itself are mapped for op.
func (d *DB) inTx(ctx context.Context, op string, fn func(tx *txn) error) error {
	sqlTx, err := d.write.db.BeginTx(ctx, nil)
	if err != nil {
		return mapErr(d.closedErr(err), op, nil, nil)
	}
	tx := &txn{tx: sqlTx, pool: d.write}
	defer tx.prepareMissed(ctx)
	if err := fn(tx); err != nil {
		_ = sqlTx.Rollback()
		return err
	}
	if err := sqlTx.Commit(); err != nil {
		return mapErr(d.closedErr(err), op, nil, nil)
	}
	return nil
}

// readTx runs fn in a read transaction on the read pool, so that its
// statements see one snapshot of the database. Errors as for inTx.
func (d *DB) readTx(ctx context.Context, op string, fn func(tx *txn) error) error {
	sqlTx, err := d.read.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return mapErr(d.closedErr(err), op, nil, nil)
	}
	tx := &txn{tx: sqlTx, pool: d.read}
	defer tx.prepareMissed(ctx)
	defer func() { _ = sqlTx.Rollback() }() // nothing to keep: it only read
	return fn(tx)
}

// Repositories returns every repository backed by this database.
func (d *DB) Repositories() ports.Repositories {
	r := ports.Repositories{Health: NewHealth(d)}
	for _, e := range entities {
		if e.repositories != nil {
			e.repositories(d, &r)
		}
	}
	return r
}

var _ ports.Pinger = (*Health)(nil)

// Health is the ports.Pinger of a database file.
type Health struct {
	db *DB
}

// NewHealth returns a Pinger for db. It panics on nil, a wiring bug.
func NewHealth(db *DB) *Health {
	if db == nil {
		panic("sqliterepo: NewHealth: nil database")
	}
	return &Health{db: db}
}

var stmtPing = newStmt("health.ping", `SELECT n FROM counters WHERE name = 'books'`)

// Ping implements ports.Pinger: the file Open opened must still be at its
// path (an open connection keeps reading a deleted or replaced file, which
// no restart would find again), and a read must succeed. Any failure means
// the database cannot serve requests, so every error is Unavailable.
func (h *Health) Ping(ctx context.Context) error {
	d := h.db
	if d.closed.Load() {
		return errUnavailable(errClosed)
	}
	fi, err := os.Stat(d.path)
	if err != nil {
		return errUnavailable(err)
	}
	if !os.SameFile(fi, d.file) {
		return errUnavailable(fmt.Errorf("%s was replaced by another file", d.path))
	}
	var n int64
	if err := d.queryRow(ctx, d.read, stmtPing).Scan(&n); err != nil {
		return errUnavailable(err)
	}
	return nil
}
