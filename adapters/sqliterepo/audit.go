package sqliterepo

import (
	"context"
	"database/sql"
	"encoding/json"
	"math"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ ports.AuditLogRepository = (*AuditLog)(nil)

// AuditLog is the SQLite ports.AuditLogRepository: table audit_log keyed
// by id, with one index per filter the desk offers, each in (at, id)
// order. Every method is one statement.
type AuditLog struct {
	db *DB
}

// NewAuditLog returns the audit log of db. It panics on nil, a wiring
// bug.
func NewAuditLog(db *DB) *AuditLog {
	if db == nil {
		panic("sqliterepo: NewAuditLog: nil database")
	}
	return &AuditLog{db: db}
}

const auditColumns = `id, school_id, at, actor_id, actor_email, actor_role, address, action, target, subject_id, summary, changes`

// auditPage ends every page statement: the dates, the cursor (the last
// entry of the page before) and the order the indexes hold, read
// backwards.
const auditPage = `
	AND at >= :from AND at < :to AND (at, id) < (:before_at, :before_id)
ORDER BY at DESC, id DESC LIMIT :limit`

var (
	stmtAuditInsert = newStmt("audit_log.insert", `
INSERT INTO audit_log (`+auditColumns+`)
VALUES (:id, :school_id, :at, :actor_id, :actor_email, :actor_role, :address, :action, :target, :subject_id, :summary, :changes)`)

	// One statement per filter, each naming its index: without
	// statistics the planner would take the school's whole range and
	// filter it.
	stmtAuditSchool = newStmt("audit_log.page_of_school", `
SELECT `+auditColumns+` FROM audit_log INDEXED BY audit_log_by_school
WHERE school_id = :school_id`+auditPage)
	stmtAuditSchoolActor = newStmt("audit_log.page_of_school_actor", `
SELECT `+auditColumns+` FROM audit_log INDEXED BY audit_log_by_school_actor
WHERE school_id = :school_id AND actor_email = :actor_email`+auditPage)
	stmtAuditSchoolActorAction = newStmt("audit_log.page_of_school_actor_action", `
SELECT `+auditColumns+` FROM audit_log INDEXED BY audit_log_by_school_actor_action
WHERE school_id = :school_id AND actor_email = :actor_email AND action = :action`+auditPage)
	stmtAuditSchoolAction = newStmt("audit_log.page_of_school_action", `
SELECT `+auditColumns+` FROM audit_log INDEXED BY audit_log_by_school_action
WHERE school_id = :school_id AND action = :action`+auditPage)
	stmtAuditAll = newStmt("audit_log.page_of_all", `
SELECT `+auditColumns+` FROM audit_log INDEXED BY audit_log_by_time
WHERE 1`+auditPage)
	stmtAuditActor = newStmt("audit_log.page_of_actor", `
SELECT `+auditColumns+` FROM audit_log INDEXED BY audit_log_by_actor
WHERE actor_email = :actor_email`+auditPage)
	stmtAuditActorAction = newStmt("audit_log.page_of_actor_action", `
SELECT `+auditColumns+` FROM audit_log INDEXED BY audit_log_by_actor_action
WHERE actor_email = :actor_email AND action = :action`+auditPage)
	stmtAuditAction = newStmt("audit_log.page_of_action", `
SELECT `+auditColumns+` FROM audit_log INDEXED BY audit_log_by_action
WHERE action = :action`+auditPage)

	// The condition repeats the partial index's, so the planner may use it.
	stmtAuditOfSubject = newStmt("audit_log.of_subject", `
SELECT `+auditColumns+` FROM audit_log INDEXED BY audit_log_by_subject
WHERE subject_id = :subject_id AND subject_id <> '' LIMIT :limit`)
	stmtAuditErase = newStmt("audit_log.erase", `
UPDATE audit_log SET target = :target, subject_id = :subject_id, summary = :summary, changes = :changes WHERE id = :id`)

	stmtAuditDeleteBefore = newStmt("audit_log.delete_before", `
DELETE FROM audit_log WHERE id IN (
	SELECT id FROM audit_log INDEXED BY audit_log_by_time WHERE at < :cutoff ORDER BY at, id LIMIT :limit)`)

	stmtRecAuditCount = newWholeStmt("records.audit_log.count", `SELECT count(*) FROM audit_log`)
	stmtRecAuditRead  = newWholeStmt("records.audit_log.read", `SELECT `+auditColumns+` FROM audit_log`)
)

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) { r.AuditLog = NewAuditLog(d) },
	records: map[ports.RecordKind]records{
		ports.KindAuditLog: func(d *DB, k ports.RecordKind) recordKind {
			return holdRecordKind(d, k, stmtRecAuditCount, stmtRecAuditRead, stmtAuditInsert, scanAuditEntry, auditArgs)
		},
	},
})

// auditChange is a change as the changes column stores it.
type auditChange struct {
	Field  string `json:"field"`
	Before string `json:"before"`
	After  string `json:"after"`
}

// auditChanges is the changes column of e.
func auditChanges(e library.AuditEntry) string {
	cs := make([]auditChange, len(e.Changes))
	for i, c := range e.Changes {
		cs[i] = auditChange(c)
	}
	return jsonArray(cs)
}

