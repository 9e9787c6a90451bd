package sqliterepo

import (
	"context"
	"database/sql"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ ports.CoverRepository = (*Covers)(nil)

// Covers is the SQLite ports.CoverRepository: table covers keyed by book.
// A book's id is unique across schools, and every statement names the
// school too, so one school never reads another's.
type Covers struct {
	db *DB
}

// NewCovers returns the cover store of db. It panics on nil, a wiring bug.
func NewCovers(db *DB) *Covers {
	if db == nil {
		panic("sqliterepo: NewCovers: nil database")
	}
	return &Covers{db: db}
}

const coverColumns = `book_id, school_id, image, width, height, etag, source, missing, removed, updated_at`

var (
	stmtCoverInsert = newStmt("covers.insert", `
INSERT INTO covers (`+coverColumns+`)
VALUES (:book_id, :school_id, :image, :width, :height, :etag, :source, :missing, :removed, :updated_at)`)
	stmtCoverPut = newStmt("covers.put", `
INSERT INTO covers (`+coverColumns+`)
VALUES (:book_id, :school_id, :image, :width, :height, :etag, :source, :missing, :removed, :updated_at)
ON CONFLICT (book_id) DO UPDATE SET school_id = excluded.school_id, image = excluded.image, width = excluded.width,
	height = excluded.height, etag = excluded.etag, source = excluded.source, missing = excluded.missing,
	removed = excluded.removed, updated_at = excluded.updated_at`)
	stmtCoverGet = newStmt("covers.get", `
SELECT `+coverColumns+` FROM covers WHERE book_id = :book_id AND +school_id = :school_id`)
	stmtCoversKnown = newStmt("covers.known", `
SELECT book_id, missing = 0 AND removed = 0, removed, updated_at FROM covers
WHERE book_id IN (SELECT value FROM json_each(:book_ids)) AND +school_id = :school_id`)
	stmtCoverDelete = newStmt("covers.delete", `DELETE FROM covers WHERE book_id = :book_id AND +school_id = :school_id`)

	stmtRecCoversCount = newWholeStmt("records.covers.count", `SELECT count(*) FROM covers`)
	stmtRecCoversRead  = newWholeStmt("records.covers.read", `SELECT `+coverColumns+` FROM covers`)
)

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) { r.Covers = NewCovers(d) },
	records: map[ports.RecordKind]records{
		ports.KindCovers: func(d *DB, k ports.RecordKind) recordKind {
			return holdRecordKind(d, k, stmtRecCoversCount, stmtRecCoversRead, stmtCoverInsert, scanCover, coverArgs)
		},
	},
})

func coverArgs(c library.Cover) []any {
	img := c.Image.JPEG
	if img == nil {
		img = []byte{}
	}
	return []any{sql.Named("book_id", c.BookID), sql.Named("school_id", c.SchoolID), sql.Named("image", img),
		sql.Named("width", c.Image.Width), sql.Named("height", c.Image.Height), sql.Named("etag", c.ETag), sql.Named("source", c.Source),
		sql.Named("missing", c.Missing), sql.Named("removed", c.Removed), sql.Named("updated_at", millis(c.UpdatedAt))}
}

func scanCover(s scanner) (library.Cover, error) {
	var (
		c  library.Cover
		at int64
	)
	err := s.Scan(&c.BookID, &c.SchoolID, &c.Image.JPEG, &c.Image.Width, &c.Image.Height, &c.ETag, &c.Source, &c.Missing, &c.Removed, &at)
	if len(c.Image.JPEG) == 0 {
		c.Image.JPEG = nil
	}
	c.UpdatedAt = fromMillis(at)
	return c, err
}

// Put implements ports.CoverRepository with one upsert by book.
func (r *Covers) Put(ctx context.Context, c library.Cover) error {
	return r.db.execWrite(ctx, "store the cover", nil, stmtCoverPut, coverArgs(c)...)
}

// Get implements ports.CoverRepository by book.
func (r *Covers) Get(ctx context.Context, schoolID, bookID string) (library.Cover, error) {
	c, err := scanCover(r.db.queryRow(ctx, r.db.read, stmtCoverGet, sql.Named("book_id", bookID), sql.Named("school_id", schoolID)))
	return c, mapErr(err, "read the cover", library.ErrCoverNotFound, nil)
}

// Known implements ports.CoverRepository with one read of the books' keys.
func (r *Covers) Known(ctx context.Context, schoolID string, bookIDs []string) (map[string]library.CoverState, error) {
	out := map[string]library.CoverState{}
	if len(bookIDs) == 0 {
		return out, nil
	}
	rows, err := r.db.query(ctx, r.db.read, stmtCoversKnown, sql.Named("school_id", schoolID), sql.Named("book_ids", jsonArray(bookIDs)))
	if err != nil {
		return nil, mapErr(err, "look up the covers", nil, nil)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var st library.CoverState
		var at int64
		if err := rows.Scan(&id, &st.Present, &st.Removed, &at); err != nil {
			return nil, mapErr(err, "look up the covers", nil, nil)
		}
		st.NotedAt = fromMillis(at)
		out[id] = st
	}
	return out, mapErr(rows.Err(), "look up the covers", nil, nil)
}

// Delete implements ports.CoverRepository by book.
func (r *Covers) Delete(ctx context.Context, schoolID, bookID string) error {
	return r.db.execWrite(ctx, "delete the cover", nil, stmtCoverDelete, sql.Named("book_id", bookID), sql.Named("school_id", schoolID))
}
