package sqliterepo

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

// The record store's statements for these kinds: reading and counting
// the whole table, and inserting a record exactly as given where the
// repository's own writes upsert or skip what exists.
var (
	stmtRecNoticeSettingsCount = newWholeStmt("records.notice_settings.count", `SELECT count(*) FROM notice_settings`)
	stmtRecNoticeSettingsRead  = newWholeStmt("records.notice_settings.read", `
SELECT school_id, `+noticeSettingsColumns+` FROM notice_settings`)
	stmtRecNoticeSettingsInsert = newStmt("records.notice_settings.insert", `
INSERT INTO notice_settings (school_id, `+noticeSettingsColumns+`)
VALUES (:school_id, :enabled, :send_at, :due_soon_days, :overdue_steps, :guardian_copies, :contact)`)
	stmtRecHomeroomsCount = newWholeStmt("records.homerooms.count", `SELECT count(*) FROM homerooms`)
	stmtRecHomeroomsRead  = newWholeStmt("records.homerooms.read", `SELECT school_id, name, teacher_name, teacher_email FROM homerooms`)
	stmtRecHomeroomInsert = newStmt("records.homerooms.insert", `
INSERT INTO homerooms (school_id, name_key, name, teacher_name, teacher_email)
VALUES (:school_id, :name_key, :name, :teacher_name, :teacher_email)`)
	stmtRecNoticesCount = newWholeStmt("records.notices.count", `SELECT count(*) FROM notices`)
	stmtRecNoticesRead  = newWholeStmt("records.notices.read", `SELECT `+noticeColumns+` FROM notices`)
	stmtRecNoticeInsert = newStmt("records.notices.insert", `
INSERT INTO notices (`+noticeColumns+`)
VALUES (:key, :school_id, :subject_id, :student_id, :kind, :step, :due_at, :day, :recipient, :claimed_at, :sent_at)`)
	stmtRecNoticeDaysCount = newWholeStmt("records.notice_days.count", `SELECT count(*) FROM notice_days`)
	stmtRecNoticeDaysRead  = newWholeStmt("records.notice_days.read", `SELECT school_id, day, finished_at FROM notice_days`)
	stmtRecNoticeDayInsert = newStmt("records.notice_days.insert", `
INSERT INTO notice_days (school_id, day, finished_at) VALUES (:school_id, :day, :at)`)
)

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) {
		n := NewNotices(d)
		r.Notices, r.Homerooms = n, n
	},
	records: map[ports.RecordKind]records{
		ports.KindNoticeSettings: func(d *DB, k ports.RecordKind) recordKind {
			return recordsKind(d, k, stmtRecNoticeSettingsCount, stmtRecNoticeSettingsRead, scanNoticeSettingsRecord,
				func(ctx context.Context, tx *txn, rec ports.NoticeSettingsRecord) error {
					return NewNotices(d).saveSettings(ctx, tx, stmtRecNoticeSettingsInsert, rec.SchoolID, rec.Settings)
				})
		},
		ports.KindHomerooms: func(d *DB, k ports.RecordKind) recordKind {
			return recordsKind(d, k, stmtRecHomeroomsCount, stmtRecHomeroomsRead, scanHomeroom, func(ctx context.Context, tx *txn, h library.Homeroom) error {
				_, err := d.exec(ctx, tx, stmtRecHomeroomInsert, sql.Named("school_id", h.SchoolID), sql.Named("name_key", library.HomeroomKey(h.Name)),
					sql.Named("name", h.Name), sql.Named("teacher_name", h.TeacherName), sql.Named("teacher_email", h.TeacherEmail))
				return err
			})
		},
		ports.KindNotices: func(d *DB, k ports.RecordKind) recordKind {
			return recordsKind(d, k, stmtRecNoticesCount, stmtRecNoticesRead, scanNotice, func(ctx context.Context, tx *txn, n library.Notice) error {
				_, err := d.exec(ctx, tx, stmtRecNoticeInsert, sql.Named("key", n.Key), sql.Named("school_id", n.SchoolID),
					sql.Named("subject_id", n.SubjectID), sql.Named("student_id", n.StudentID), sql.Named("kind", n.Kind), sql.Named("step", n.Step),
					sql.Named("due_at", n.DueAt), sql.Named("day", n.Day), sql.Named("recipient", n.Recipient),
					sql.Named("claimed_at", millis(n.ClaimedAt)), sql.Named("sent_at", nullMillis(n.SentAt)))
				return err
			})
		},
		ports.KindNoticeDays: func(d *DB, k ports.RecordKind) recordKind {
			return recordsKind(d, k, stmtRecNoticeDaysCount, stmtRecNoticeDaysRead, scanNoticeDay, func(ctx context.Context, tx *txn, nd ports.NoticeDay) error {
				_, err := d.exec(ctx, tx, stmtRecNoticeDayInsert, sql.Named("school_id", nd.SchoolID), sql.Named("day", nd.Day), sql.Named("at", millis(nd.FinishedAt)))
				return err
			})
		},
	},
})

