package circulation

import (
	"context"
	"slices"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
)

// ReadingListHolds reports whether the calling student chose that a title
// of their school put on a reading list places a hold by itself; any
// other caller has no such choice, and nothing is read.
func (s *Holds) ReadingListHolds(ctx context.Context) (bool, error) {
	p := user.PrincipalFrom(ctx)
	if p.Role != user.RoleStudent || p.AccountID == "" || p.SchoolID == "" {
		return false, nil
	}
	acct, err := s.desk.accounts.Get(ctx, p.AccountID)
	if err != nil {
		return false, err
	}
	return acct.HoldsFromReadingList, nil
}

// SetReadingListHolds records the calling student's choice of whether
// their reading lists place holds, and returns it. Holds placed already
// stay either way.
// Errors: Forbidden (the caller is no student).
func (s *Holds) SetReadingListHolds(ctx context.Context, on bool) (bool, error) {
	p, err := usecase.Student(ctx, "Only students choose whether their reading list places holds.")
	if err != nil {
		return false, err
	}
	acct, err := s.desk.accounts.Get(ctx, p.AccountID)
	if err != nil {
		return false, err
	}
	if acct.HoldsFromReadingList != on {
		acct.HoldsFromReadingList, acct.UpdatedAt = on, s.desk.clock.Now().UTC()
		if err := s.desk.accounts.Update(ctx, acct); err != nil {
			return false, err
		}
	}
	return on, nil
}

// ListTitle is a title of the student's school a hold from a reading list
// may go to; OnShelf when the caller counted a copy of it on the shelf.
type ListTitle struct {
	Book    library.Book
	OnShelf bool
}

// PlaceForList places the calling student's hold for a title they put on
// a reading list, by Place's rules, on the first of titles (of their
// school, one work) that takes one, lendable titles first and otherwise
// in the order given. A hold the student has on any of them already is
// the answer, and then a copy on the shelf. The caller checked the
// student's choice (ReadingListHolds). A refusal is an outcome, not an
// error: the title is on the list either way.
// Errors: only the stores' (Internal, Unavailable).
func (s *Holds) PlaceForList(ctx context.Context, titles []ListTitle) (library.ListHold, error) {
	p := user.PrincipalFrom(ctx)
	if len(titles) == 0 {
		return library.ListHold{}, errs.E(errs.Internal, "", "no title to hold")
	}
	books := make([]library.Book, 0, len(titles))
	for _, t := range titles {
		if h, err := s.desk.holds.OpenHold(ctx, p.AccountID, t.Book.ID); err == nil {
			return library.ListHold{Outcome: library.ListHoldAlreadyHeld, Book: t.Book, HoldID: h.HoldID}, nil
		} else if !errs.Is(err, errs.NotFound) {
			return library.ListHold{}, err
		}
		books = append(books, t.Book)
	}
	for _, t := range titles {
		if t.OnShelf {
			return library.ListHold{Outcome: library.ListHoldOnShelf, Book: t.Book}, nil
		}
	}
	ordered := slices.Clone(books)
	slices.SortStableFunc(ordered, func(a, b library.Book) int { return reference(a) - reference(b) })
	var out library.ListHold
	for _, b := range ordered {
		v, err := s.Place(ctx, HoldInput{BookID: b.ID})
		switch code := errs.CodeOf(err); {
		case err == nil:
			return library.ListHold{Outcome: library.ListHoldPlaced, Book: b, HoldID: v.Hold.ID, Position: v.Position}, nil
		case code == errs.CodeHoldExists:
			// Placed by a racing request meanwhile.
			h, err := s.desk.holds.OpenHold(ctx, p.AccountID, b.ID)
			if err != nil {
				return library.ListHold{}, err
			}
			return library.ListHold{Outcome: library.ListHoldAlreadyHeld, Book: b, HoldID: h.HoldID}, nil
		case code == errs.CodeCopyAvailable:
			return library.ListHold{Outcome: library.ListHoldOnShelf, Book: b}, nil
		case !refusal(err):
			return library.ListHold{}, err
		default:
			e, _ := errs.As(err)
			if out.Outcome == "" {
				out = library.ListHold{Outcome: library.ListHoldRefused, Book: b, Code: code, Message: e.Message}
			}
			// Another edition may take the hold a reference one cannot.
			if code != errs.CodeNotForLoan {
				return out, nil
			}
		}
	}
	return out, nil
}

// reference is 1 for a reference title, never lent, and 0 for others.
func reference(b library.Book) int {
	if library.BookCategory(b) == library.CategoryReference {
		return 1
	}
	return 0
}

// refusal reports whether err is a rule refusing the hold rather than a
// store's failure.
func refusal(err error) bool {
	switch errs.KindOf(err) {
	case errs.Conflict, errs.NotFound, errs.Forbidden, errs.Invalid:
		return true
	}
	return false
}
