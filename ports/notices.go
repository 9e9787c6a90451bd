package ports

import (
	"context"
	"time"

	"github.com/readinglibrary/service/core/library"
)

// NoticeRepository keeps what the reminder mail needs: each school's notice
// settings, the record of every notice (its unique key is the claim that
// makes a notice go once across replicas and restarts, and the per-loan
// log), and the days whose run has finished.
type NoticeRepository interface {
	// Settings returns the school's notice settings, or
	// library.DefaultNoticeSettings when it has saved none.
	Settings(ctx context.Context, schoolID string) (library.NoticeSettings, error)
	// SaveSettings replaces the school's notice settings.
	SaveSettings(ctx context.Context, schoolID string, s library.NoticeSettings) error

	// Claim stores the notices whose Key is not taken yet and returns the
	// indexes (into notices) of those it stored: of any number of
	// concurrent claims of one key exactly one gets it. One call is one
	// batch, whatever the number of notices.
	Claim(ctx context.Context, notices []library.Notice) (won []int, err error)
	// MarkSent records that the notices' mail was taken by the mail server.
	MarkSent(ctx context.Context, keys []string, at time.Time) error
	// Release deletes the claims of notices not sent (their mail failed),
	// so that a later run claims and sends them again. Sent ones stay.
	Release(ctx context.Context, keys []string) error
	// Unsent returns at most limit of the school's notices claimed before
	// the time given and never marked sent: left by a run that stopped
	// between its claim and its mail.
	Unsent(ctx context.Context, schoolID string, claimedBefore time.Time, limit int) ([]library.Notice, error)
	// OfSubject returns the notices about one loan, oldest first.
	OfSubject(ctx context.Context, subjectID string) ([]library.Notice, error)

	// ForgetStudent deletes the notices about a student, whose account is
	// being deleted: they name the student's address. Idempotent.
	ForgetStudent(ctx context.Context, studentID string) error
	// ForgetLoansOfStudent deletes the student's notices of the given
	// kinds except those about the subjects in keep (the loans still out),
	// and returns how many it deleted: a student who keeps no loan history
	// keeps no record of the reminders about it either. Idempotent.
	ForgetLoansOfStudent(ctx context.Context, studentID string, kinds, keep []string) (int, error)
	// DeleteClaimedBefore deletes at most limit of the school's notices
	// claimed before the time given, with the loan history they describe,
	// and returns how many it deleted.
	DeleteClaimedBefore(ctx context.Context, schoolID string, before time.Time, limit int) (int, error)

	// FinishDay records that the school's notices of day (YYYY-MM-DD, the
	// school's date) all went out. Idempotent.
	FinishDay(ctx context.Context, schoolID, day string) error
	// DayFinished reports whether FinishDay was recorded for the day.
	DayFinished(ctx context.Context, schoolID, day string) (bool, error)
}

// HomeroomRepository keeps each school's homerooms and their teachers'
// addresses, to which the daily digests of overdue books go.
type HomeroomRepository interface {
	// Homerooms returns the school's homerooms ordered by name.
	Homerooms(ctx context.Context, schoolID string) ([]library.Homeroom, error)
	// ReplaceHomerooms makes rooms the school's whole list.
	ReplaceHomerooms(ctx context.Context, schoolID string, rooms []library.Homeroom) error
}
