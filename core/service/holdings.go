package service

import (
	"context"
	"crypto/rand"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// Holdings serves what a school's library holds: its books, their copies
// with the codes printed on their labels, and the staff's view of the
// catalog.
type Holdings struct {
	schoolScope
	holdings ports.HoldingsRepository
	loanReader
	*clock
}

// Books returns one page of the school's books with their copy counts for
// the school's own staff, whether or not its catalog is public, ordered by
// title as in the public catalog.
// Errors: Invalid (page, limit, search), as scope.
func (s *Holdings) Books(ctx context.Context, schoolParam string, q ListQuery) (CatalogPage, error) {
	terms, err := q.validate()
	if err != nil {
		return CatalogPage{}, err
	}
	school, err := s.scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return CatalogPage{}, err
	}
	return catalogPage(ctx, s.holdings, s.loanReader, school, q, terms)
}

// AddBook adds a book to a school's catalog with copies copies.
// Errors: Invalid, Conflict "isbn_exists", as scope.
func (s *Holdings) AddBook(ctx context.Context, schoolParam string, d library.BookDraft) (library.Book, []library.Copy, error) {
	school, err := s.scope(ctx, schoolParam, "school_id")
	if err != nil {
		return library.Book{}, nil, err
	}
	if err := library.ValidateBookDraft(d); err != nil {
		return library.Book{}, nil, err
	}
	d = d.Normalized()
	b := library.Book{
		ID: s.newID(), SchoolID: school.ID, ISBN: library.NormalizeISBN(d.ISBN), Title: d.Title,
		Author: d.Author, CoverURL: d.CoverURL, CreatedAt: s.Now().UTC(),
	}
	if err := s.holdings.CreateBook(ctx, b); err != nil {
		return library.Book{}, nil, err
	}
	copies, err := s.makeCopies(ctx, b, d.Copies)
	return b, copies, err
}

// AddCopies generates count new copies of a book, each with a fresh code.
// Errors: Invalid (count), NotFound "book_not_found".
func (s *Holdings) AddCopies(ctx context.Context, schoolParam, bookID string, count int) (library.Book, []library.Copy, error) {
	if err := library.ValidateCopyCount(count); err != nil {
		return library.Book{}, nil, err
	}
	b, err := s.bookInScope(ctx, schoolParam, bookID)
	if err != nil {
		return library.Book{}, nil, err
	}
	copies, err := s.makeCopies(ctx, b, count)
	return b, copies, err
}

// bookInScope finds a book the caller may reach. Admins may omit the school:
// the book's own school is then used.
func (s *Holdings) bookInScope(ctx context.Context, schoolParam, bookID string) (library.Book, error) {
	if _, err := uuid.Parse(bookID); err != nil {
		return library.Book{}, library.ErrBookNotFound()
	}
	p := user.PrincipalFrom(ctx)
	schoolID := p.SchoolID
	if p.Role == user.RoleAdmin {
		schoolID = schoolParam
		if schoolID == "" {
			return library.Book{}, errs.InvalidField("school_id", "is required for admins")
		}
	} else if schoolParam != "" && schoolParam != p.SchoolID {
		return library.Book{}, errs.E(errs.Forbidden, "forbidden", "You can only act on your own school.")
	}
	return s.holdings.Book(ctx, schoolID, bookID)
}

// makeCopies draws random codes and stores the copies; a code that happens
// to exist already in the school (unique index) is drawn again, so codes
// never collide.
func (s *Holdings) makeCopies(ctx context.Context, b library.Book, n int) ([]library.Copy, error) {
	out := make([]library.Copy, 0, n)
	pending := make([]library.Copy, 0, n)
	for range n {
		pending = append(pending, library.Copy{ID: s.newID(), SchoolID: b.SchoolID, BookID: b.ID, CreatedAt: s.Now().UTC()})
	}
	for attempt := 0; len(pending) > 0; attempt++ {
		if attempt == 10 {
			return out, errs.E(errs.Internal, "", "could not draw unique copy codes")
		}
		for i := range pending {
			code, err := library.NewCopyCode(rand.Reader)
			if err != nil {
				return out, errs.Wrap(err, "draw a copy code")
			}
			pending[i].Code = code
		}
		dups, err := s.holdings.CreateCopies(ctx, pending)
		if err != nil {
			return out, err
		}
		taken := map[int]bool{}
		for _, i := range dups {
			taken[i] = true
		}
		var again []library.Copy
		for i, c := range pending {
			if taken[i] {
				again = append(again, c)
			} else {
				out = append(out, c)
			}
		}
		pending = again
	}
	return out, nil
}

// CopyLookup is what the desk scanner shows for a code.
type CopyLookup struct {
	Copy library.Copy
	Book library.Book
	Loan *LoanView // the active loan, if the copy is lent
}

// CopyByCode finds a copy of the caller's school by its printed code
// (accepting lowercase and missing dashes).
// Errors: NotFound "copy_not_found", as scope.
func (s *Holdings) CopyByCode(ctx context.Context, schoolParam, code string) (CopyLookup, error) {
	school, err := s.scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return CopyLookup{}, err
	}
	if !library.ValidCopyCode(code) {
		return CopyLookup{}, library.ErrCopyNotFound()
	}
	c, err := s.holdings.CopyByCode(ctx, school.ID, library.NormalizeCopyCode(code))
	if err != nil {
		return CopyLookup{}, err
	}
	b, err := s.holdings.Book(ctx, school.ID, c.BookID)
	if err != nil {
		return CopyLookup{}, err
	}
	out := CopyLookup{Copy: c, Book: b}
	if l, ok, err := s.activeLoanOf(ctx, c.ID); err != nil {
		return CopyLookup{}, err
	} else if ok {
		views, err := s.views(ctx, []library.Loan{l}, s.today())
		if err != nil {
			return CopyLookup{}, err
		}
		out.Loan = &views[0]
	}
	return out, nil
}

// CopyLabels is what a sheet of copy labels prints.
type CopyLabels struct {
	School library.School
	Book   library.Book
	Copies []library.Copy // ordered by code
}

// CopyLabels returns every copy of a book of the caller's school (admins
// name the school), lent or not, with the book and the school, to print
// their labels. A book without copies is NotFound rather than an empty
// sheet, so nobody feeds a sheet of labels to the printer for nothing.
// Errors: Invalid (book_id), NotFound "book_not_found", "copy_not_found"
// (no copies), as scope.
func (s *Holdings) CopyLabels(ctx context.Context, schoolParam, bookID string) (CopyLabels, error) {
	if bookID == "" {
		return CopyLabels{}, errs.InvalidField("book_id", "is required")
	}
	if _, err := uuid.Parse(bookID); err != nil {
		return CopyLabels{}, errs.InvalidField("book_id", "must be a UUID")
	}
	school, err := s.scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return CopyLabels{}, err
	}
	b, err := s.holdings.Book(ctx, school.ID, bookID)
	if err != nil {
		return CopyLabels{}, err
	}
	copies, err := s.holdings.CopiesOfBook(ctx, school.ID, b.ID)
	if err != nil {
		return CopyLabels{}, err
	}
	if len(copies) == 0 {
		return CopyLabels{}, errs.E(errs.NotFound, "copy_not_found", "The book has no copies to label.")
	}
	return CopyLabels{School: school, Book: b, Copies: copies}, nil
}
