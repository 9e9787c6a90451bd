package sqliterepo

import (
	"context"
	"database/sql"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) { r.Departures = NewDepartures(d) },
})

var _ ports.DepartureRepository = (*Departures)(nil)

// Departures is the SQLite ports.DepartureRepository: table
// student_departures, keyed by the attempt and indexed by student, and
// table departure_outcomes, keyed by the attempt so that one insert wins
// each outcome. Every method is one statement, End two in one transaction.
type Departures struct {
	db *DB
}

// NewDepartures returns the departure store of db. It panics on nil, a
// wiring bug.
func NewDepartures(db *DB) *Departures {
	if db == nil {
		panic("sqliterepo: NewDepartures: nil database")
	}
	return &Departures{db: db}
}

var (
	stmtDepartureInsert = newStmt("student_departures.insert", `
INSERT INTO student_departures (attempt_id, student_id, started_at) VALUES (:attempt_id, :student_id, :started_at)`)
	stmtDeparturesOfStudent = newStmt("student_departures.of_student", `
SELECT attempt_id, student_id, started_at FROM student_departures WHERE student_id = :student_id ORDER BY started_at, attempt_id`)
	stmtDepartureDelete = newStmt("student_departures.delete", `
DELETE FROM student_departures WHERE attempt_id = :attempt_id`)
	stmtOutcomeInsert = newStmt("departure_outcomes.insert", `
INSERT INTO departure_outcomes (attempt_id, outcome) VALUES (:attempt_id, :outcome)`)
	stmtOutcomeGet = newStmt("departure_outcomes.get", `
SELECT outcome FROM departure_outcomes WHERE attempt_id = :attempt_id`)
	stmtOutcomeDelete = newStmt("departure_outcomes.delete", `
DELETE FROM departure_outcomes WHERE attempt_id = :attempt_id`)
)

// Begin implements ports.DepartureRepository.
func (r *Departures) Begin(ctx context.Context, d library.Departure) error {
	_, err := r.db.exec(ctx, r.db.write, stmtDepartureInsert, sql.Named("attempt_id", d.ID),
		sql.Named("student_id", d.StudentID), sql.Named("started_at", millis(d.StartedAt)))
	return mapErr(err, "record the deletion", nil, nil)
}

// OfStudent implements ports.DepartureRepository with one range of the
// student_id index.
func (r *Departures) OfStudent(ctx context.Context, studentID string) ([]library.Departure, error) {
	const op = "read the student's deletions"
	rows, err := r.db.query(ctx, r.db.read, stmtDeparturesOfStudent, sql.Named("student_id", studentID))
	if err != nil {
		return nil, mapErr(err, op, nil, nil)
	}
	out, err := scanAll(rows, func(s scanner) (library.Departure, error) {
		var (
			d       library.Departure
			started int64
		)
		err := s.Scan(&d.ID, &d.StudentID, &started)
		d.StartedAt = fromMillis(started)
		return d, err
	})
	return out, mapErr(err, op, nil, nil)
}

// Decide implements ports.DepartureRepository: the primary key lets one
// insert win.
func (r *Departures) Decide(ctx context.Context, attemptID, outcome string) error {
	return r.db.execWrite(ctx, "decide the deletion", library.ErrDepartureDecided, stmtOutcomeInsert, sql.Named("attempt_id", attemptID), sql.Named("outcome", outcome))
}

// Outcome implements ports.DepartureRepository.
func (r *Departures) Outcome(ctx context.Context, attemptID string) (string, error) {
	var outcome string
	err := r.db.queryRow(ctx, r.db.read, stmtOutcomeGet, sql.Named("attempt_id", attemptID)).Scan(&outcome)
	return outcome, mapErr(err, "read the deletion's outcome", library.ErrDepartureNotFound, nil)
}

// End implements ports.DepartureRepository in one transaction.
func (r *Departures) End(ctx context.Context, attemptID string) error {
	const op = "end the deletion"
	return r.db.inTx(ctx, op, func(tx *txn) error {
		if _, err := r.db.exec(ctx, tx, stmtOutcomeDelete, sql.Named("attempt_id", attemptID)); err != nil {
			return mapErr(err, op, nil, nil)
		}
		_, err := r.db.exec(ctx, tx, stmtDepartureDelete, sql.Named("attempt_id", attemptID))
		return mapErr(err, op, nil, nil)
	})
}
