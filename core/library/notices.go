package library

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/readinglibrary/service/core/errs"
)

// Kinds of notice. Each notice is about one loan (or, later, one hold) and
// is sent at most once per kind, step and due date: a renewal moves the due
// date, which starts the reminders again.
const (
	NoticeDueSoon        = "due_soon"        // the loan is due within DueSoonDays
	NoticeOverdue        = "overdue"         // the loan is Step days overdue
	NoticeHomeroomDigest = "homeroom_digest" // the loan is overdue, in its homeroom's daily list
	NoticeHoldReady      = "hold_ready"      // a copy is put aside for the hold
	NoticeHoldExpiring   = "hold_expiring"   // the copy put aside waits one more day
	// A guardian's copy of a student's overdue or hold-ready notice: one
	// record per guardian address, so each copy goes once.
	NoticeOverdueGuardian   = "overdue_guardian"
	NoticeHoldReadyGuardian = "hold_ready_guardian"
)

// LoanNoticeKinds are the notices about a loan (the others are about
// holds): they go with the loan history of a student who keeps none.
var LoanNoticeKinds = []string{NoticeDueSoon, NoticeOverdue, NoticeHomeroomDigest, NoticeOverdueGuardian}

// GuardianCopyKinds are the student notices a school may copy to the
// students' guardians (NoticeSettings.GuardianCopies).
var GuardianCopyKinds = []string{NoticeOverdue, NoticeHoldReady}

// GuardianKind is the kind of a guardian's copy of a student notice of
// kind, and whether that kind has copies at all.
func GuardianKind(kind string) (string, bool) {
	switch kind {
	case NoticeOverdue:
		return NoticeOverdueGuardian, true
	case NoticeHoldReady:
		return NoticeHoldReadyGuardian, true
	}
	return "", false
}

// NoticeSettings are a school's choices about reminder mail.
type NoticeSettings struct {
	// Enabled is off until the school turns it on: mail to students is
	// a decision for the school, not something an upgrade starts.
	Enabled bool
	// SendAt is the school's local time ("HH:MM") from which the day's
	// notices go out.
	SendAt string
	// DueSoonDays is how many days before the due date the "due soon"
	// reminder goes; 0 sends none.
	DueSoonDays int
	// OverdueSteps are the days past the due date at which an overdue
	// notice goes, ascending (for example 1, 7 and 14).
	OverdueSteps []int
	// GuardianCopies are the kinds of student notice (of
	// GuardianCopyKinds) whose copy also goes to each of the student's
	// guardians with an email: none until the school chooses.
	GuardianCopies []string
	// Contact is how a family reaches the library ("library@school.org,
	// 555-0100, weekdays 8 to 4"), printed in the guardians' copies; empty,
	// they are asked to contact the school.
	Contact string
}

// CopiesToGuardians reports whether the school copies notices of kind to
// guardians.
func (s NoticeSettings) CopiesToGuardians(kind string) bool {
	return slices.Contains(s.GuardianCopies, kind)
}

// DefaultNoticeSettings are a school's notice settings until it saves its
// own: off, with the usual reminders ready for when it turns them on.
func DefaultNoticeSettings() NoticeSettings {
	return NoticeSettings{Enabled: false, SendAt: "07:30", DueSoonDays: 2, OverdueSteps: []int{1, 7, 14}}
}

// Bounds of the notice settings: two weeks of warning is the most any
// school asks for, and ten overdue steps over a year cover every policy
// seen in school library systems.
const (
	maxDueSoonDays   = 14
	maxOverdueSteps  = 10
	maxOverdueStepAt = 365
	maxNoticeContact = 200
)

// ValidateNoticeSettings checks s and returns an Invalid error naming each
// bad field by its JSON name, or nil.
func ValidateNoticeSettings(s NoticeSettings) error {
	fields := errs.FieldErrors{}
	if _, err := time.Parse("15:04", s.SendAt); err != nil || len(s.SendAt) != 5 {
		fields.Add("send_at", "must be a time of day as HH:MM, such as 07:30")
	}
	if s.DueSoonDays < 0 || s.DueSoonDays > maxDueSoonDays {
		fields.Add("due_soon_days", fmt.Sprintf("must be between 0 (none) and %d", maxDueSoonDays))
	}
	if len(s.OverdueSteps) > maxOverdueSteps {
		fields.Add("overdue_steps", fmt.Sprintf("must have at most %d steps", maxOverdueSteps))
	} else {
		for i, d := range s.OverdueSteps {
			if d < 1 || d > maxOverdueStepAt || (i > 0 && d <= s.OverdueSteps[i-1]) {
				fields.Add("overdue_steps", fmt.Sprintf("must be days from 1 to %d in increasing order, such as [1, 7, 14]", maxOverdueStepAt))
				break
			}
		}
	}
	for _, k := range s.GuardianCopies {
		if !slices.Contains(GuardianCopyKinds, k) {
			fields.Add("guardian_copies", fmt.Sprintf("must list only %s", strings.Join(GuardianCopyKinds, " and ")))
			break
		}
	}
	if utf8.RuneCountInString(s.Contact) > maxNoticeContact || strings.ContainsAny(s.Contact, "\r\n") || !utf8.ValidString(s.Contact) {
		fields.Add("contact", fmt.Sprintf("must be one line of at most %d characters", maxNoticeContact))
	}
	return fields.Err()
}

