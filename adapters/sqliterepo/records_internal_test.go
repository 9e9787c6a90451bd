package sqliterepo

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/readinglibrary/service/ports"
	"github.com/readinglibrary/service/ports/porttest"
)

// TestTransfer runs the RecordStore suite with SQLite on both sides, then
// compares the rows of the store seeded through the repositories (A) with
// those of the store written by Records (B): every table, the counters and
// the search indexes' terms per record. A record written by Records must
// be stored exactly as its repository stores it, derived rows included.
func TestTransfer(t *testing.T) {
	var dbs []*DB
	porttest.Transfer(t, func(t *testing.T) (ports.Repositories, ports.RecordStore) {
		d := openTestDB(t)
		dbs = append(dbs, d)
		return d.Repositories(), d.Records()
	})
	if t.Failed() || len(dbs) < 2 {
		return
	}
	a, b := dumpRows(t, dbs[0]), dumpRows(t, dbs[1])
	for table, rowsA := range a {
		if rowsB := b[table]; !slices.Equal(rowsA, rowsB) {
			t.Errorf("table %s differs:\n A %q\n B %q", table, rowsA, rowsB)
		}
	}
	if len(a) != len(b) {
		t.Errorf("A has %d tables, B %d", len(a), len(b))
	}
}

// ftsOwners names, for each search index, the table whose pk is its rowid.
var ftsOwners = map[string]string{"books_fts": "books", "library_books_fts": "library_books", "students_fts": "accounts"}

// dumpRows returns every row of every table of d as text, sorted, by
// table: integer keys (pk, book_pk) replaced by the id of their record, so
// stores that numbered their records differently still compare equal, and
// each search index as the terms of each record.
func dumpRows(t *testing.T, d *DB) map[string][]string {
	t.Helper()
	ctx := t.Context()
	db := d.write.db
	names := queryStrings(t, db, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
		AND name NOT LIKE '%_fts_%' ORDER BY name`)
	out := map[string][]string{}
	for _, table := range names {
		var q string
		switch owner, ok := ftsOwners[table]; {
		case ok:
			vocab := "temp.vocab_" + table
			if _, err := db.ExecContext(ctx, fmt.Sprintf(`CREATE VIRTUAL TABLE IF NOT EXISTS %s USING fts5vocab(main, %s, 'instance')`, vocab, table)); err != nil {
				t.Fatal(err)
			}
			q = fmt.Sprintf(`SELECT o.id || ' ' || v.col || ' ' || v.offset || ' ' || v.term FROM %s AS v JOIN %s AS o ON o.pk = v.doc`, vocab, owner)
		case table == "book_chapters":
			q = `SELECT concat_ws(' | ', b.id, c.position, c.id, c.title, c.page_start, c.page_end, c.word_count)
				FROM book_chapters AS c JOIN books AS b ON b.pk = c.book_pk`
		default:
			cols := queryStrings(t, db, `SELECT name FROM pragma_table_info(?) WHERE name <> 'pk' ORDER BY cid`, table)
			q = fmt.Sprintf(`SELECT concat_ws(' | ', quote(%s)) FROM %s`, strings.Join(cols, "), quote("), table)
		}
		rows := queryStrings(t, db, q)
		slices.Sort(rows)
		out[table] = rows
	}
	for _, table := range []string{"accounts", "books", "library_books", "loans", "copy_claims", "invites", "counters"} {
		if len(out[table]) == 0 {
			t.Fatalf("table %s: no rows to compare", table)
		}
	}
	return out
}

func queryStrings(t *testing.T, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
