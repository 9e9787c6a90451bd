package memrepo

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

// schoolKey keys what is unique within one school (an ISBN, a copy code, a
// student number).
type schoolKey struct {
	school string
	value  string
}

// loanNumber keys one renewal of a loan.
type loanNumber struct {
	loan   string
	number int
}

// Library is an in-memory ports.LibraryRepository. One mutex guards every
// map, so each method is as atomic as the unique-key inserts of the MongoDB
// store it mirrors. Settings live in the school store it was given.
type Library struct {
	schools *Schools

	mu         sync.Mutex
	books      map[string]library.Book
	bookByISBN map[schoolKey]string // only books with an ISBN
	copies     map[string]library.Copy
	copyByCode map[schoolKey]string
	loans      map[string]library.Loan
	claims     map[string]library.CopyClaim // by copy id
	renewals   map[loanNumber]library.Renewal
	numbers    map[schoolKey]string // student number -> account id
	invites    map[string]library.Invite
	redeemed   map[string]time.Time // token hash -> when it was redeemed
}

// NewLibrary returns an empty library store whose SaveSettings writes to
// schools. It panics on nil, a wiring bug.
func NewLibrary(schools *Schools) *Library {
	if schools == nil {
		panic("memrepo: NewLibrary: nil school store")
	}
	return &Library{
		schools:    schools,
		books:      map[string]library.Book{},
		bookByISBN: map[schoolKey]string{},
		copies:     map[string]library.Copy{},
		copyByCode: map[schoolKey]string{},
		loans:      map[string]library.Loan{},
		claims:     map[string]library.CopyClaim{},
		renewals:   map[loanNumber]library.Renewal{},
		numbers:    map[schoolKey]string{},
		invites:    map[string]library.Invite{},
		redeemed:   map[string]time.Time{},
	}
}

// idTaken is the error for a generated id that is already stored: a bug,
// not a client's conflict, so Internal as on MongoDB.
func idTaken(what, id string) error {
	return errs.Wrap(fmt.Errorf("%s id %q is taken", what, id), "The database failed to store the %s.", what)
}

// CreateBook implements ports.LibraryRepository. Books without an ISBN
// never clash with each other.
func (r *Library) CreateBook(_ context.Context, b library.Book) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := schoolKey{b.SchoolID, b.ISBN}
	if _, ok := r.bookByISBN[k]; ok && b.ISBN != "" {
		return library.ErrISBNExists()
	}
	if _, ok := r.books[b.ID]; ok {
		return idTaken("book", b.ID)
	}
	r.books[b.ID] = b
	if b.ISBN != "" {
		r.bookByISBN[k] = b.ID
	}
	return nil
}

// Book implements ports.LibraryRepository.
func (r *Library) Book(_ context.Context, schoolID, bookID string) (library.Book, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, ok := r.books[bookID]
	if !ok || b.SchoolID != schoolID {
		return library.Book{}, library.ErrBookNotFound()
	}
	return b, nil
}

// Books implements ports.LibraryRepository: by title, then id, byte by
// byte as MongoDB without collation sorts.
func (r *Library) Books(_ context.Context, schoolID string) ([]library.Book, error) {
	r.mu.Lock()
	out := []library.Book{}
	for _, b := range r.books {
		if b.SchoolID == schoolID {
			out = append(out, b)
		}
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b library.Book) int {
		if c := strings.Compare(a.Title, b.Title); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// BooksPage implements ports.HoldingsRepository.
func (r *Library) BooksPage(ctx context.Context, q library.BookQuery) ([]library.Book, int, error) {
	all, _ := r.Books(ctx, q.SchoolID)
	matched := all[:0]
	for _, b := range all {
		if hasAllTerms(catalog.SearchTerms(b.Title+" "+b.Author), q.Terms) {
			matched = append(matched, b)
		}
	}
	return pageOf(matched, q.Offset, q.Limit), len(matched), nil
}

// hasAllTerms reports whether every term is among have.
func hasAllTerms(have, terms []string) bool {
	for _, t := range terms {
		if !slices.Contains(have, t) {
			return false
		}
	}
	return true
}

// pageOf returns a copy of list[offset:offset+limit], cut to its length.
func pageOf[T any](list []T, offset, limit int) []T {
	start := min(offset, len(list))
	end := min(start+limit, len(list))
	return slices.Clone(list[start:end])
}

// BooksByID implements ports.LibraryRepository. Like MongoDB's $in, an id
// asked for twice gives its book once.
func (r *Library) BooksByID(_ context.Context, schoolID string, ids []string) ([]library.Book, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]library.Book, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if b, ok := r.books[id]; ok && b.SchoolID == schoolID && !seen[id] {
			seen[id] = true
			out = append(out, b)
		}
	}
	return out, nil
}