var (
	_ ports.NoticeRepository   = (*Notices)(nil)
	_ ports.HomeroomRepository = (*Notices)(nil)
)

// Notices is the SQLite ports.NoticeRepository and ports.HomeroomRepository:
// tables notice_settings, notices (keyed by the notice's key), notice_days
// and homerooms.
type Notices struct {
	db *DB
}

// NewNotices returns the notice store of db. It panics on nil, a wiring bug.
func NewNotices(db *DB) *Notices {
	if db == nil {
		panic("sqliterepo: NewNotices: nil database")
	}
	return &Notices{db: db}
}

const noticeColumns = `key, school_id, subject_id, student_id, kind, step, due_at, day, recipient, claimed_at, sent_at`

// noticeSettingsColumns are a school's settings, in scanNoticeSettings'
// order.
const noticeSettingsColumns = `enabled, send_at, due_soon_days, overdue_steps, guardian_copies, contact`

var (
	stmtNoticeSettingsGet = newStmt("notice_settings.get", `
SELECT `+noticeSettingsColumns+` FROM notice_settings WHERE school_id = :school_id`)
	stmtNoticeSettingsPut = newStmt("notice_settings.put", `
INSERT INTO notice_settings (school_id, `+noticeSettingsColumns+`)
VALUES (:school_id, :enabled, :send_at, :due_soon_days, :overdue_steps, :guardian_copies, :contact)
ON CONFLICT (school_id) DO UPDATE SET enabled = excluded.enabled, send_at = excluded.send_at,
	due_soon_days = excluded.due_soon_days, overdue_steps = excluded.overdue_steps,
	guardian_copies = excluded.guardian_copies, contact = excluded.contact`)

	// The batch claim: every notice of the JSON array whose key is free is
	// stored, and its key returned.
	stmtNoticesClaim = newStmt("notices.claim", `
INSERT INTO notices (`+noticeColumns+`)
SELECT value->>'key', value->>'school_id', value->>'subject_id', value->>'student_id', value->>'kind',
	value->>'step', value->>'due_at', value->>'day', value->>'recipient', value->>'claimed_at', NULL
FROM json_each(:notices) WHERE true
ON CONFLICT (key) DO NOTHING
RETURNING key`)
	stmtNoticesMarkSent = newStmt("notices.mark_sent", `
UPDATE notices SET sent_at = :at WHERE key IN (SELECT value FROM json_each(:keys)) AND sent_at IS NULL`)
	stmtNoticesRelease = newStmt("notices.release", `
DELETE FROM notices WHERE key IN (SELECT value FROM json_each(:keys)) AND sent_at IS NULL`)
	stmtNoticesUnsent = newStmt("notices.unsent", `
SELECT `+noticeColumns+` FROM notices INDEXED BY notices_unsent
WHERE school_id = :school_id AND sent_at IS NULL AND claimed_at < :before
ORDER BY claimed_at LIMIT :limit`)
	stmtNoticesOfSubject = newStmt("notices.of_subject", `
SELECT `+noticeColumns+` FROM notices WHERE subject_id = :subject_id ORDER BY claimed_at, key`)

	stmtNoticesForgetStudent = newStmt("notices.forget_student", `DELETE FROM notices WHERE student_id = :student_id`)
	stmtNoticesForgetLoans   = newStmt("notices.forget_loans_of_student", `
DELETE FROM notices WHERE student_id = :student_id
	AND kind IN (SELECT value FROM json_each(:kinds)) AND subject_id NOT IN (SELECT value FROM json_each(:keep))`)
	stmtNoticesDeleteBefore = newStmt("notices.delete_before", `
DELETE FROM notices WHERE key IN (
	SELECT key FROM notices INDEXED BY notices_by_school
	WHERE school_id = :school_id AND claimed_at < :before ORDER BY claimed_at LIMIT :limit)`)

	stmtNoticeDayFinish = newStmt("notice_days.finish", `
INSERT INTO notice_days (school_id, day, finished_at) VALUES (:school_id, :day, :at)
ON CONFLICT (school_id, day) DO NOTHING`)
	stmtNoticeDayGet = newStmt("notice_days.get", `
SELECT 1 FROM notice_days WHERE school_id = :school_id AND day = :day`)

	stmtHomeroomsOfSchool = newStmt("homerooms.of_school", `
SELECT school_id, name, teacher_name, teacher_email FROM homerooms WHERE school_id = :school_id ORDER BY name_key`)
	stmtHomeroomsDelete = newStmt("homerooms.delete", `DELETE FROM homerooms WHERE school_id = :school_id`)
	stmtHomeroomsInsert = newStmt("homerooms.insert", `
INSERT INTO homerooms (school_id, name_key, name, teacher_name, teacher_email)
SELECT :school_id, value->>'name_key', value->>'name', value->>'teacher_name', value->>'teacher_email'
FROM json_each(:rooms)`)
)

