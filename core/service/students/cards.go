package students

import (
	"context"
	"fmt"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// Card pages: a request prints at most MaxCardsPerPage cards, as a page of
// copy labels, so its PDF renders in well under a second.
const (
	DefaultCardsPerPage = 210
	MaxCardsPerPage     = 420
	maxCardPage         = 100_000
)

// StudentCards is what one page of patron cards prints.
type StudentCards struct {
	School library.School
	Cards  []ports.PatronCard // the page's students that have a number, by name
	// Skipped are the page's students without a student number: the desk
	// finds a student by the number on the card, so they get none.
	Skipped []user.Account
	Total   int // students matching in all pages
}

// Cards returns one page of the school's students (a homeroom's alone
// with a homeroom, ignoring case) as patron cards, ordered by name, from
// (page-1)*limit on. A page with no student, or none with a number, is
// NotFound rather than an empty sheet, so nobody feeds a sheet of labels
// to the printer for nothing.
// Errors: Invalid (homeroom, page, limit), NotFound "student_not_found",
// as scope.
func (s *Students) Cards(ctx context.Context, schoolParam, homeroom string, page, limit int) (StudentCards, error) {
	fields := errs.FieldErrors{}
	key, msg := HomeroomFilter(homeroom)
	if msg != "" {
		fields.Add("homeroom", msg)
	}
	if page < 1 || page > maxCardPage {
		fields.Add("page", fmt.Sprintf("must be between 1 and %d", maxCardPage))
	}
	if limit < 1 || limit > MaxCardsPerPage {
		fields.Add("limit", fmt.Sprintf("must be between 1 and %d", MaxCardsPerPage))
	}
	if err := fields.Err(); err != nil {
		return StudentCards{}, err
	}
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return StudentCards{}, err
	}
	list, total, err := s.students.Search(ctx, library.StudentQuery{SchoolID: school.ID, HomeroomKey: key, Offset: (page - 1) * limit, Limit: limit})
	if err != nil {
		return StudentCards{}, err
	}
	out := StudentCards{School: school, Total: total}
	for _, a := range list {
		if a.StudentNumber == "" {
			out.Skipped = append(out.Skipped, a)
			continue
		}
		out.Cards = append(out.Cards, ports.PatronCard{Name: a.Name, Number: a.StudentNumber, Homeroom: a.Homeroom})
	}
	switch {
	case len(list) == 0 && total == 0:
		return StudentCards{}, errs.E(errs.NotFound, errs.CodeStudentNotFound, "No students to print cards for.")
	case len(list) == 0:
		return StudentCards{}, errs.E(errs.NotFound, errs.CodeStudentNotFound, "There are %d students; page %d of %d cards is past the last.", total, page, limit)
	case len(out.Cards) == 0:
		return StudentCards{}, errs.E(errs.NotFound, errs.CodeStudentNotFound, "None of the %d students on this page has a student number to print as a barcode.", len(list))
	}
	return out, nil
}