// CreateCopies implements ports.LibraryRepository. Copies are stored in
// order, so of two new copies with one code the first is stored. A taken
// copy id is reported like a taken code, as the MongoDB store's duplicate
// key does not say which index refused (ids are generated, so that is a
// bug anyway).
func (r *Library) CreateCopies(_ context.Context, copies []library.Copy) ([]int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var dups []int
	for i, c := range copies {
		k := schoolKey{c.SchoolID, c.Code}
		_, codeTaken := r.copyByCode[k]
		_, idUsed := r.copies[c.ID]
		if codeTaken || idUsed {
			dups = append(dups, i)
			continue
		}
		r.copies[c.ID] = c
		r.copyByCode[k] = c.ID
	}
	return dups, nil
}

// Copy implements ports.LibraryRepository.
func (r *Library) Copy(_ context.Context, schoolID, copyID string) (library.Copy, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.copies[copyID]
	if !ok || c.SchoolID != schoolID {
		return library.Copy{}, library.ErrCopyNotFound()
	}
	return c, nil
}

// CopyByCode implements ports.LibraryRepository.
func (r *Library) CopyByCode(_ context.Context, schoolID, code string) (library.Copy, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	id, ok := r.copyByCode[schoolKey{schoolID, code}]
	if !ok {
		return library.Copy{}, library.ErrCopyNotFound()
	}
	return r.copies[id], nil
}

// CopiesOfBook implements ports.LibraryRepository.
func (r *Library) CopiesOfBook(_ context.Context, schoolID, bookID string) ([]library.Copy, error) {
	r.mu.Lock()
	out := []library.Copy{}
	for _, c := range r.copies {
		if c.SchoolID == schoolID && c.BookID == bookID {
			out = append(out, c)
		}
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b library.Copy) int {
		if c := strings.Compare(a.Code, b.Code); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// CopyCounts implements ports.LibraryRepository.
func (r *Library) CopyCounts(_ context.Context, schoolID string) (map[string]int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]int{}
	for _, c := range r.copies {
		if c.SchoolID == schoolID {
			out[c.BookID]++
		}
	}
	return out, nil
}

// CopyCountsOf implements ports.LibraryRepository.
func (r *Library) CopyCountsOf(_ context.Context, schoolID string, bookIDs []string) (map[string]int, error) {
	want := make(map[string]bool, len(bookIDs))
	for _, id := range bookIDs {
		want[id] = true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]int{}
	for _, c := range r.copies {
		if c.SchoolID == schoolID && want[c.BookID] {
			out[c.BookID]++
		}
	}
	return out, nil
}

// InsertLoan implements ports.LibraryRepository. A taken loan id is
// Internal, as on MongoDB.
func (r *Library) InsertLoan(_ context.Context, l library.Loan) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.loans[l.ID]; ok {
		return idTaken("loan", l.ID)
	}
	r.loans[l.ID] = l
	return nil
}

