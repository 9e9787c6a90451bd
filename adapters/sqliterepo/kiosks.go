package sqliterepo

import (
	"context"
	"database/sql"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ ports.KioskRepository = (*Kiosks)(nil)

// Kiosks is the SQLite ports.KioskRepository: table kiosks keyed by id,
// with the unique login index a kiosk signs in by and the (school_id,
// name, id) index of a school's list. Every method is one statement.
type Kiosks struct {
	db *DB
}

// NewKiosks returns the kiosks of db. It panics on nil, a wiring bug.
func NewKiosks(db *DB) *Kiosks {
	if db == nil {
		panic("sqliterepo: NewKiosks: nil database")
	}
	return &Kiosks{db: db}
}

const kioskColumns = `id, school_id, name, login, secret_hash, created_at, created_by`

var (
	stmtKioskInsert = newStmt("kiosks.insert", `
INSERT INTO kiosks (`+kioskColumns+`)
VALUES (:id, :school_id, :name, :login, :secret_hash, :created_at, :created_by)`)
	stmtKioskByLogin = newStmt("kiosks.by_login", `
SELECT `+kioskColumns+` FROM kiosks WHERE login = :login`)
	stmtKiosksOfSchool = newStmt("kiosks.of_school", `
SELECT `+kioskColumns+` FROM kiosks INDEXED BY kiosks_by_school
WHERE school_id = :school_id ORDER BY name, id LIMIT :limit`)
	// The school in the condition makes another school's kiosk a row
	// not found, as if there were none.
	stmtKioskDelete = newStmt("kiosks.delete", `
DELETE FROM kiosks WHERE id = :id AND school_id = :school_id`)

	stmtRecKiosksCount = newWholeStmt("records.kiosks.count", `SELECT count(*) FROM kiosks`)
	stmtRecKiosksRead  = newWholeStmt("records.kiosks.read", `SELECT `+kioskColumns+` FROM kiosks`)
)

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) { r.Kiosks = NewKiosks(d) },
	records: map[ports.RecordKind]records{
		ports.KindKiosks: func(d *DB, k ports.RecordKind) recordKind {
			return holdRecordKind(d, k, stmtRecKiosksCount, stmtRecKiosksRead, stmtKioskInsert, scanKiosk, kioskArgs)
		},
	},
})

func kioskArgs(k library.Kiosk) []any {
	return []any{sql.Named("id", k.ID), sql.Named("school_id", k.SchoolID), sql.Named("name", k.Name), sql.Named("login", k.Login),
		sql.Named("secret_hash", k.SecretHash), sql.Named("created_at", millis(k.CreatedAt)), sql.Named("created_by", k.CreatedBy)}
}

func scanKiosk(s scanner) (library.Kiosk, error) {
	var (
		k         library.Kiosk
		createdAt int64
	)
	err := s.Scan(&k.ID, &k.SchoolID, &k.Name, &k.Login, &k.SecretHash, &createdAt, &k.CreatedBy)
	k.CreatedAt = fromMillis(createdAt)
	return k, err
}

// CreateKiosk implements ports.KioskRepository with one insert: the
// unique login index refuses a second kiosk with a login, however many
// race for it.
func (r *Kiosks) CreateKiosk(ctx context.Context, k library.Kiosk) error {
	return r.db.execWrite(ctx, "store the kiosk", library.ErrKioskLoginTaken, stmtKioskInsert, kioskArgs(k)...)
}

// KioskByLogin implements ports.KioskRepository on the login index.
func (r *Kiosks) KioskByLogin(ctx context.Context, login string) (library.Kiosk, error) {
	return readRow(ctx, r.db, "read the kiosk", library.ErrKioskNotFound, stmtKioskByLogin, scanKiosk, sql.Named("login", login))
}

// KiosksOfSchool implements ports.KioskRepository: one range of the
// (school_id, name, id) index, in its order. A limit below 1 is no
// statement.
func (r *Kiosks) KiosksOfSchool(ctx context.Context, schoolID string, limit int) ([]library.Kiosk, error) {
	if limit < 1 {
		return []library.Kiosk{}, nil
	}
	return queryAll(ctx, r.db, r.db.read, "list the school's kiosks", stmtKiosksOfSchool, scanKiosk,
		sql.Named("school_id", schoolID), sql.Named("limit", limit))
}

// DeleteKiosk implements ports.KioskRepository with one delete by id and
// school.
func (r *Kiosks) DeleteKiosk(ctx context.Context, schoolID, id string) error {
	res, err := r.db.exec(ctx, r.db.write, stmtKioskDelete, sql.Named("id", id), sql.Named("school_id", schoolID))
	if err != nil {
		return mapErr(err, "remove the kiosk", nil, nil)
	}
	return notFoundIfNone(res, "remove the kiosk", library.ErrKioskNotFound)
}
