package sqliterepo

import (
	"context"
	"database/sql"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

// The record store's statements for these kinds: reading and counting
// the whole table, and inserting a record exactly as given where the
// repository's own writes upsert or skip what exists.
var (
	stmtRecChargesCount     = newWholeStmt("records.charges.count", `SELECT count(*) FROM charges`)
	stmtRecChargesRead      = newWholeStmt("records.charges.read", `SELECT `+chargeColumns+` FROM charges`)
	stmtRecSettlementsCount = newWholeStmt("records.charge_settlements.count", `SELECT count(*) FROM charge_settlements`)
	stmtRecSettlementsRead  = newWholeStmt("records.charge_settlements.read", `SELECT `+settlementColumns+` FROM charge_settlements`)
)

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) { r.Charges = NewCharges(d) },
	records: map[ports.RecordKind]records{
		ports.KindCharges: func(d *DB, k ports.RecordKind) recordKind {
			return recordsKind(d, k, stmtRecChargesCount, stmtRecChargesRead, scanCharge, func(ctx context.Context, tx *txn, c library.Charge) error {
				_, err := d.exec(ctx, tx, stmtChargeInsert, chargeArgs(c)...)
				return err
			})
		},
		ports.KindSettlements: func(d *DB, k ports.RecordKind) recordKind {
			return recordsKind(d, k, stmtRecSettlementsCount, stmtRecSettlementsRead, scanSettlement, func(ctx context.Context, tx *txn, st library.Settlement) error {
				_, err := d.exec(ctx, tx, stmtSettlementInsert, settlementArgs(st)...)
				return err
			})
		},
	},
})

var _ ports.ChargeRepository = (*Charges)(nil)

// Charges is the SQLite ports.ChargeRepository: table charges, keyed by the
// charge id (derived from loan and kind, so one insert wins per loan and
// kind), and table charge_settlements, keyed by the charge id (one
// settlement wins per charge). Every method is one statement, Page two in
// one read transaction.
type Charges struct {
	db *DB
}

// NewCharges returns the charge store of db. It panics on nil, a wiring
// bug.
func NewCharges(db *DB) *Charges {
	if db == nil {
		panic("sqliterepo: NewCharges: nil database")
	}
	return &Charges{db: db}
}

const (
	chargeColumns = `id, school_id, student_id, loan_id, copy_id, book_id, book_title, kind, amount_cents, currency, note,
	created_at, status`
	settlementColumns = `charge_id, school_id, outcome, note, settled_by, settled_at`
)

var (
	stmtChargeInsert = newStmt("charges.insert", `
INSERT INTO charges (`+chargeColumns+`)
VALUES (:id, :school_id, :student_id, :loan_id, :copy_id, :book_id, :book_title, :kind, :amount_cents, :currency, :note,
	:created_at, :status)`)
	stmtChargeGet = newStmt("charges.get", `
SELECT `+chargeColumns+` FROM charges WHERE id = :id AND +school_id = :school_id`)
	stmtChargesOfStudent = newStmt("charges.of_student", `
SELECT `+chargeColumns+` FROM charges WHERE student_id = :student_id ORDER BY created_at DESC, id DESC`)
	stmtChargesPage = newStmt("charges.page", `
SELECT `+chargeColumns+` FROM charges INDEXED BY charges_by_school WHERE school_id = :school_id
ORDER BY created_at DESC, id DESC LIMIT :limit OFFSET :offset`)
	stmtChargesCount = newStmt("charges.count", `
SELECT count(*) FROM charges INDEXED BY charges_by_school WHERE school_id = :school_id`)
	stmtChargesPageStatus = newStmt("charges.page[status]", `
SELECT `+chargeColumns+` FROM charges INDEXED BY charges_by_school_status WHERE school_id = :school_id AND status = :status
ORDER BY created_at DESC, id DESC LIMIT :limit OFFSET :offset`)
	stmtChargesCountStatus = newStmt("charges.count[status]", `
SELECT count(*) FROM charges INDEXED BY charges_by_school_status WHERE school_id = :school_id AND status = :status`)
	stmtChargesAnonymize = newStmt("charges.anonymize_student", `UPDATE charges SET student_id = '' WHERE student_id = :student_id`)
	stmtChargeSetStatus  = newStmt("charges.set_status", `UPDATE charges SET status = :status WHERE id = :id`)

	stmtSettlementInsert = newStmt("charge_settlements.insert", `
INSERT INTO charge_settlements (`+settlementColumns+`)
VALUES (:charge_id, :school_id, :outcome, :note, :settled_by, :settled_at)`)
	stmtSettlementsOf = newStmt("charge_settlements.of_charges", `
SELECT `+settlementColumns+` FROM charge_settlements WHERE charge_id IN (SELECT value FROM json_each(:ids))`)
)

func chargeArgs(c library.Charge) []any {
	return []any{
		sql.Named("id", c.ID), sql.Named("school_id", c.SchoolID), sql.Named("student_id", c.StudentID),
		sql.Named("loan_id", c.LoanID), sql.Named("copy_id", c.CopyID), sql.Named("book_id", c.BookID),
		sql.Named("book_title", c.BookTitle), sql.Named("kind", c.Kind), sql.Named("amount_cents", c.AmountCents),
		sql.Named("currency", c.Currency), sql.Named("note", c.Note), sql.Named("created_at", millis(c.CreatedAt)),
		sql.Named("status", c.Status),
	}
}

