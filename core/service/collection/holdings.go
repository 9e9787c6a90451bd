package collection

import (
	"context"
	"crypto/rand"
	"strings"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/holdingsfile"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// Holdings serves what a school's library holds: its books, their copies
// with the codes printed on their labels, and the staff's view of the
// catalog.
type Holdings struct {
	scope    usecase.SchoolScope
	holdings ports.HoldingsRepository
	// desk puts new copies of a held title aside for its waiting holds.
	desk       *circulation.HoldDesk
	loanReader circulation.LoanReader
	clock      *usecase.Clock
}

// HoldingsDeps are what Holdings is built with; none may be nil.
type HoldingsDeps struct {
	Schools  ports.SchoolRepository
	Holdings ports.HoldingsRepository
	Desk     *circulation.HoldDesk
	Loans    circulation.LoanReader
	Clock    *usecase.Clock
}

// NewHoldings builds Holdings. It panics on a nil dependency.
func NewHoldings(d HoldingsDeps) *Holdings {
	usecase.MustHave("NewHoldings", d)
	return &Holdings{scope: usecase.NewSchoolScope(d.Schools), holdings: d.Holdings, desk: d.Desk, loanReader: d.Loans, clock: d.Clock}
}

// Books returns one page of the school's books with their copy counts for
// the school's own staff, whether or not its catalog is public, ordered by
// title as in the public catalog.
// Errors: Invalid (page, limit, search), as scope.
func (s *Holdings) Books(ctx context.Context, schoolParam string, q usecase.ListQuery) (CatalogPage, error) {
	terms, err := q.Validate()
	if err != nil {
		return CatalogPage{}, err
	}
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return CatalogPage{}, err
	}
	return catalogPage(ctx, s.holdings, s.loanReader, school, q, terms)
}

// AddBook adds a book to a school's catalog with copies copies.
// Errors: Invalid, Conflict "isbn_exists" or "copy_limit_reached", as scope.
func (s *Holdings) AddBook(ctx context.Context, schoolParam string, d library.BookDraft) (library.Book, []library.Copy, error) {
	// A bad draft is refused as such before the school is looked up.
	if err := library.ValidateBookDraft(d); err != nil {
		return library.Book{}, nil, err
	}
	school, err := s.scope.Scope(ctx, schoolParam, "school_id")
	if err != nil {
		return library.Book{}, nil, err
	}
	d = d.Normalized()
	b := library.Book{
		ID: s.clock.NewID(), SchoolID: school.ID, ISBN: library.NormalizeISBN(d.ISBN), Title: d.Title,
		Author: d.Author, CoverURL: d.CoverURL, CreatedAt: s.clock.Now().UTC(), PriceCents: d.PriceCents, LoanCategory: d.LoanCategory,
		BookDetails: d.BookDetails,
	}
	// The caps are checked before the book is stored, so a refused book
	// leaves nothing behind. (Only when another request takes the last room
	// under a cap between this check and the copies' does the book stay,
	// without copies: makeCopies removes its own.)
	if d.Copies > 0 {
		if err := s.checkCopyCaps(ctx, school.Settings, b, d.Copies, 0); err != nil {
			return library.Book{}, nil, err
		}
	}
	if err := s.holdings.CreateBook(ctx, b); err != nil {
		return library.Book{}, nil, err
	}
	copies, err := s.makeCopies(ctx, school.Settings, b, d.Copies)
	return b, copies, err
}

// AddCopies generates count new copies of a book, each with a fresh code;
// they are put aside for the title's waiting holds first.
// Errors: Invalid (count), NotFound "book_not_found", Conflict
// "copy_limit_reached".
func (s *Holdings) AddCopies(ctx context.Context, schoolParam, bookID string, count int) (library.Book, []library.Copy, error) {
	if err := library.ValidateCopyCount(count); err != nil {
		return library.Book{}, nil, err
	}
	b, err := s.bookInScope(ctx, schoolParam, bookID)
	if err != nil {
		return library.Book{}, nil, err
	}
	school, err := s.scope.Schools.Get(ctx, b.SchoolID)
	if err != nil {
		return library.Book{}, nil, err
	}
	if err := s.checkCopyCaps(ctx, school.Settings, b, count, 0); err != nil {
		return library.Book{}, nil, err
	}
	copies, err := s.makeCopies(ctx, school.Settings, b, count)
	if err != nil {
		return b, copies, err
	}
	// Holds may wait for this title: the new copies go to them, not to
	// the shelf.
	return b, copies, s.desk.ServeShelf(ctx, school, b.ID)
}