// Loan implements ports.LibraryRepository.
func (r *Library) Loan(_ context.Context, schoolID, loanID string) (library.Loan, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	l, ok := r.loans[loanID]
	if !ok || l.SchoolID != schoolID {
		return library.Loan{}, library.ErrLoanNotFound()
	}
	return l, nil
}

// LoansByID implements ports.LibraryRepository. An id asked for twice gives
// its loan once.
func (r *Library) LoansByID(_ context.Context, ids []string) ([]library.Loan, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]library.Loan, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if l, ok := r.loans[id]; ok && !seen[id] {
			seen[id] = true
			out = append(out, l)
		}
	}
	return out, nil
}

// loansWhere returns the loans keep accepts, ordered by order.
func (r *Library) loansWhere(keep func(library.Loan) bool, order func(a, b library.Loan) int) []library.Loan {
	r.mu.Lock()
	out := []library.Loan{}
	for _, l := range r.loans {
		if keep(l) {
			out = append(out, l)
		}
	}
	r.mu.Unlock()
	slices.SortFunc(out, order)
	return out
}

// byLoanedAt orders loans by LoanedAt, then id, as the MongoDB store does.
func byLoanedAt(a, b library.Loan) int {
	if c := a.LoanedAt.Compare(b.LoanedAt); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// OpenLoans implements ports.LibraryRepository: by LoanedAt, then id.
func (r *Library) OpenLoans(_ context.Context, schoolID, studentID, bookID string) ([]library.Loan, error) {
	return r.loansWhere(func(l library.Loan) bool {
		return l.SchoolID == schoolID && !l.Returned() &&
			(studentID == "" || l.StudentID == studentID) &&
			(bookID == "" || l.BookID == bookID)
	}, byLoanedAt), nil
}

// LoansOfStudent implements ports.LibraryRepository: newest first, by
// LoanedAt and then id, both descending.
func (r *Library) LoansOfStudent(_ context.Context, studentID string) ([]library.Loan, error) {
	return r.loansWhere(func(l library.Loan) bool { return l.StudentID == studentID },
		func(a, b library.Loan) int { return byLoanedAt(b, a) }), nil
}

// MarkReturned implements ports.LibraryRepository. A missing loan is not an
// error, as on MongoDB, where an update that matches nothing cannot tell a
// missing loan from a returned one.
func (r *Library) MarkReturned(_ context.Context, loanID string, at time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	l, ok := r.loans[loanID]
	if ok && !l.Returned() {
		l.ReturnedAt = at
		r.loans[loanID] = l
	}
	return nil
}

// DeleteLoan implements ports.LibraryRepository.
func (r *Library) DeleteLoan(_ context.Context, loanID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.loans, loanID)
	return nil
}

// AnonymizeStudent implements ports.LibraryRepository.
func (r *Library) AnonymizeStudent(_ context.Context, studentID, marker string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, l := range r.loans {
		if l.StudentID == studentID {
			l.StudentID = marker
			r.loans[id] = l
		}
	}
	return nil
}

// ClaimCopy implements ports.LibraryRepository.
func (r *Library) ClaimCopy(_ context.Context, c library.CopyClaim) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.claims[c.CopyID]; ok {
		return library.ErrCopyClaimed()
	}
	r.claims[c.CopyID] = c
	return nil
}

// Claim implements ports.LibraryRepository.
func (r *Library) Claim(_ context.Context, copyID string) (library.CopyClaim, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.claims[copyID]
	if !ok {
		return library.CopyClaim{}, library.ErrClaimNotFound()
	}
	return c, nil
}

// ClaimsByCopy implements ports.LibraryRepository. A copy asked for twice
// gives its claim once.
func (r *Library) ClaimsByCopy(_ context.Context, copyIDs []string) ([]library.CopyClaim, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]library.CopyClaim, 0, len(copyIDs))
	seen := make(map[string]bool, len(copyIDs))
	for _, id := range copyIDs {
		if c, ok := r.claims[id]; ok && !seen[id] {
			seen[id] = true
			out = append(out, c)
		}
	}
	return out, nil
}

