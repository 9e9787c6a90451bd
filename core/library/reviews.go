package library

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
)

// Review is a student's rating, and optional short text, of a title of
// their school they borrowed. It shows in the catalogue only once a
// librarian approves it; a later edit waits for approval again.
type Review struct {
	ID        string // ReviewID of the student and the title
	SchoolID  string
	BookID    string
	StudentID string
	Rating    int    // 1 to 5
	Text      string // at most MaxReviewRunes; may be empty
	Status    string // ReviewPending, ReviewApproved, ReviewHidden or ReviewWithdrawn
	// Revision counts the student's writes, a withdrawal included: a
	// librarian's decision names the revision they read, so an edit made
	// meanwhile is never approved unseen, nor a review written again after
	// the one they read was withdrawn. Each revision is written once, so
	// it names one text.
	Revision  int
	CreatedAt time.Time
	UpdatedAt time.Time
	// ModeratedBy and ModeratedAt are the librarian who last approved or
	// hid it, and when; empty while it waits.
	ModeratedBy string
	ModeratedAt time.Time
}

// The states of a review.
const (
	ReviewPending  = "pending"
	ReviewApproved = "approved"
	ReviewHidden   = "hidden"
)

// ReviewWithdrawn is a review its student took back: its rating and text
// are gone, and only its revision stays, so that the count goes on if
// they write again. Nobody sees it.
const ReviewWithdrawn = "withdrawn"

// ReviewStatuses lists the states the desk shows, in its order.
var ReviewStatuses = []string{ReviewPending, ReviewApproved, ReviewHidden}

// Review bounds: a short text children write, not an essay.
const (
	MinRating      = 1
	MaxRating      = 5
	MaxReviewRunes = 500
)

var reviewNamespace = uuid.MustParse("0b6f7d52-9c1e-5a43-8e2d-5f71c3a9b4e8")

// ReviewID is the id of a student's review of a title: one review per
// student and title, so writing again replaces it on every store.
func ReviewID(studentID, bookID string) string {
	return uuid.NewSHA1(reviewNamespace, []byte(studentID+"#"+bookID)).String()
}

// ReviewDraft is what a student writes.
type ReviewDraft struct {
	Rating int
	Text   string
}

// Clean checks a draft and returns it with its text trimmed, line endings
// made "\n" and runs of blank lines kept to one.
// Errors: Invalid with details.fields rating and text.
func (d ReviewDraft) Clean() (ReviewDraft, error) {
	fields := errs.FieldErrors{}
	if d.Rating < MinRating || d.Rating > MaxRating {
		fields.Add("rating", "must be a whole number from 1 to 5")
	}
	text := strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(d.Text, "\r\n", "\n"), "\r", "\n"))
	for strings.Contains(text, "\n\n\n") {
		text = strings.ReplaceAll(text, "\n\n\n", "\n\n")
	}
	switch {
	case !utf8.ValidString(text):
		fields.Add("text", "must be UTF-8 text")
	case utf8.RuneCountInString(text) > MaxReviewRunes:
		fields.Add("text", "must be at most 500 characters")
	case strings.ContainsFunc(text, func(r rune) bool { return r != '\n' && unicode.IsControl(r) }):
		fields.Add("text", "must not contain control characters")
	}
	if err := fields.Err(); err != nil {
		return ReviewDraft{}, err
	}
	return ReviewDraft{Rating: d.Rating, Text: text}, nil
}

// RatingSummary counts a title's approved reviews.
type RatingSummary struct {
	Count int
	Sum   int // of the ratings
}

// Average is the mean rating, 0 without reviews.
func (s RatingSummary) Average() float64 {
	if s.Count == 0 {
		return 0
	}
	return float64(s.Sum) / float64(s.Count)
}

// ErrReviewNotFound is the error for an unknown review, or one of another
// school.
func ErrReviewNotFound() error {
	return errs.E(errs.NotFound, errs.CodeReviewNotFound, "The review does not exist.")
}

// ErrReviewChanged refuses a decision on a review the student has
// changed since the librarian read it.
func ErrReviewChanged() error {
	return errs.E(errs.Conflict, errs.CodeReviewChanged, "The student has changed this review since you read it; read it again.")
}

// ErrRevisionTaken refuses a write of a revision of a review written
// already: a racing write of the same review (another tab, a double
// submit) took that number first.
func ErrRevisionTaken() error {
	return errs.E(errs.Conflict, errs.CodeReviewChanged, "Your review was changed elsewhere at the same time; try again.")
}

// ErrNotBorrowed refuses a review of a title the student never borrowed.
func ErrNotBorrowed() error {
	return errs.E(errs.Conflict, errs.CodeNotBorrowed, "You can review a book once you have borrowed it.")
}
