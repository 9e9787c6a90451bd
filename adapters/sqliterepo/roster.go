package sqliterepo

import (
	"context"
	"database/sql"
	"strings"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/roster"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// The record store's statements for these kinds: reading and counting
// the whole table, and inserting a record exactly as given where the
// repository's own writes upsert or skip what exists.
var (
	stmtRecRolloversCount = newWholeStmt("records.roster_rollovers.count", `SELECT count(*) FROM roster_rollovers`)
	stmtRecRolloversRead  = newWholeStmt("records.roster_rollovers.read", `
SELECT school_id, school_year, leaving_grade, promoted, left_roll, at FROM roster_rollovers`)
)

var _ = register(entity{records: map[ports.RecordKind]records{
	ports.KindRollovers: func(d *DB, k ports.RecordKind) recordKind {
		return recordsKind(d, k, stmtRecRolloversCount, stmtRecRolloversRead, scanRollover, func(ctx context.Context, tx *txn, ro roster.Rollover) error {
			_, err := d.exec(ctx, tx, stmtRolloverInsert, rolloverArgs(ro)...)
			return err
		})
	},
}})

var (
	stmtRolloverInsert = newStmt("roster_rollovers.insert", `
INSERT INTO roster_rollovers (school_id, school_year, leaving_grade, promoted, left_roll, at)
VALUES (:school_id, :school_year, :leaving_grade, :promoted, :left_roll, :at)`)
	stmtRolloverGet = newStmt("roster_rollovers.get", `
SELECT school_id, school_year, leaving_grade, promoted, left_roll, at FROM roster_rollovers
WHERE school_id = :school_id AND school_year = :school_year`)
)

// accountConflict tells the unique keys of an account row apart: the
// email, or the school's external id (accounts_by_external_id).
func accountConflict(err error) func() error {
	if err != nil && strings.Contains(err.Error(), "external_id") {
		return library.ErrExternalIDExists
	}
	return user.ErrEmailTaken
}

// ApplyRoster implements ports.StudentRepository in one write
// transaction: the rollover's claim first, then the new students as
// ImportStudents stores them, then each changed student's row, search row
// and new number. Any error rolls all of it back.
func (r *Students) ApplyRoster(ctx context.Context, c roster.RosterChange) error {
	const op = "apply the roster"
	return r.db.inTx(ctx, op, func(tx *txn) error {
		if ro := c.Rollover; ro != nil {
			if _, err := r.db.exec(ctx, tx, stmtRolloverInsert, rolloverArgs(*ro)...); err != nil {
				return mapErr(err, op, nil, library.ErrRolloverDone)
			}
		}
		for _, a := range c.Add {
			if err := r.db.insertNumberOf(ctx, tx, a, op); err != nil {
				return err
			}
			if err := r.db.insertAccount(ctx, tx, a); err != nil {
				return mapErr(err, op, nil, accountConflict(err))
			}
		}
		for i, a := range c.Changed {
			if a.StudentNumber != "" && c.Before[i].StudentNumber == "" {
				n := ports.StudentNumber{SchoolID: a.SchoolID, Number: a.StudentNumber, AccountID: a.ID}
				if _, err := r.db.exec(ctx, tx, stmtNumberInsert, numberArgs(n)...); err != nil {
					return mapErr(err, op, nil, library.ErrStudentNumberExists)
				}
			}
			var pk int64
			if err := r.db.queryRow(ctx, tx, stmtAccountUpdate, accountArgs(a)...).Scan(&pk); err != nil {
				return mapErr(err, op, func() error { return library.ErrStudentNotFound() }, accountConflict(err))
			}
			if _, err := r.db.exec(ctx, tx, stmtStudentSearchDelete, sql.Named("pk", pk)); err != nil {
				return mapErr(err, "index the student for search", nil, nil)
			}
			if err := r.db.indexStudent(ctx, tx, pk, a); err != nil {
				return err
			}
		}
		return nil
	})
}

// Rollover implements ports.StudentRepository: one lookup by the primary
// key.
func (r *Students) Rollover(ctx context.Context, schoolID, schoolYear string) (roster.Rollover, error) {
	return readRow(ctx, r.db, "read the rollover", roster.ErrRolloverNotFound, stmtRolloverGet, scanRollover, sql.Named("school_id", schoolID), sql.Named("school_year", schoolYear))
}

func rolloverArgs(ro roster.Rollover) []any {
	return []any{
		sql.Named("school_id", ro.SchoolID),
		sql.Named("school_year", ro.SchoolYear),
		sql.Named("leaving_grade", ro.LeavingGrade),
		sql.Named("promoted", ro.Promoted),
		sql.Named("left_roll", ro.Left),
		sql.Named("at", millis(ro.At)),
	}
}

func scanRollover(s scanner) (roster.Rollover, error) {
	var (
		ro roster.Rollover
		at int64
	)
	if err := s.Scan(&ro.SchoolID, &ro.SchoolYear, &ro.LeavingGrade, &ro.Promoted, &ro.Left, &at); err != nil {
		return roster.Rollover{}, err
	}
	ro.At = fromMillis(at)
	return ro, nil
}