// Settings implements ports.NoticeRepository.
func (r *Notices) Settings(ctx context.Context, schoolID string) (library.NoticeSettings, error) {
	s, err := scanNoticeSettings(r.db.queryRow(ctx, r.db.read, stmtNoticeSettingsGet, sql.Named("school_id", schoolID)))
	if errors.Is(err, sql.ErrNoRows) {
		return library.DefaultNoticeSettings(), nil
	}
	if err != nil {
		return library.NoticeSettings{}, mapErr(err, "read the notice settings", nil, nil)
	}
	return s, nil
}

// SaveSettings implements ports.NoticeRepository with one upsert by school.
func (r *Notices) SaveSettings(ctx context.Context, schoolID string, s library.NoticeSettings) error {
	return mapErr(r.saveSettings(ctx, r.db.write, stmtNoticeSettingsPut, schoolID, s), "save the notice settings", nil, nil)
}

// saveSettings runs st (an upsert, or a plain insert when copying records)
// with the settings' parameters.
func (r *Notices) saveSettings(ctx context.Context, t target, st *stmt, schoolID string, s library.NoticeSettings) error {
	steps := s.OverdueSteps
	if steps == nil {
		steps = []int{}
	}
	_, err := r.db.exec(ctx, t, st, sql.Named("school_id", schoolID), sql.Named("enabled", s.Enabled),
		sql.Named("send_at", s.SendAt), sql.Named("due_soon_days", s.DueSoonDays), sql.Named("overdue_steps", jsonArray(steps)),
		sql.Named("guardian_copies", jsonArray(s.GuardianCopies)), sql.Named("contact", s.Contact))
	return err
}

// scanNoticeSettings reads noticeSettingsColumns after the leading
// destinations (the school, when reading records). No guardian copies are
// nil, as library.NormalizeNoticeSettings stores them.
func scanNoticeSettings(sc scanner, leading ...any) (library.NoticeSettings, error) {
	var (
		s             library.NoticeSettings
		steps, copies string
	)
	dest := append(leading, &s.Enabled, &s.SendAt, &s.DueSoonDays, &steps, &copies, &s.Contact)
	if err := sc.Scan(dest...); err != nil {
		return library.NoticeSettings{}, err
	}
	if err := json.Unmarshal([]byte(steps), &s.OverdueSteps); err != nil {
		return library.NoticeSettings{}, err
	}
	if err := json.Unmarshal([]byte(copies), &s.GuardianCopies); err != nil {
		return library.NoticeSettings{}, err
	}
	if len(s.GuardianCopies) == 0 {
		s.GuardianCopies = nil
	}
	return s, nil
}