func settlementArgs(st library.Settlement) []any {
	return []any{
		sql.Named("charge_id", st.ChargeID), sql.Named("school_id", st.SchoolID), sql.Named("outcome", st.Outcome),
		sql.Named("note", st.Note), sql.Named("settled_by", st.By), sql.Named("settled_at", millis(st.SettledAt)),
	}
}

func scanCharge(s scanner) (library.Charge, error) {
	var (
		c       library.Charge
		created int64
	)
	err := s.Scan(&c.ID, &c.SchoolID, &c.StudentID, &c.LoanID, &c.CopyID, &c.BookID, &c.BookTitle, &c.Kind,
		&c.AmountCents, &c.Currency, &c.Note, &created, &c.Status)
	c.CreatedAt = fromMillis(created)
	return c, err
}

func scanSettlement(s scanner) (library.Settlement, error) {
	var (
		st      library.Settlement
		settled int64
	)
	err := s.Scan(&st.ChargeID, &st.SchoolID, &st.Outcome, &st.Note, &st.By, &settled)
	st.SettledAt = fromMillis(settled)
	return st, err
}

// Insert implements ports.ChargeRepository: the primary key lets one of
// racing inserts of one id win.
func (r *Charges) Insert(ctx context.Context, c library.Charge) error {
	return r.db.execWrite(ctx, "store the charge", library.ErrChargeExists, stmtChargeInsert, chargeArgs(c)...)
}

// Get implements ports.ChargeRepository.
func (r *Charges) Get(ctx context.Context, schoolID, chargeID string) (library.Charge, error) {
	return readRow(ctx, r.db, "read the charge", library.ErrChargeNotFound, stmtChargeGet, scanCharge, sql.Named("id", chargeID), sql.Named("school_id", schoolID))
}

// OfStudent implements ports.ChargeRepository: the (student_id, ...) index
// read backwards.
func (r *Charges) OfStudent(ctx context.Context, studentID string) ([]library.Charge, error) {
	return r.list(ctx, r.db.read, stmtChargesOfStudent, sql.Named("student_id", studentID))
}

// Page implements ports.ChargeRepository: a range of the school's index (or
// of its index by status) and its count, in one read transaction.
func (r *Charges) Page(ctx context.Context, schoolID, status string, offset, limit int) ([]library.Charge, int, error) {
	page, count := stmtChargesPage, stmtChargesCount
	filter := []any{sql.Named("school_id", schoolID)}
	if status != "" {
		page, count = stmtChargesPageStatus, stmtChargesCountStatus
		filter = append(filter, sql.Named("status", status))
	}
	return readPage(ctx, r.db, "list the charges", page, count, scanCharge, filter, offset, limit)
}

// readPage reads one page of rows with page (from offset on, at most
// limit) and how many rows match filter in all with count, in one read
// transaction, so the total is of the rows the page was read from.
func readPage[T any](ctx context.Context, d *DB, op string, page, count *stmt, scan func(scanner) (T, error), filter []any, offset, limit int) ([]T, int, error) {
	var (
		out   []T
		total int
	)
	err := d.readTx(ctx, op, func(tx *txn) error {
		var err error
		if out, err = queryAll(ctx, d, tx, op, page, scan, append(filter, pageArgs(offset, limit)...)...); err != nil {
			return err
		}
		return mapErr(d.queryRow(ctx, tx, count, filter...).Scan(&total), op, nil, nil)
	})
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

func (r *Charges) list(ctx context.Context, t target, s *stmt, args ...any) ([]library.Charge, error) {
	return queryAll(ctx, r.db, t, "read the charges", s, scanCharge, args...)
}

// AnonymizeStudent implements ports.ChargeRepository with one UPDATE on
// the (student_id, ...) index.
func (r *Charges) AnonymizeStudent(ctx context.Context, studentID string) error {
	return r.db.execWrite(ctx, "anonymize the student's charges", nil, stmtChargesAnonymize, sql.Named("student_id", studentID))
}

// SetStatus implements ports.ChargeRepository with one UPDATE by primary
// key.
func (r *Charges) SetStatus(ctx context.Context, chargeID, status string) error {
	return r.db.execWrite(ctx, "set the charge's status", nil, stmtChargeSetStatus, sql.Named("id", chargeID), sql.Named("status", status))
}

// Settle implements ports.ChargeRepository: the primary key lets one
// settlement win per charge.
func (r *Charges) Settle(ctx context.Context, st library.Settlement) error {
	return r.db.execWrite(ctx, "settle the charge", library.ErrChargeSettled, stmtSettlementInsert, settlementArgs(st)...)
}

// Settlements implements ports.ChargeRepository with one statement on the
// primary key. No ids is no statement.
func (r *Charges) Settlements(ctx context.Context, chargeIDs []string) ([]library.Settlement, error) {
	if len(chargeIDs) == 0 {
		return []library.Settlement{}, nil
	}
	return queryAll(ctx, r.db, r.db.read, "read the settlements", stmtSettlementsOf, scanSettlement, sql.Named("ids", jsonArray(chargeIDs)))
}
