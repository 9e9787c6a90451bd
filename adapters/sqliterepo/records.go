package sqliterepo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

var _ ports.RecordStore = (*Records)(nil)

// Records is the SQLite ports.RecordStore. Each kind is read from and
// written to the tables its repository keeps it in, with the
// repositories' own conversions and statements where they insert a record
// as given, so a written record is stored exactly as its repository would
// store it: derived rows and columns (search rows, the counters, the
// chapters of a book, the lowercase key of a student number, the integer
// keys) are made on the way in.
//
// Every call to Write is one transaction: a batch is stored whole or not at
// all. Writes are plain inserts, never upserts, so a key already taken is
// refused by its primary key or UNIQUE constraint and reported as a
// Conflict instead of overwriting a record. Records that name missing
// records (a loan of an anonymized student, a claim of a deleted loan, a
// redemption of a deleted invitation) are stored as they are: the schema
// has no foreign keys for them (migrations/0002_library.sql says why).
//
// Read streams one statement over the kind's table, in the table's order,
// and hands out batches as they fill; the statement holds one read
// connection until the read ends.
type Records struct {
	db *DB
}

// NewRecords returns the record store of db. It panics on nil, a wiring
// bug.
func NewRecords(db *DB) *Records {
	if db == nil {
		panic("sqliterepo: NewRecords: nil database")
	}
	return &Records{db: db}
}

// Records returns the record store of this database, for copying it into
// another store or another store into it.
func (d *DB) Records() ports.RecordStore { return NewRecords(d) }

// recordKind is how one kind of record is counted, read and written.
type recordKind struct {
	count *stmt // one row: how many records the store holds
	read  func(ctx context.Context, batchSize int, fn func([]any) error) error
	write func(ctx context.Context, records []any) error
}

// kind returns the handling of k. Errors: Invalid for an unknown kind.
func (r *Records) kind(k ports.RecordKind) (recordKind, error) {
	if handle, ok := recordKinds()[k]; ok {
		return handle(r.db, k), nil
	}
	return recordKind{}, errs.E(errs.Invalid, errs.CodeUnknownRecordKind, "There is no record kind %q.", k)
}

// Count implements ports.RecordStore: the counter of accounts and of
// books, and a count of the whole table for the other kinds.
func (r *Records) Count(ctx context.Context, kind ports.RecordKind) (int64, error) {
	k, err := r.kind(kind)
	if err != nil {
		return 0, err
	}
	var n int64
	if err := r.db.queryRow(ctx, r.db.read, k.count).Scan(&n); err != nil {
		return 0, mapErr(err, "count the "+string(kind)+" records", nil, nil)
	}
	return n, nil
}

// Read implements ports.RecordStore with one statement over the kind's
// table. Errors: Invalid for a batchSize below 1 or an unknown kind; fn's
// error as fn returned it.
func (r *Records) Read(ctx context.Context, kind ports.RecordKind, batchSize int, fn func(records []any) error) error {
	k, err := r.kind(kind)
	if err != nil {
		return err
	}
	if err := ports.CheckBatchSize(batchSize); err != nil {
		return err
	}
	return k.read(ctx, batchSize, fn)
}

// Write implements ports.RecordStore in one write transaction. Every
// record is checked to be of the kind's type before anything is written,
// so a wrong record writes nothing; a refused record rolls the whole batch
// back. Errors: Conflict "record_exists" for a key already taken (in the
// store or earlier in the batch); Invalid "invalid_record" for a record of
// another type, or one the schema's checks refuse.
func (r *Records) Write(ctx context.Context, kind ports.RecordKind, records []any) error {
	k, err := r.kind(kind)
	if err != nil {
		return err
	}
	return k.write(ctx, records)
}

// recordsKind is the handling of a kind of records of type T: counted by
// count, read by read (one row per record, converted by scan), and
// written one record at a time by write, which returns the driver's error
// for the kind's own row.
func recordsKind[T any](d *DB, kind ports.RecordKind, count, read *stmt, scan func(scanner) (T, error),
	write func(ctx context.Context, tx *txn, rec T) error) recordKind {
	return recordKind{
		count: count,
		read: func(ctx context.Context, batchSize int, fn func([]any) error) error {
			return readRecords(ctx, d, kind, read, batchSize, scan, fn)
		},
		write: func(ctx context.Context, records []any) error {
			recs, err := ports.RecordsAs[T](kind, records)
			if err != nil || len(recs) == 0 {
				return err
			}
			op := "write the " + string(kind) + " records"
			return d.inTx(ctx, op, func(tx *txn) error {
				for i, rec := range recs {
					if err := write(ctx, tx, rec); err != nil {
						return recordErr(kind, i, op, err)
					}
				}
				return nil
			})
		},
	}
}