func scanNoticeSettingsRecord(s scanner) (ports.NoticeSettingsRecord, error) {
	var rec ports.NoticeSettingsRecord
	settings, err := scanNoticeSettings(s, &rec.SchoolID)
	rec.Settings = settings
	return rec, err
}

func scanHomeroom(s scanner) (library.Homeroom, error) {
	var h library.Homeroom
	err := s.Scan(&h.SchoolID, &h.Name, &h.TeacherName, &h.TeacherEmail)
	return h, err
}

func scanNoticeDay(s scanner) (ports.NoticeDay, error) {
	var (
		nd ports.NoticeDay
		at int64
	)
	err := s.Scan(&nd.SchoolID, &nd.Day, &at)
	nd.FinishedAt = fromMillis(at)
	return nd, err
}

type noticeJSON struct {
	Key       string `json:"key"`
	SchoolID  string `json:"school_id"`
	SubjectID string `json:"subject_id"`
	StudentID string `json:"student_id"`
	Kind      string `json:"kind"`
	Step      int    `json:"step"`
	DueAt     string `json:"due_at"`
	Day       string `json:"day"`
	Recipient string `json:"recipient"`
	ClaimedAt int64  `json:"claimed_at"`
}

// Claim implements ports.NoticeRepository with one INSERT of the batch that
// skips taken keys: the primary key lets one claim of a key win.
func (r *Notices) Claim(ctx context.Context, notices []library.Notice) ([]int, error) {
	const op = "claim the notices"
	if len(notices) == 0 {
		return nil, nil
	}
	rows := make([]noticeJSON, len(notices))
	for i, n := range notices {
		rows[i] = noticeJSON{Key: n.Key, SchoolID: n.SchoolID, SubjectID: n.SubjectID, StudentID: n.StudentID, Kind: n.Kind,
			Step: n.Step, DueAt: n.DueAt, Day: n.Day, Recipient: n.Recipient, ClaimedAt: millis(n.ClaimedAt)}
	}
	stored, err := queryAll(ctx, r.db, r.db.write, op, stmtNoticesClaim, scanString, sql.Named("notices", jsonArray(rows)))
	if err != nil {
		return nil, err
	}
	return storedIndexes(notices, stored, func(n library.Notice) string { return n.Key }), nil
}

// MarkSent implements ports.NoticeRepository.
func (r *Notices) MarkSent(ctx context.Context, keys []string, at time.Time) error {
	if len(keys) == 0 {
		return nil
	}
	return r.db.execWrite(ctx, "record the notices as sent", nil, stmtNoticesMarkSent, sql.Named("keys", jsonArray(keys)), sql.Named("at", millis(at)))
}

// Release implements ports.NoticeRepository.
func (r *Notices) Release(ctx context.Context, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	return r.db.execWrite(ctx, "release the notices", nil, stmtNoticesRelease, sql.Named("keys", jsonArray(keys)))
}

// Unsent implements ports.NoticeRepository on the partial index of unsent
// notices.
func (r *Notices) Unsent(ctx context.Context, schoolID string, claimedBefore time.Time, limit int) ([]library.Notice, error) {
	return r.list(ctx, stmtNoticesUnsent, sql.Named("school_id", schoolID), sql.Named("before", millis(claimedBefore)), sql.Named("limit", limit))
}

// OfSubject implements ports.NoticeRepository.
func (r *Notices) OfSubject(ctx context.Context, subjectID string) ([]library.Notice, error) {
	return r.list(ctx, stmtNoticesOfSubject, sql.Named("subject_id", subjectID))
}

func (r *Notices) list(ctx context.Context, s *stmt, args ...any) ([]library.Notice, error) {
	return queryAll(ctx, r.db, r.db.read, "read the notices", s, scanNotice, args...)
}

func scanNotice(s scanner) (library.Notice, error) {
	var (
		n       library.Notice
		claimed int64
		sent    sql.NullInt64
	)
	err := s.Scan(&n.Key, &n.SchoolID, &n.SubjectID, &n.StudentID, &n.Kind, &n.Step, &n.DueAt, &n.Day, &n.Recipient, &claimed, &sent)
	if err != nil {
		return library.Notice{}, err
	}
	n.ClaimedAt, n.SentAt = fromMillis(claimed), fromNullMillis(sent)
	return n, nil
}