// SetBookCategory changes a book's loan category; loans already made keep
// their due dates. Errors: Invalid (loan_category), NotFound
// "book_not_found" (another school's book too), as bookInScope.
func (s *Holdings) SetBookCategory(ctx context.Context, schoolParam, bookID, category string) (library.Book, error) {
	if strings.TrimSpace(category) == "" {
		return library.Book{}, errs.InvalidField("loan_category", "must be standard, short or reference")
	}
	c, err := library.ParseLoanCategory("loan_category", category)
	if err != nil {
		return library.Book{}, err
	}
	b, err := s.bookInScope(ctx, schoolParam, bookID)
	if err != nil {
		return library.Book{}, err
	}
	if err := s.holdings.SetBookCategory(ctx, b.SchoolID, b.ID, c); err != nil {
		return library.Book{}, err
	}
	b.LoanCategory = c
	return b, nil
}

// Book returns one of the school's books with its copy counts, for the
// school's staff. Errors: NotFound "book_not_found", as bookInScope.
func (s *Holdings) Book(ctx context.Context, schoolParam, bookID string) (CatalogEntry, error) {
	b, err := s.bookInScope(ctx, schoolParam, bookID)
	if err != nil {
		return CatalogEntry{}, err
	}
	entries, err := catalogEntries(ctx, s.holdings, s.loanReader, b.SchoolID, []library.Book{b})
	if err != nil {
		return CatalogEntry{}, err
	}
	return entries[0], nil
}

// SetBookDetails changes a book's catalogue details: change receives the
// book's current details and returns the new ones, which are checked whole
// before anything is stored. Errors: Invalid (each bad field by its JSON
// name), NotFound "book_not_found", as bookInScope.
func (s *Holdings) SetBookDetails(ctx context.Context, schoolParam, bookID string, change func(library.BookDetails) library.BookDetails) (library.Book, error) {
	// What the change sets on its own is checked before the book is looked
	// up, so a bad value is refused as such even for an unknown book; the
	// whole is checked again once merged (an age_max below the stored
	// age_min).
	if err := library.ValidateBookDetails(change(library.BookDetails{}), s.clock.Now()); err != nil {
		return library.Book{}, err
	}
	b, err := s.bookInScope(ctx, schoolParam, bookID)
	if err != nil {
		return library.Book{}, err
	}
	d := change(b.BookDetails).Normalized()
	if err := library.ValidateBookDetails(d, s.clock.Now()); err != nil {
		return library.Book{}, err
	}
	if err := s.holdings.SetBookDetails(ctx, b.SchoolID, b.ID, d); err != nil {
		return library.Book{}, err
	}
	b.BookDetails = d
	return b, nil
}

// checkCopyCaps refuses adding n copies to book b when the book or its
// school would pass its cap. mine is how many of the copies counted are the
// caller's own, just stored (0 before storing). Both counts read an index
// range bounded by the cap (the school's count stops just past it), never
// the whole table.
func (s *Holdings) checkCopyCaps(ctx context.Context, set library.Settings, b library.Book, n, mine int) error {
	set = set.WithCapDefaults()
	counts, err := s.holdings.CopyCounts(ctx, b.SchoolID, []string{b.ID})
	if err != nil {
		return err
	}
	if have := counts[b.ID] - mine; have+n > set.MaxCopiesPerBook {
		return library.ErrCopyLimit("book", set.MaxCopiesPerBook, have)
	}
	total, err := s.holdings.CountSchoolCopies(ctx, b.SchoolID, set.MaxCopiesPerSchool+1)
	if err != nil {
		return err
	}
	if have := total - mine; have+n > set.MaxCopiesPerSchool {
		return library.ErrCopyLimit("school", set.MaxCopiesPerSchool, have)
	}
	return nil
}

// bookInScope finds a book the caller may reach. Admins may omit the school:
// the book's own school is then used.
func (s *Holdings) bookInScope(ctx context.Context, schoolParam, bookID string) (library.Book, error) {
	if !usecase.IsUUID(bookID) {
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
		return library.Book{}, errs.E(errs.Forbidden, errs.CodeForbidden, "You can only act on your own school.")
	}
	return s.holdings.Book(ctx, schoolID, bookID)
}

