package sqliterepo

import (
	"context"
	"database/sql"
	"errors"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/readinglibrary/service/core/errs"
)

// errClosed is the cause of every failure on a closed database.
var errClosed = errors.New("sqliterepo: the database is closed")

// mapErr turns a database error into the *errs.Error that crosses the port.
// notFound and conflict build the port's errors for no row and for a UNIQUE
// or PRIMARY KEY violation; nil means the case cannot happen for op, and the
// error is then Internal like any other surprise. An *errs.Error, mapped
// already by the step that failed, is returned as it is. SQL text and
// driver messages only ever go in Err.
func mapErr(err error, op string, notFound, conflict func() error) error {
	var mapped *errs.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &mapped):
		return err
	case errors.Is(err, sql.ErrNoRows) && notFound != nil:
		return notFound()
	case isUniqueViolation(err) && conflict != nil:
		return conflict()
	case isUnavailable(err):
		return errUnavailable(err)
	}
	return errs.Wrap(err, "The database failed to %s.", op)
}

// errUnavailable keeps the cause for the logs; clients only learn to retry.
func errUnavailable(cause error) error {
	e := errs.E(errs.Unavailable, errs.CodeUnavailable, "The database is unavailable; try again shortly.")
	e.Err = cause
	return e
}

// sqliteCode returns the (extended) result code of a driver error.
func sqliteCode(err error) (int, bool) {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code(), true
	}
	return 0, false
}

// isUniqueViolation reports whether err is a UNIQUE or PRIMARY KEY
// constraint failure: another row holds the key.
func isUniqueViolation(err error) bool {
	code, ok := sqliteCode(err)
	return ok && (code == sqlite3.SQLITE_CONSTRAINT_UNIQUE || code == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY)
}

// unavailableCodes are primary result codes that mean "the database cannot
// serve you right now", as opposed to a problem with the request: a lock
// still held when busy_timeout ran out, an interrupted statement (the only
// interrupter is a cancelled context), and a file that cannot be opened,
// read, written or grown.
var unavailableCodes = map[int]bool{
	sqlite3.SQLITE_BUSY:      true,
	sqlite3.SQLITE_LOCKED:    true,
	sqlite3.SQLITE_INTERRUPT: true,
	sqlite3.SQLITE_IOERR:     true,
	sqlite3.SQLITE_CANTOPEN:  true,
	sqlite3.SQLITE_FULL:      true,
	sqlite3.SQLITE_PROTOCOL:  true,
}

// isUnavailable reports whether err means the database could not serve the
// call: closed, locked past busy_timeout, out of disk, or the caller's
// context ended while waiting. The request itself may well be fine. A
// transaction found already done can only have been rolled back by
// database/sql when its context ended: the package never uses one after
// its commit.
func isUnavailable(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, errClosed) || errors.Is(err, sql.ErrConnDone) || errors.Is(err, sql.ErrTxDone) {
		return true
	}
	code, ok := sqliteCode(err)
	return ok && unavailableCodes[code&0xff]
}
