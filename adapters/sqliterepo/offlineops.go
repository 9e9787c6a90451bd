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
	// The batch claim: every scan of the JSON array whose key is free is
	// stored, in the array's order (so of a key twice the first), and its
	// key returned.
	stmtOfflineOpsClaim = newStmt("offline_ops.claim_many", `
INSERT INTO offline_ops (`+offlineOpColumns+`)
SELECT value->>'school_id', value->>'id', value->>'kind', value->>'code', value->>'card', value->>'scanned_at',
	value->>'uploaded_at', value->>'uploaded_by', value->>'status', value->>'reason', value->>'message',
	value->>'loan_id', value->>'settled_at', value->>'settled_by'
FROM json_each(:offline_ops) WHERE true
ON CONFLICT (school_id, id) DO NOTHING
RETURNING school_id, id`)
	// The batch outcome: each scan of the JSON array that is stored is
	// looked up by its key and updated; of a key twice the last entry of
	// the array is recorded (max() makes the row's other bare columns the
	// ones of its largest index), as one outcome after the other would.
	stmtOfflineOpsOutcomes = newStmt("offline_ops.outcomes", `
UPDATE offline_ops SET card = o.value->>'card', status = o.value->>'status', reason = o.value->>'reason',
	message = o.value->>'message', loan_id = o.value->>'loan_id', settled_at = o.value->>'settled_at',
	settled_by = o.value->>'settled_by'
FROM (SELECT max(key), value, value->>'school_id' AS school_id, value->>'id' AS id FROM json_each(:offline_ops)
	GROUP BY value->>'school_id', value->>'id') AS o
WHERE offline_ops.school_id = o.school_id AND offline_ops.id = o.id`)
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

// offlineOpJSON is one scan of a batch, as the batch statements read it.
type offlineOpJSON struct {
	SchoolID   string `json:"school_id"`
	ID         string `json:"id"`
	Kind       string `json:"kind"`
	Code       string `json:"code"`
	Card       string `json:"card"`
	ScannedAt  int64  `json:"scanned_at"`
	UploadedAt int64  `json:"uploaded_at"`
	UploadedBy string `json:"uploaded_by"`
	Status     string `json:"status"`
	Reason     string `json:"reason"`
	Message    string `json:"message"`
	LoanID     string `json:"loan_id"`
	SettledAt  any    `json:"settled_at"` // null for the zero time, as nullMillis
	SettledBy  string `json:"settled_by"`
}

// offlineOpsJSON is the batch's JSON array.
func offlineOpsJSON(ops []library.OfflineOp) string {
	rows := make([]offlineOpJSON, len(ops))
	for i, op := range ops {
		rows[i] = offlineOpJSON{SchoolID: op.SchoolID, ID: op.ID, Kind: op.Kind, Code: op.Code, Card: op.Card,
			ScannedAt: millis(op.ScannedAt), UploadedAt: millis(op.UploadedAt), UploadedBy: op.UploadedBy, Status: op.Status,
			Reason: op.Reason, Message: op.Message, LoanID: op.LoanID, SettledAt: nullMillis(op.SettledAt), SettledBy: op.SettledBy}
	}
	return jsonArray(rows)
}

// offlineOpKeyOf names a school's scan in one string: the school id is a
// UUID, so NUL cannot occur in it, and the id follows it whole.
func offlineOpKeyOf(schoolID, id string) string { return schoolID + "\x00" + id }

// scanOfflineOpKey reads the key a batch claim returns.
func scanOfflineOpKey(s scanner) (string, error) {
	var schoolID, id string
	err := s.Scan(&schoolID, &id)
	return offlineOpKeyOf(schoolID, id), err
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

// ClaimOfflineOps implements ports.OfflineOpRepository with one INSERT of
// the batch that skips the scans claimed already: the (school_id, id) key
// lets one claim of a scan win, and one statement is one transaction on
// the writer, committed once for the batch.
func (r *OfflineOps) ClaimOfflineOps(ctx context.Context, ops []library.OfflineOp) ([]int, error) {
	if len(ops) == 0 {
		return nil, nil
	}
	stored, err := queryAll(ctx, r.db, r.db.write, "store the offline scans", stmtOfflineOpsClaim, scanOfflineOpKey,
		sql.Named("offline_ops", offlineOpsJSON(ops)))
	if err != nil {
		return nil, err
	}
	return storedIndexes(ops, stored, func(op library.OfflineOp) string { return offlineOpKeyOf(op.SchoolID, op.ID) }), nil
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

// RecordOfflineOutcomes implements ports.OfflineOpRepository with one
// UPDATE of the batch, by key, of the outcome's columns only: one
// transaction on the writer. A scan not stored matches no row.
func (r *OfflineOps) RecordOfflineOutcomes(ctx context.Context, ops []library.OfflineOp) error {
	if len(ops) == 0 {
		return nil
	}
	return r.db.execWrite(ctx, "record the offline scans' outcomes", nil, stmtOfflineOpsOutcomes,
		sql.Named("offline_ops", offlineOpsJSON(ops)))
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