func auditArgs(e library.AuditEntry) []any {
	return []any{sql.Named("id", e.ID), sql.Named("school_id", e.SchoolID), sql.Named("at", millis(e.At)),
		sql.Named("actor_id", e.ActorID), sql.Named("actor_email", e.ActorEmail), sql.Named("actor_role", e.ActorRole),
		sql.Named("address", e.Address), sql.Named("action", string(e.Action)), sql.Named("target", e.Target), sql.Named("subject_id", e.SubjectID),
		sql.Named("summary", e.Summary), sql.Named("changes", auditChanges(e))}
}

func scanAuditEntry(s scanner) (library.AuditEntry, error) {
	var (
		e       library.AuditEntry
		at      int64
		action  string
		changes string
	)
	if err := s.Scan(&e.ID, &e.SchoolID, &at, &e.ActorID, &e.ActorEmail, &e.ActorRole, &e.Address, &action, &e.Target,
		&e.SubjectID, &e.Summary, &changes); err != nil {
		return e, err
	}
	e.At, e.Action = fromMillis(at), library.AuditAction(action)
	var cs []auditChange
	if err := json.Unmarshal([]byte(changes), &cs); err != nil {
		return e, errs.Wrap(err, "read the changes of audit entry %s", e.ID)
	}
	if len(cs) > 0 {
		e.Changes = make([]library.AuditChange, len(cs))
		for i, c := range cs {
			e.Changes[i] = library.AuditChange(c)
		}
	}
	return e, nil
}

// Append implements ports.AuditLogRepository: the primary key refuses a
// second entry with an id.
func (r *AuditLog) Append(ctx context.Context, e library.AuditEntry) error {
	return r.db.execWrite(ctx, "record the audit entry", library.ErrAuditEntryExists, stmtAuditInsert, auditArgs(e)...)
}

// Page implements ports.AuditLogRepository: one range of the index of
// the query's filter, read backwards from the cursor. With both a person
// and an action, the person's index is read and the action filtered
// there.
func (r *AuditLog) Page(ctx context.Context, q library.AuditQuery, limit int) ([]library.AuditEntry, error) {
	if limit < 1 {
		return []library.AuditEntry{}, nil
	}
	var s *stmt
	switch {
	case q.SchoolID != "" && q.ActorEmail != "" && q.Action != "":
		s = stmtAuditSchoolActorAction
	case q.SchoolID != "" && q.ActorEmail != "":
		s = stmtAuditSchoolActor
	case q.SchoolID != "" && q.Action != "":
		s = stmtAuditSchoolAction
	case q.SchoolID != "":
		s = stmtAuditSchool
	case q.ActorEmail != "" && q.Action != "":
		s = stmtAuditActorAction
	case q.ActorEmail != "":
		s = stmtAuditActor
	case q.Action != "":
		s = stmtAuditAction
	default:
		s = stmtAuditAll
	}
	from, to, beforeAt := int64(math.MinInt64), int64(math.MaxInt64), int64(math.MaxInt64)
	if !q.From.IsZero() {
		from = millis(q.From)
	}
	if !q.To.IsZero() {
		to = millis(q.To)
	}
	if !q.BeforeAt.IsZero() {
		// The range ends at the cursor's instant, so a later page starts
		// reading there rather than skipping the pages before it; the row
		// value keeps the entries of that instant after the cursor's id.
		beforeAt = millis(q.BeforeAt)
		to = min(to, beforeAt+1)
	}
	return queryAll(ctx, r.db, r.db.read, "read the audit log", s, scanAuditEntry,
		sql.Named("from", from), sql.Named("to", to), sql.Named("before_at", beforeAt), sql.Named("before_id", q.BeforeID),
		sql.Named("limit", limit), sql.Named("school_id", q.SchoolID), sql.Named("actor_email", q.ActorEmail),
		sql.Named("action", string(q.Action)))
}

// OfSubject implements ports.AuditLogRepository on the partial subject
// index.
func (r *AuditLog) OfSubject(ctx context.Context, subjectID string, limit int) ([]library.AuditEntry, error) {
	if limit < 1 || subjectID == "" {
		return []library.AuditEntry{}, nil
	}
	return queryAll(ctx, r.db, r.db.read, "read a person's audit entries", stmtAuditOfSubject, scanAuditEntry,
		sql.Named("subject_id", subjectID), sql.Named("limit", limit))
}

// Erase implements ports.AuditLogRepository with one update by id of the
// columns a person's details can be in.
func (r *AuditLog) Erase(ctx context.Context, e library.AuditEntry) error {
	return r.db.execWrite(ctx, "erase a person from the audit log", nil, stmtAuditErase, sql.Named("id", e.ID),
		sql.Named("target", e.Target), sql.Named("subject_id", e.SubjectID), sql.Named("summary", e.Summary),
		sql.Named("changes", auditChanges(e)))
}

// DeleteBefore implements ports.AuditLogRepository: the oldest entries,
// by the time index.
func (r *AuditLog) DeleteBefore(ctx context.Context, cutoff time.Time, limit int) (int64, error) {
	if limit < 1 {
		return 0, nil
	}
	res, err := r.db.exec(ctx, r.db.write, stmtAuditDeleteBefore, sql.Named("cutoff", millis(cutoff)), sql.Named("limit", limit))
	if err != nil {
		return 0, mapErr(err, "remove old audit entries", nil, nil)
	}
	n, err := res.RowsAffected()
	return n, mapErr(err, "remove old audit entries", nil, nil)
}
