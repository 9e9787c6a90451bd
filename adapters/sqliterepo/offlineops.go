package sqliterepo

import (
	"context"
	"database/sql"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ ports.OfflineOpRepository = (*OfflineOps)(nil)

// OfflineOps is the SQLite ports.OfflineOpRepository: table offline_ops
// keyed by (school_id, id), the key whose insert is the claim, with the
// (school_id, status, scanned_at, id) index of a school's scans in a
// status. Every method is one statement, the page two (its count first).
type OfflineOps struct {
	db *DB
}

// NewOfflineOps returns the offline scans of db. It panics on nil, a
// wiring bug.
func NewOfflineOps(db *DB) *OfflineOps {
	if db == nil {
		panic("sqliterepo: NewOfflineOps: nil database")
	}
	return &OfflineOps{db: db}
}

const offlineOpColumns = `school_id, id, kind, code, card, scanned_at, uploaded_at, uploaded_by, status, reason, message,
loan_id, settled_at, settled_by`

var (
	stmtOfflineOpInsert = newStmt("offline_ops.insert", `
INSERT INTO offline_ops (`+offlineOpColumns+`)
VALUES (:school_id, :id, :kind, :code, :card, :scanned_at, :uploaded_at, :uploaded_by, :status, :reason, :message,
:loan_id, :settled_at, :settled_by)`)
	// The school in the key makes another school's scan a row not found,
	// as if there were none.
	stmtOfflineOpGet = newStmt("offline_ops.get", `
SELECT `+offlineOpColumns+` FROM offline_ops WHERE school_id = :school_id AND id = :id`)
	stmtOfflineOpOutcome = newStmt("offline_ops.outcome", `
UPDATE offline_ops SET card = :card, status = :status, reason = :reason, message = :message, loan_id = :loan_id,
settled_at = :settled_at, settled_by = :settled_by
WHERE school_id = :school_id AND id = :id`)
	stmtOfflineOpsWithStatusCount = newStmt("offline_ops.with_status_count", `
SELECT count(*) FROM offline_ops INDEXED BY offline_ops_by_status WHERE school_id = :school_id AND status = :status`)
	stmtOfflineOpsWithStatus = newStmt("offline_ops.with_status", `
SELECT `+offlineOpColumns+` FROM offline_ops INDEXED BY offline_ops_by_status
WHERE school_id = :school_id AND status = :status ORDER BY scanned_at, id LIMIT :limit OFFSET :offset`)

	stmtRecOfflineOpsCount = newWholeStmt("records.offline_ops.count", `SELECT count(*) FROM offline_ops`)
	stmtRecOfflineOpsRead  = newWholeStmt("records.offline_ops.read", `SELECT `+offlineOpColumns+` FROM offline_ops`)
)

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) { r.OfflineOps = NewOfflineOps(d) },
	records: map[ports.RecordKind]records{
		ports.KindOfflineOps: func(d *DB, k ports.RecordKind) recordKind {
			return holdRecordKind(d, k, stmtRecOfflineOpsCount, stmtRecOfflineOpsRead, stmtOfflineOpInsert, scanOfflineOp, offlineOpArgs)
		},
	},
})

// offlineOpKey is the arguments naming the school's scan.
func offlineOpKey(schoolID, id string) []any {
	return []any{sql.Named("school_id", schoolID), sql.Named("id", id)}
}

// offlineOpOutcome is the arguments of what RecordOfflineOutcome replaces.
func offlineOpOutcome(op library.OfflineOp) []any {
	return []any{sql.Named("card", op.Card), sql.Named("status", op.Status), sql.Named("reason", op.Reason),
		sql.Named("message", op.Message), sql.Named("loan_id", op.LoanID), sql.Named("settled_at", nullMillis(op.SettledAt)),
		sql.Named("settled_by", op.SettledBy)}
}

func offlineOpArgs(op library.OfflineOp) []any {
	return append(append(offlineOpKey(op.SchoolID, op.ID), sql.Named("kind", op.Kind), sql.Named("code", op.Code),
		sql.Named("scanned_at", millis(op.ScannedAt)), sql.Named("uploaded_at", millis(op.UploadedAt)),
		sql.Named("uploaded_by", op.UploadedBy)), offlineOpOutcome(op)...)
}

func scanOfflineOp(s scanner) (library.OfflineOp, error) {
	var (
		op                    library.OfflineOp
		scannedAt, uploadedAt int64
		settledAt             sql.NullInt64
	)
	err := s.Scan(&op.SchoolID, &op.ID, &op.Kind, &op.Code, &op.Card, &scannedAt, &uploadedAt, &op.UploadedBy, &op.Status,
		&op.Reason, &op.Message, &op.LoanID, &settledAt, &op.SettledBy)
	op.ScannedAt, op.UploadedAt, op.SettledAt = fromMillis(scannedAt), fromMillis(uploadedAt), fromNullMillis(settledAt)
	return op, err
}

// ClaimOfflineOp implements ports.OfflineOpRepository with one insert: the
// (school_id, id) key refuses a second claim of the scan, however many
// race for it.
func (r *OfflineOps) ClaimOfflineOp(ctx context.Context, op library.OfflineOp) error {
	return r.db.execWrite(ctx, "store the offline scan", library.ErrOfflineOpClaimed, stmtOfflineOpInsert, offlineOpArgs(op)...)
}

// OfflineOp implements ports.OfflineOpRepository on the key.
func (r *OfflineOps) OfflineOp(ctx context.Context, schoolID, id string) (library.OfflineOp, error) {
	return readRow(ctx, r.db, "read the offline scan", library.ErrOfflineOpNotFound, stmtOfflineOpGet, scanOfflineOp,
		offlineOpKey(schoolID, id)...)
}

// RecordOfflineOutcome implements ports.OfflineOpRepository with one
// update by key, of the outcome's columns only.
func (r *OfflineOps) RecordOfflineOutcome(ctx context.Context, op library.OfflineOp) error {
	res, err := r.db.exec(ctx, r.db.write, stmtOfflineOpOutcome, append(offlineOpKey(op.SchoolID, op.ID), offlineOpOutcome(op)...)...)
	if err != nil {
		return mapErr(err, "record the offline scan's outcome", nil, nil)
	}
	return notFoundIfNone(res, "record the offline scan's outcome", library.ErrOfflineOpNotFound)
}

// OfflineOpsWithStatus implements ports.OfflineOpRepository: a count and a
// page of one range of offline_ops_by_status, in its order. A limit below
// 1 is the count alone; an offset below 0 is 0.
func (r *OfflineOps) OfflineOpsWithStatus(ctx context.Context, schoolID, status string, offset, limit int) ([]library.OfflineOp, int, error) {
	const op = "list the school's offline scans"
	args := []any{sql.Named("school_id", schoolID), sql.Named("status", status)}
	if limit < 1 {
		var total int
		if err := r.db.queryRow(ctx, r.db.read, stmtOfflineOpsWithStatusCount, args...).Scan(&total); err != nil {
			return nil, 0, mapErr(err, op, nil, nil)
		}
		return []library.OfflineOp{}, total, nil
	}
	page, total, err := countedPage(ctx, r.db, op, stmtOfflineOpsWithStatusCount, stmtOfflineOpsWithStatus, scanOfflineOp,
		max(offset, 0), limit, args...)
	if err != nil {
		return nil, 0, err
	}
	if page == nil { // the page lies past the end
		page = []library.OfflineOp{}
	}
	return page, total, nil
}