// ClaimsOfSchool implements ports.LibraryRepository, ordered by copy id
// (the port names no order).
func (r *Library) ClaimsOfSchool(_ context.Context, schoolID string) ([]library.CopyClaim, error) {
	r.mu.Lock()
	out := []library.CopyClaim{}
	for _, c := range r.claims {
		if c.SchoolID == schoolID {
			out = append(out, c)
		}
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b library.CopyClaim) int { return strings.Compare(a.CopyID, b.CopyID) })
	return out, nil
}

// ClaimsOfBooks implements ports.LibraryRepository.
func (r *Library) ClaimsOfBooks(ctx context.Context, schoolID string, bookIDs []string) ([]library.CopyClaim, error) {
	all, _ := r.ClaimsOfSchool(ctx, schoolID)
	out := []library.CopyClaim{}
	for _, c := range all {
		if slices.Contains(bookIDs, c.BookID) {
			out = append(out, c)
		}
	}
	return out, nil
}

// ReleaseClaim implements ports.LibraryRepository.
func (r *Library) ReleaseClaim(_ context.Context, copyID, loanID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c, ok := r.claims[copyID]; ok && c.LoanID == loanID {
		delete(r.claims, copyID)
	}
	return nil
}

// AddRenewal implements ports.LibraryRepository.
func (r *Library) AddRenewal(_ context.Context, rn library.Renewal) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := loanNumber{rn.LoanID, rn.Number}
	if _, ok := r.renewals[k]; ok {
		return library.ErrRenewalExists()
	}
	r.renewals[k] = rn
	return nil
}

// Renewals implements ports.LibraryRepository: by loan, then number.
func (r *Library) Renewals(_ context.Context, loanIDs []string) ([]library.Renewal, error) {
	want := make(map[string]bool, len(loanIDs))
	for _, id := range loanIDs {
		want[id] = true
	}
	r.mu.Lock()
	out := []library.Renewal{}
	for k, rn := range r.renewals {
		if want[k.loan] {
			out = append(out, rn)
		}
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b library.Renewal) int {
		if c := strings.Compare(a.LoanID, b.LoanID); c != 0 {
			return c
		}
		return cmp.Compare(a.Number, b.Number)
	})
	return out, nil
}

// ClaimStudentNumber implements ports.LibraryRepository. A number is taken
// whoever holds it, the same account included.
func (r *Library) ClaimStudentNumber(_ context.Context, schoolID, number, accountID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := schoolKey{schoolID, strings.ToLower(number)}
	if _, ok := r.numbers[k]; ok {
		return library.ErrStudentNumberExists()
	}
	r.numbers[k] = accountID
	return nil
}

// CreateInvite implements ports.LibraryRepository. A taken token hash is
// Internal, as on MongoDB: tokens are random, so a clash is a bug.
func (r *Library) CreateInvite(_ context.Context, inv library.Invite) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.invites[inv.TokenHash]; ok {
		return idTaken("invite", inv.TokenHash)
	}
	r.invites[inv.TokenHash] = inv
	return nil
}

// Invite implements ports.LibraryRepository. A redeemed invitation is
// still returned.
func (r *Library) Invite(_ context.Context, tokenHash string) (library.Invite, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	inv, ok := r.invites[tokenHash]
	if !ok {
		return library.Invite{}, library.ErrInviteNotFound()
	}
	return inv, nil
}

// RedeemInvite implements ports.LibraryRepository. Like the MongoDB store
// it does not require the invitation to exist: the redemption is about the
// hash, and callers read the invitation first.
func (r *Library) RedeemInvite(_ context.Context, tokenHash string, at time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.redeemed[tokenHash]; ok {
		return library.ErrInviteUsed()
	}
	r.redeemed[tokenHash] = at
	return nil
}