// ForgetStudent implements ports.NoticeRepository.
func (r *Notices) ForgetStudent(ctx context.Context, studentID string) error {
	return r.db.execWrite(ctx, "delete the student's notices", nil, stmtNoticesForgetStudent, sql.Named("student_id", studentID))
}

// ForgetLoansOfStudent implements ports.NoticeRepository on the
// notices_of_student index.
func (r *Notices) ForgetLoansOfStudent(ctx context.Context, studentID string, kinds, keep []string) (int, error) {
	if keep == nil {
		keep = []string{}
	}
	res, err := r.db.exec(ctx, r.db.write, stmtNoticesForgetLoans, sql.Named("student_id", studentID),
		sql.Named("kinds", jsonArray(kinds)), sql.Named("keep", jsonArray(keep)))
	if err != nil {
		return 0, mapErr(err, "delete the student's loan notices", nil, nil)
	}
	n, err := res.RowsAffected()
	return int(n), mapErr(err, "delete the student's loan notices", nil, nil)
}

// DeleteClaimedBefore implements ports.NoticeRepository.
func (r *Notices) DeleteClaimedBefore(ctx context.Context, schoolID string, before time.Time, limit int) (int, error) {
	res, err := r.db.exec(ctx, r.db.write, stmtNoticesDeleteBefore, sql.Named("school_id", schoolID),
		sql.Named("before", millis(before)), sql.Named("limit", limit))
	if err != nil {
		return 0, mapErr(err, "delete old notices", nil, nil)
	}
	n, err := res.RowsAffected()
	return int(n), mapErr(err, "delete old notices", nil, nil)
}

// FinishDay implements ports.NoticeRepository.
func (r *Notices) FinishDay(ctx context.Context, schoolID, day string) error {
	_, err := r.db.exec(ctx, r.db.write, stmtNoticeDayFinish, sql.Named("school_id", schoolID), sql.Named("day", day),
		sql.Named("at", millis(time.Now())))
	return mapErr(err, "record the notice day", nil, nil)
}

// DayFinished implements ports.NoticeRepository.
func (r *Notices) DayFinished(ctx context.Context, schoolID, day string) (bool, error) {
	var one int
	err := r.db.queryRow(ctx, r.db.read, stmtNoticeDayGet, sql.Named("school_id", schoolID), sql.Named("day", day)).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, mapErr(err, "read the notice day", nil, nil)
	}
	return true, nil
}

// Homerooms implements ports.HomeroomRepository.
func (r *Notices) Homerooms(ctx context.Context, schoolID string) ([]library.Homeroom, error) {
	return queryAll(ctx, r.db, r.db.read, "read the homerooms", stmtHomeroomsOfSchool, scanHomeroom, sql.Named("school_id", schoolID))
}

type homeroomJSON struct {
	NameKey      string `json:"name_key"`
	Name         string `json:"name"`
	TeacherName  string `json:"teacher_name"`
	TeacherEmail string `json:"teacher_email"`
}

// ReplaceHomerooms implements ports.HomeroomRepository in one transaction.
func (r *Notices) ReplaceHomerooms(ctx context.Context, schoolID string, rooms []library.Homeroom) error {
	const op = "save the homerooms"
	rows := make([]homeroomJSON, len(rooms))
	for i, h := range rooms {
		rows[i] = homeroomJSON{NameKey: library.HomeroomKey(h.Name), Name: h.Name, TeacherName: h.TeacherName, TeacherEmail: h.TeacherEmail}
	}
	return r.db.inTx(ctx, op, func(tx *txn) error {
		if _, err := r.db.exec(ctx, tx, stmtHomeroomsDelete, sql.Named("school_id", schoolID)); err != nil {
			return mapErr(err, op, nil, nil)
		}
		_, err := r.db.exec(ctx, tx, stmtHomeroomsInsert, sql.Named("school_id", schoolID), sql.Named("rooms", jsonArray(rows)))
		return mapErr(err, op, nil, nil)
	})
}