// makeCopies draws random codes and stores the copies; a code that happens
// to exist already in the school (unique index) is drawn again, so codes
// never collide. The caps were checked before; they are checked again once
// the copies are stored, because two requests adding copies at the same
// moment each passed the first check: if together they went past a cap,
// each removes its own copies and is refused, so the cap holds (near the
// cap both may be refused; a retry then succeeds).
func (s *Holdings) makeCopies(ctx context.Context, set library.Settings, b library.Book, n int) ([]library.Copy, error) {
	out := make([]library.Copy, 0, n)
	if n == 0 {
		return out, nil
	}
	pending := make([]library.Copy, 0, n)
	for range n {
		pending = append(pending, library.Copy{ID: s.clock.NewID(), SchoolID: b.SchoolID, BookID: b.ID, CreatedAt: s.clock.Now().UTC()})
	}
	for attempt := 0; len(pending) > 0; attempt++ {
		if attempt == 10 {
			return nil, s.undoCopies(ctx, b.SchoolID, out, errs.E(errs.Internal, "", "could not draw unique copy codes"))
		}
		for i := range pending {
			code, err := library.NewCopyCode(rand.Reader)
			if err != nil {
				return nil, s.undoCopies(ctx, b.SchoolID, out, errs.Wrap(err, "draw a copy code"))
			}
			pending[i].Code = code
		}
		dups, err := s.holdings.CreateCopies(ctx, pending)
		if err != nil {
			return nil, s.undoCopies(ctx, b.SchoolID, append(out, pending...), err)
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
	if err := s.checkCopyCaps(ctx, set, b, len(out), len(out)); err != nil {
		return nil, s.undoCopies(ctx, b.SchoolID, out, err)
	}
	return out, nil
}

// undoCopies removes copies this request stored and returns cause. The
// removal outlives a cancelled request: copies must not stay behind
// because the client went away.
func (s *Holdings) undoCopies(ctx context.Context, schoolID string, copies []library.Copy, cause error) error {
	if len(copies) == 0 {
		return cause
	}
	ids := usecase.Pluck(copies, func(c library.Copy) string { return c.ID })
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), usecase.UndoTimeout)
	defer cancel()
	_ = s.holdings.DeleteCopies(ctx, schoolID, ids)
	return cause
}

// CopyLookup is what the desk scanner shows for a code.
type CopyLookup struct {
	Copy library.Copy
	Book library.Book
	Loan *circulation.LoanView // the active loan, if the copy is lent
}

// CopyByCode finds a copy of the caller's school by its printed code: an
// imported barcode exactly as printed, one of ours accepting lowercase and
// missing dashes.
// Errors: NotFound "copy_not_found", as scope.
func (s *Holdings) CopyByCode(ctx context.Context, schoolParam, code string) (CopyLookup, error) {
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return CopyLookup{}, err
	}
	c, err := s.copyByCode(ctx, school.ID, code)
	if err != nil {
		return CopyLookup{}, err
	}
	b, err := s.holdings.Book(ctx, school.ID, c.BookID)
	if err != nil {
		return CopyLookup{}, err
	}
	out := CopyLookup{Copy: c, Book: b}
	if l, ok, err := s.loanReader.ActiveLoanOf(ctx, c.ID); err != nil {
		return CopyLookup{}, err
	} else if ok {
		views, err := s.loanReader.Views(ctx, []library.Loan{l}, s.clock.TodayAt(school))
		if err != nil {
			return CopyLookup{}, err
		}
		out.Loan = &views[0]
	}
	return out, nil
}

// copyByCode finds a copy by a scanned or typed code: the code exactly as
// read (a barcode imported from another system is stored as printed), then
// our own code's canonical form. At most two lookups in the (school, code)
// key.
func (s *Holdings) copyByCode(ctx context.Context, schoolID, code string) (library.Copy, error) {
	for _, c := range holdingsfile.CopyCodeLookups(code) {
		cp, err := s.holdings.CopyByCode(ctx, schoolID, c)
		if !errs.Is(err, errs.NotFound) {
			return cp, err
		}
	}
	return library.Copy{}, library.ErrCopyNotFound()
}

// Label pages: a request prints at most MaxLabelsPerPage labels, so its
// PDF is rendered in well under a second and a few MB whatever the size of
// the book. 210 labels are exactly 10 A4 sheets of 21 or 7 letter sheets of
// 30; 420 are 20 A4 or 14 letter sheets.
const (
	DefaultLabelsPerPage = 210
	MaxLabelsPerPage     = 420
)

// CopyLabels is what one page of copy labels prints.
type CopyLabels struct {
	School library.School
	Book   library.Book
	Copies []library.Copy // ordered by code
	Total  int            // copies of the book in all pages
}