// readRecords runs s on the read pool and calls fn with its records,
// batchSize at a time (the last batch may be shorter). An error from fn
// stops the read and is returned as it is.
func readRecords[T any](ctx context.Context, d *DB, kind ports.RecordKind, s *stmt, batchSize int,
	scan func(scanner) (T, error), fn func([]any) error) error {
	op := "read the " + string(kind) + " records"
	rows, err := d.query(ctx, d.read, s)
	if err != nil {
		return mapErr(err, op, nil, nil)
	}
	defer rows.Close()
	var batch []any
	for rows.Next() {
		rec, err := scan(rows)
		if err != nil {
			return mapErr(err, op, nil, nil)
		}
		batch = append(batch, rec)
		if len(batch) == batchSize {
			if err := fn(batch); err != nil {
				return err
			}
			batch = nil // fn may keep what it was given
		}
	}
	if err := rows.Err(); err != nil {
		return mapErr(err, op, nil, nil)
	}
	if len(batch) > 0 {
		return fn(batch)
	}
	return nil
}

// recordErr maps the error of writing record i of kind: a taken key is a
// Conflict and a value the schema's checks refuse is Invalid, each keeping
// the driver's error, which names the constraint, for the logs.
func recordErr(kind ports.RecordKind, i int, op string, err error) error {
	switch {
	case isUniqueViolation(err):
		e := errs.E(errs.Conflict, errs.CodeRecordExists, "A record of kind %s with the same key is already stored.", kind)
		e.Err = err
		return e
	case isValueRefused(err):
		e := errs.E(errs.Invalid, errs.CodeInvalidRecord, "Record %d of kind %s holds a value this store refuses.", i, kind)
		e.Err = err
		return e
	}
	return mapErr(err, op, nil, nil)
}

// isValueRefused reports whether err is a CHECK or NOT NULL constraint
// failure, or a value of the wrong type for a STRICT column.
func isValueRefused(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() {
	case sqlite3.SQLITE_CONSTRAINT_CHECK, sqlite3.SQLITE_CONSTRAINT_NOTNULL, sqlite3.SQLITE_CONSTRAINT_DATATYPE:
		return true
	}
	return false
}

func scanKeyRecord(s scanner) (ports.SigningKeyRecord, error) {
	var rec ports.SigningKeyRecord
	k, err := scanSigningKey(withColumn{s, &rec.Active})
	rec.Key = k
	return rec, err
}

func scanRefreshToken(s scanner) (auth.RefreshToken, error) {
	var (
		t               auth.RefreshToken
		issued, expires int64
	)
	if err := s.Scan(&t.Hash, &t.FamilyID, &t.AccountID, &issued, &expires); err != nil {
		return auth.RefreshToken{}, err
	}
	t.IssuedAt, t.ExpiresAt = fromMillis(issued), fromMillis(expires)
	return t, nil
}

func scanStamp(s scanner) (ports.Stamp, error) {
	var (
		st ports.Stamp
		at int64
	)
	if err := s.Scan(&st.ID, &at); err != nil {
		return ports.Stamp{}, err
	}
	st.At = fromMillis(at)
	return st, nil
}

func scanExternalIdentity(s scanner) (user.ExternalIdentity, error) {
	var (
		l       user.ExternalIdentity
		created int64
	)
	if err := s.Scan(&l.Issuer, &l.Subject, &l.AccountID, &created); err != nil {
		return user.ExternalIdentity{}, err
	}
	l.CreatedAt = fromMillis(created)
	return l, nil
}

func scanStudentNumber(s scanner) (ports.StudentNumber, error) {
	var n ports.StudentNumber
	err := s.Scan(&n.SchoolID, &n.Number, &n.AccountID)
	return n, err
}

// scanBookRecord reads a row of stmtRecBooksRead: a book and its texts.
func scanBookRecord(s scanner) (ports.BookRecord, error) {
	var texts string
	b, err := scanBook(withColumn{s, &texts})
	if err != nil {
		return ports.BookRecord{}, err
	}
	var rows []textJSON
	if err := json.Unmarshal([]byte(texts), &rows); err != nil {
		return ports.BookRecord{}, fmt.Errorf("book %s: chapter texts: %w", b.ID, err)
	}
	rec := ports.BookRecord{Book: b}
	for _, t := range rows {
		rec.Texts = append(rec.Texts, catalog.ChapterText(t))
	}
	return rec, nil
}

// withColumn is a row with one more column after those its reader scans.
type withColumn struct {
	s    scanner
	last any
}

func (w withColumn) Scan(dest ...any) error { return w.s.Scan(append(dest, w.last)...) }
