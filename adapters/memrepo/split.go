package memrepo

import (
	"context"
	"strings"
	"time"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
)

// The library's ports are served by one in-memory Library; these views give
// each port its own method set over it.

// Holdings is the in-memory ports.HoldingsRepository.
type Holdings struct{ lib *Library }

func (h Holdings) CreateBook(ctx context.Context, b library.Book) error {
	return h.lib.CreateBook(ctx, b)
}
func (h Holdings) Book(ctx context.Context, schoolID, bookID string) (library.Book, error) {
	return h.lib.Book(ctx, schoolID, bookID)
}
func (h Holdings) BooksPage(ctx context.Context, q library.BookQuery) ([]library.Book, int, error) {
	return h.lib.BooksPage(ctx, q)
}
func (h Holdings) BooksByID(ctx context.Context, schoolID string, ids []string) ([]library.Book, error) {
	return h.lib.BooksByID(ctx, schoolID, ids)
}
func (h Holdings) CreateCopies(ctx context.Context, copies []library.Copy) ([]int, error) {
	return h.lib.CreateCopies(ctx, copies)
}
func (h Holdings) Copy(ctx context.Context, schoolID, copyID string) (library.Copy, error) {
	return h.lib.Copy(ctx, schoolID, copyID)
}
func (h Holdings) CopyByCode(ctx context.Context, schoolID, code string) (library.Copy, error) {
	return h.lib.CopyByCode(ctx, schoolID, code)
}
func (h Holdings) CopiesOfBook(ctx context.Context, schoolID, bookID string) ([]library.Copy, error) {
	return h.lib.CopiesOfBook(ctx, schoolID, bookID)
}
func (h Holdings) CopyCounts(ctx context.Context, schoolID string, bookIDs []string) (map[string]int, error) {
	return h.lib.CopyCountsOf(ctx, schoolID, bookIDs)
}

// Loans is the in-memory ports.LoanRepository.
type Loans struct{ lib *Library }

func (l Loans) Insert(ctx context.Context, loan library.Loan) error {
	return l.lib.InsertLoan(ctx, loan)
}
func (l Loans) Get(ctx context.Context, schoolID, loanID string) (library.Loan, error) {
	return l.lib.Loan(ctx, schoolID, loanID)
}
func (l Loans) ByIDs(ctx context.Context, ids []string) ([]library.Loan, error) {
	return l.lib.LoansByID(ctx, ids)
}
func (l Loans) Open(ctx context.Context, schoolID, studentID, bookID string) ([]library.Loan, error) {
	return l.lib.OpenLoans(ctx, schoolID, studentID, bookID)
}
func (l Loans) OfStudent(ctx context.Context, studentID string) ([]library.Loan, error) {
	return l.lib.LoansOfStudent(ctx, studentID)
}
func (l Loans) MarkReturned(ctx context.Context, loanID string, at time.Time) error {
	return l.lib.MarkReturned(ctx, loanID, at)
}
func (l Loans) Delete(ctx context.Context, loanID string) error { return l.lib.DeleteLoan(ctx, loanID) }
func (l Loans) AnonymizeStudent(ctx context.Context, studentID, marker string) error {
	return l.lib.AnonymizeStudent(ctx, studentID, marker)
}
func (l Loans) AddRenewal(ctx context.Context, r library.Renewal) error {
	return l.lib.AddRenewal(ctx, r)
}
func (l Loans) Renewals(ctx context.Context, loanIDs []string) ([]library.Renewal, error) {
	return l.lib.Renewals(ctx, loanIDs)
}

// ActiveLoans is the in-memory ports.ActiveLoanRepository.
type ActiveLoans struct{ lib *Library }

func (a ActiveLoans) Claim(ctx context.Context, c library.CopyClaim) error {
	return a.lib.ClaimCopy(ctx, c)
}
func (a ActiveLoans) Holder(ctx context.Context, copyID string) (library.CopyClaim, error) {
	return a.lib.Claim(ctx, copyID)
}
func (a ActiveLoans) ClaimsOfCopies(ctx context.Context, copyIDs []string) ([]library.CopyClaim, error) {
	return a.lib.ClaimsByCopy(ctx, copyIDs)
}
func (a ActiveLoans) ClaimsOfBooks(ctx context.Context, schoolID string, bookIDs []string) ([]library.CopyClaim, error) {
	return a.lib.ClaimsOfBooks(ctx, schoolID, bookIDs)
}
func (a ActiveLoans) Release(ctx context.Context, copyID, loanID string) error {
	return a.lib.ReleaseClaim(ctx, copyID, loanID)
}

// Invites is the in-memory ports.InviteRepository.
type Invites struct{ lib *Library }

func (i Invites) Create(ctx context.Context, inv library.Invite) error {
	return i.lib.CreateInvite(ctx, inv)
}
func (i Invites) Get(ctx context.Context, tokenHash string) (library.Invite, error) {
	return i.lib.Invite(ctx, tokenHash)
}
func (i Invites) Redeem(ctx context.Context, tokenHash string, at time.Time) error {
	return i.lib.RedeemInvite(ctx, tokenHash, at)
}
func (i Invites) DeleteByAccount(_ context.Context, accountID string) error {
	i.lib.mu.Lock()
	defer i.lib.mu.Unlock()
	for k, inv := range i.lib.invites {
		if inv.AccountID == accountID {
			delete(i.lib.invites, k)
		}
	}
	return nil
}

// Students is the in-memory ports.StudentRepository.
type Students struct {
	lib      *Library
	accounts *Accounts
}

func (s Students) ClaimNumber(ctx context.Context, schoolID, number, accountID string) error {
	return s.lib.ClaimStudentNumber(ctx, schoolID, number, accountID)
}

func (s Students) TakenNumbers(_ context.Context, schoolID string, numbers []string) ([]string, error) {
	s.lib.mu.Lock()
	defer s.lib.mu.Unlock()
	var out []string
	for _, n := range numbers {
		if _, ok := s.lib.numbers[schoolKey{schoolID, strings.ToLower(n)}]; ok {
			out = append(out, n)
		}
	}
	return out, nil
}

func (s Students) ReleaseNumbers(_ context.Context, accountID string) error {
	s.lib.mu.Lock()
	defer s.lib.mu.Unlock()
	for k, id := range s.lib.numbers {
		if id == accountID {
			delete(s.lib.numbers, k)
		}
	}
	return nil
}

func (s Students) Search(ctx context.Context, q library.StudentQuery) ([]user.Account, int, error) {
	all, _ := s.accounts.ListBySchool(ctx, q.SchoolID, []user.Role{user.RoleStudent})
	matched := all[:0]
	for _, a := range all {
		if !a.Deleted && hasAllTerms(catalog.SearchTerms(a.Name+" "+a.Email+" "+a.StudentNumber), q.Terms) {
			matched = append(matched, a)
		}
	}
	return pageOf(matched, q.Offset, q.Limit), len(matched), nil
}