// CopyLabels returns one page of the copies of a book of the caller's
// school (admins name the school), lent or not, with the book and the
// school, to print their labels: the copies in code order from
// (page-1)*limit on, at most limit of them. A book without copies, or a
// page past the last, is NotFound rather than an empty sheet, so nobody
// feeds a sheet of labels to the printer for nothing.
// Errors: Invalid (book_id, page, limit), NotFound "book_not_found",
// "copy_not_found" (no copies on the page), as scope.
func (s *Holdings) CopyLabels(ctx context.Context, schoolParam, bookID string, page, limit int) (CopyLabels, error) {
	fields := errs.FieldErrors{}
	if bookID == "" {
		fields.Add("book_id", "is required")
	} else if !usecase.IsUUID(bookID) {
		fields.Add("book_id", "must be a UUID")
	}
	if page < 1 || page > maxLabelPage {
		fields.Add("page", "must be between 1 and 1000000")
	}
	if limit < 1 || limit > MaxLabelsPerPage {
		fields.Add("limit", "must be between 1 and 420")
	}
	if err := fields.Err(); err != nil {
		return CopyLabels{}, err
	}
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return CopyLabels{}, err
	}
	b, err := s.holdings.Book(ctx, school.ID, bookID)
	if err != nil {
		return CopyLabels{}, err
	}
	counts, err := s.holdings.CopyCounts(ctx, school.ID, []string{b.ID})
	if err != nil {
		return CopyLabels{}, err
	}
	total := counts[b.ID]
	if total == 0 {
		return CopyLabels{}, errs.E(errs.NotFound, errs.CodeCopyNotFound, "The book has no copies to label.")
	}
	offset := (page - 1) * limit
	if offset >= total {
		return CopyLabels{}, errs.E(errs.NotFound, errs.CodeCopyNotFound, "The book has %d copies; page %d of %d labels is past the last.", total, page, limit)
	}
	copies, err := s.holdings.CopiesOfBookPage(ctx, school.ID, b.ID, offset, limit)
	if err != nil {
		return CopyLabels{}, err
	}
	if len(copies) == 0 {
		return CopyLabels{}, errs.E(errs.NotFound, errs.CodeCopyNotFound, "The book has no copies to label.")
	}
	return CopyLabels{School: school, Book: b, Copies: copies, Total: total}, nil
}

// SpineLabels are the page's copies as spine labels: the school's prefix,
// the copy's own call number (an item's shelf mark from an import) or
// else the book's, and the copy's shelving location.
func (l CopyLabels) SpineLabels() []ports.SpineLabel {
	out := make([]ports.SpineLabel, len(l.Copies))
	for i, c := range l.Copies {
		call := c.CallNumber
		if call == "" {
			call = l.Book.CallNumber
		}
		out[i] = ports.SpineLabel{Prefix: l.School.Settings.LabelPrefix, CallNumber: call, Location: c.Location}
	}
	return out
}

// maxLabelPage keeps the offset of a label page far from overflow.
const maxLabelPage = 1_000_000

// SetBookPrice sets the replacement price of a library book (0: the
// school's default applies) and returns the book.
// Errors: Invalid (price_cents), NotFound "book_not_found", as scope.
func (s *Holdings) SetBookPrice(ctx context.Context, schoolParam, bookID string, cents int64) (library.Book, error) {
	if cents < 0 || cents > library.MaxChargeCents {
		return library.Book{}, errs.InvalidField("price_cents", "must be between 0 and 100000000")
	}
	b, err := s.bookInScope(ctx, schoolParam, bookID)
	if err != nil {
		return library.Book{}, err
	}
	if err := s.holdings.SetBookPrice(ctx, b.SchoolID, b.ID, cents); err != nil {
		return library.Book{}, err
	}
	b.PriceCents = cents
	return b, nil
}

// SetCopyShelf sets a copy's own call number and shelving location, which
// its spine label prints (an empty call number prints the book's), and
// returns the copy. A part left nil keeps its value.
// Errors: Invalid (call_number, location; nothing is changed), NotFound
// "copy_not_found" (no such copy in the caller's school), as scope.
func (s *Holdings) SetCopyShelf(ctx context.Context, schoolParam, copyID string, callNumber, location *string) (library.Copy, error) {
	if !usecase.IsUUID(copyID) {
		return library.Copy{}, library.ErrCopyNotFound()
	}
	school, err := s.scope.Scope(ctx, schoolParam, "school_id")
	if err != nil {
		return library.Copy{}, err
	}
	cp, err := s.holdings.Copy(ctx, school.ID, copyID)
	if err != nil {
		return library.Copy{}, err
	}
	shelf := library.CopyShelf{CallNumber: cp.CallNumber, Location: cp.Location}
	if callNumber != nil {
		shelf.CallNumber = *callNumber
	}
	if location != nil {
		shelf.Location = *location
	}
	shelf = shelf.Normalized()
	if err := shelf.Validate(); err != nil {
		return library.Copy{}, err
	}
	if err := s.holdings.SetCopyShelf(ctx, school.ID, cp.ID, shelf); err != nil {
		return library.Copy{}, err
	}
	cp.CallNumber, cp.Location = shelf.CallNumber, shelf.Location
	return cp, nil
}
