-- Lost, damaged and claimed copies, the charges they make and the
-- borrowing block. Every new column defaults to what a school, book, copy
-- or loan stored before meant: no price, no charge, no block, a copy on the
-- shelf, a loan returned at the desk.

-- A book's replacement price in minor units (0: the school's default).
ALTER TABLE library_books ADD COLUMN price_cents INTEGER NOT NULL DEFAULT 0 CHECK (price_cents >= 0);

-- Why a copy is off the shelf while no loan holds it: '' (on the shelf),
-- lost, claims_returned or damaged; the note, and the loan it came from
-- (whose charge a check-in reverses).
ALTER TABLE copies ADD COLUMN copy_condition TEXT NOT NULL DEFAULT ''
    CHECK (copy_condition IN ('', 'lost', 'claims_returned', 'damaged'));
ALTER TABLE copies ADD COLUMN condition_note TEXT NOT NULL DEFAULT '';
ALTER TABLE copies ADD COLUMN condition_loan_id TEXT NOT NULL DEFAULT '';
ALTER TABLE copies ADD COLUMN condition_at INTEGER NOT NULL DEFAULT 0;
-- The copies off the shelf, by book: the catalog's availability leaves
-- them out without reading the copies on the shelf.
CREATE INDEX copies_off_shelf ON copies (school_id, book_id) WHERE copy_condition <> '';

-- How a loan ended: '' (returned, or still active), lost, claims_returned.
-- The partial index counts a student's claims without reading their
-- history.
ALTER TABLE loans ADD COLUMN outcome TEXT NOT NULL DEFAULT ''
    CHECK (outcome IN ('', 'lost', 'claims_returned'));
CREATE INDEX loans_claims_returned ON loans (student_id) WHERE outcome = 'claims_returned';

-- The ending of a loan without a return, keyed by the loan: the primary
-- key lets one of racing endings (lost against claims returned) win.
CREATE TABLE loan_endings (
    loan_id  TEXT    NOT NULL PRIMARY KEY,
    outcome  TEXT    NOT NULL CHECK (outcome IN ('lost', 'claims_returned')),
    ended_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

ALTER TABLE schools ADD COLUMN currency TEXT NOT NULL DEFAULT '';
ALTER TABLE schools ADD COLUMN replacement_cost_cents INTEGER NOT NULL DEFAULT 0 CHECK (replacement_cost_cents >= 0);
ALTER TABLE schools ADD COLUMN block_overdue_items INTEGER NOT NULL DEFAULT 0 CHECK (block_overdue_items >= 0);
ALTER TABLE schools ADD COLUMN block_charges_cents INTEGER NOT NULL DEFAULT 0 CHECK (block_charges_cents >= 0);

-- Charges, keyed by an id derived from (loan, kind): the primary key lets
-- one insert win per loan and kind, so a retried "lost" charges once.
-- status copies the settlement's outcome for the school's lists by status.
CREATE TABLE charges (
    id           TEXT    NOT NULL PRIMARY KEY,
    school_id    TEXT    NOT NULL,
    student_id   TEXT    NOT NULL,
    loan_id      TEXT    NOT NULL,
    copy_id      TEXT    NOT NULL,
    book_id      TEXT    NOT NULL,
    book_title   TEXT    NOT NULL,
    kind         TEXT    NOT NULL,
    amount_cents INTEGER NOT NULL,
    currency     TEXT    NOT NULL,
    note         TEXT    NOT NULL,
    created_at   INTEGER NOT NULL,
    status       TEXT    NOT NULL
) STRICT;
-- A student's charges (their standing, their own list), newest first.
CREATE INDEX charges_by_student ON charges (student_id, created_at, id);
-- A school's charges, all of them or by status, newest first.
CREATE INDEX charges_by_school ON charges (school_id, created_at, id);
CREATE INDEX charges_by_school_status ON charges (school_id, status, created_at, id);

-- The settlement of a charge: the primary key lets one win per charge.
CREATE TABLE charge_settlements (
    charge_id  TEXT    NOT NULL PRIMARY KEY,
    school_id  TEXT    NOT NULL,
    outcome    TEXT    NOT NULL CHECK (outcome IN ('paid', 'waived', 'reversed')),
    note       TEXT    NOT NULL,
    settled_by TEXT    NOT NULL,
    settled_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