// NormalizeNoticeSettings is s as stored: the contact trimmed, and the
// guardian copies in GuardianCopyKinds' order without repeats (nil for
// none).
func NormalizeNoticeSettings(s NoticeSettings) NoticeSettings {
	s.Contact = strings.TrimSpace(s.Contact)
	var copies []string
	for _, k := range GuardianCopyKinds {
		if slices.Contains(s.GuardianCopies, k) {
			copies = append(copies, k)
		}
	}
	s.GuardianCopies = copies
	return s
}

// GuardianNoticeKey is the unique key of a guardian's copy of the notice
// whose key is studentKey, to the guardian address to.
func GuardianNoticeKey(studentKey, to string) string {
	return studentKey + "#guardian#" + to
}

// Notice is the record that one notice was sent, or is being sent: its Key
// is unique, so of any number of runs (replicas, restarts) exactly one
// claims it. SentAt is zero until the mail server took the mail.
type Notice struct {
	Key       string // see NoticeKey
	SchoolID  string
	SubjectID string // the loan, or the hold
	StudentID string
	Kind      string
	Step      int    // days overdue for NoticeOverdue; 0 otherwise
	DueAt     string // the due date the notice is about
	Day       string // the school's date of the run that claimed it
	Recipient string // the address it went to
	ClaimedAt time.Time
	SentAt    time.Time
}

// Sent reports whether the mail server took the notice's mail.
func (n Notice) Sent() bool { return !n.SentAt.IsZero() }

// NoticeKey is the unique key of a notice: one per subject, kind, due date
// and step; a homeroom digest is once per day, so its day is the step; a
// hold gets each of its notices once.
func NoticeKey(subjectID, kind, dueAt string, step int, day string) string {
	switch kind {
	case NoticeHomeroomDigest:
		return subjectID + "#" + kind + "#" + day
	case NoticeHoldReady, NoticeHoldExpiring:
		return subjectID + "#" + kind
	}
	return fmt.Sprintf("%s#%s#%s#%d", subjectID, kind, dueAt, step)
}

// LoanReminder says which reminder a loan due on due should get on the
// school's date today, if any: "due soon" from DueSoonDays before the due
// date until the due date, then "overdue" at the highest step reached. A
// step missed (the service was down that day) is not sent late once a
// later step is reached: the student gets the most recent one only.
func LoanReminder(due string, today time.Time, s NoticeSettings) (kind string, step int, ok bool) {
	d, err := time.Parse(dueDateLayout, due)
	if err != nil {
		return "", 0, false
	}
	days := int(calendarDate(today).Sub(d).Hours() / 24) // > 0: overdue
	if days <= 0 {
		if s.DueSoonDays > 0 && -days <= s.DueSoonDays {
			return NoticeDueSoon, 0, true
		}
		return "", 0, false
	}
	reached := 0
	for _, st := range s.OverdueSteps {
		if days >= st {
			reached = st
		}
	}
	if reached == 0 {
		return "", 0, false
	}
	return NoticeOverdue, reached, true
}

// HoldReminder says which notice a hold whose copy is put aside until
// expires should get on the school's date today: "ready" at first, then
// "expiring" from the day before the pickup window ends (a window of a
// day or less gets only the "expiring" one, which says both).
func HoldReminder(expires, today time.Time) string {
	last := calendarDate(expires.In(today.Location()))
	if !calendarDate(today).Before(last.AddDate(0, 0, -1)) {
		return NoticeHoldExpiring
	}
	return NoticeHoldReady
}

// NoticeDueToday reports whether the day's notices may go out at local
// time now: from SendAt on.
func NoticeDueToday(now time.Time, s NoticeSettings) bool {
	at, err := time.Parse("15:04", s.SendAt)
	if err != nil {
		return false
	}
	return now.Hour()*60+now.Minute() >= at.Hour()*60+at.Minute()
}

// Bounds of a school's list of homerooms: the rooms (the largest schools
// have a few hundred classes), and a teacher's name in characters.
const (
	MaxHomerooms           = 500
	MaxHomeroomTeacherName = 100
)

// Homeroom is a class group and the teacher who gets its daily digest of
// overdue books.
type Homeroom struct {
	SchoolID     string
	Name         string
	TeacherName  string
	TeacherEmail string
}
