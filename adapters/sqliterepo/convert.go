package sqliterepo

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"
)

// Times are stored as INTEGER unix milliseconds: UTC by construction, in
// the order of the instants, and at the precision the service keeps (what
// MongoDB keeps too). The zero time.Time is stored as its own value and
// comes back as the zero time.

// millis is t's column value.
func millis(t time.Time) int64 { return t.UnixMilli() }

// fromMillis is the time of a column value, in UTC.
func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// nullMillis is t's value for a nullable column: NULL for the zero time.
func nullMillis(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMilli()
}

// fromNullMillis is the time of a nullable column: the zero time for NULL.
func fromNullMillis(ms sql.NullInt64) time.Time {
	if !ms.Valid {
		return time.Time{}
	}
	return fromMillis(ms.Int64)
}

// nullString is s's value for a nullable text column: NULL for "", which
// the domain uses for "not given".
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// jsonArray encodes a list as a JSON array, the one argument of a static
// statement that reads it with json_each, whatever the list's length.
// encoding/json writes invalid UTF-8 as U+FFFD; every string the service
// stores arrives as valid UTF-8 (decoded JSON, checked imports).
func jsonArray[T any](list []T) string {
	if list == nil {
		return "[]"
	}
	b, err := json.Marshal(list)
	if err != nil {
		panic("sqliterepo: jsonArray: " + err.Error()) // strings and structs of them always encode
	}
	return string(b)
}

// scanner is a row to read: *sql.Rows or a row.
type scanner interface {
	Scan(dest ...any) error
}

// scanAll reads every row with scan and closes rows. The result is never
// nil, so an empty list encodes as [] all the way up.
func scanAll[T any](rows *sql.Rows, scan func(scanner) (T, error)) ([]T, error) {
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// execWrite runs s on the writer; a UNIQUE or PRIMARY KEY clash is
// conflict (nil where no key can clash, so a clash is Internal), any other
// failure op's.
func (d *DB) execWrite(ctx context.Context, op string, conflict func() error, s *stmt, args ...any) error {
	_, err := d.exec(ctx, d.write, s, args...)
	return mapErr(err, op, nil, conflict)
}

// countedPage is one page of a list and its total: count first, then,
// unless the page lies past the end, list with :offset and :limit added to
// args. Both run on the read pool.
func countedPage[T any](ctx context.Context, d *DB, op string, count, list *stmt, scan func(scanner) (T, error), offset, limit int, args ...any) ([]T, int, error) {
	var total int
	if err := d.queryRow(ctx, d.read, count, args...).Scan(&total); err != nil {
		return nil, 0, mapErr(err, op, nil, nil)
	}
	if total <= offset {
		return nil, total, nil
	}
	page, err := queryAll(ctx, d, d.read, op, list, scan, append(args, sql.Named("offset", offset), sql.Named("limit", limit))...)
	return page, total, err
}

// queryAll runs s on t and reads every row with scan; a failure of either
// is op's.
func queryAll[T any](ctx context.Context, d *DB, t target, op string, s *stmt, scan func(scanner) (T, error), args ...any) ([]T, error) {
	rows, err := d.query(ctx, t, s, args...)
	if err != nil {
		return nil, mapErr(err, op, nil, nil)
	}
	out, err := scanAll(rows, scan)
	if err != nil {
		return nil, mapErr(err, op, nil, nil)
	}
	return out, nil
}

// readRow reads the one row of s with scan on the read connection; no
// row is notFound, and any other failure op's.
func readRow[T any](ctx context.Context, d *DB, op string, notFound func() error, s *stmt, scan func(scanner) (T, error), args ...any) (T, error) {
	v, err := scan(d.queryRow(ctx, d.read, s, args...))
	if err != nil {
		var zero T
		return zero, mapErr(err, op, notFound, nil)
	}
	return v, nil
}

// scanString reads a row of one text column.
func scanString(s scanner) (string, error) {
	var v string
	err := s.Scan(&v)
	return v, err
}

// notFoundIfNone returns notFound() when a write statement changed no row.
func notFoundIfNone(res sql.Result, op string, notFound func() error) error {
	n, err := res.RowsAffected()
	if err != nil {
		return mapErr(err, op, nil, nil)
	}
	if n == 0 {
		return notFound()
	}
	return nil
}
