package porttest

// Reading store B back after a transfer, through the repositories: each
// record as it was seeded in A.

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// same calls get on A and on B, checks B's answer against A's, and returns
// B's for checks against what seedTransfer stored.
func same[T any](t *testing.T, call string, a, b ports.Repositories, get func(r ports.Repositories) (T, error), check func(t *testing.T, call string, got, want T)) T {
	t.Helper()
	want, err := get(a)
	must(t, call+" on A", err)
	got, err := get(b)
	must(t, call+" on B", err)
	check(t, call+" on B (compared with A)", got, want)
	return got
}

// inOrder checks slices element by element with check.
func inOrder[T any](check func(t *testing.T, call string, got, want T)) func(t *testing.T, call string, got, want []T) {
	return func(t *testing.T, call string, got, want []T) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s = %d results, want %d:\n got %+v\nwant %+v", call, len(got), len(want), got, want)
		}
		for i := range got {
			check(t, fmt.Sprintf("%s[%d]", call, i), got[i], want[i])
		}
	}
}

// anyOrder checks slices as sets: both sorted by key, then inOrder.
func anyOrder[T any](key func(T) string, check func(t *testing.T, call string, got, want T)) func(t *testing.T, call string, got, want []T) {
	return func(t *testing.T, call string, got, want []T) {
		t.Helper()
		g, w := slices.Clone(got), slices.Clone(want)
		byKey := func(x, y T) int { return strings.Compare(key(x), key(y)) }
		slices.SortFunc(g, byKey)
		slices.SortFunc(w, byKey)
		inOrder(check)(t, call, g, w)
	}
}

func checkEqual[T any](t *testing.T, call string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %+v, want %+v", call, got, want)
	}
}

func checkTime(t *testing.T, call string, got, want time.Time) {
	t.Helper()
	if !sameTime(got, want) {
		t.Errorf("%s = %v, want %v (at ms precision)", call, got, want)
	}
}

func checkKey(t *testing.T, call string, got, want auth.SigningKey) {
	t.Helper()
	if !sameKey(got, want) {
		t.Errorf("%s = key %s (%s, %q, %v), want %s (%s, %q, %v)", call,
			got.ID, got.Algorithm, got.PrivateKeyPEM, got.CreatedAt, want.ID, want.Algorithm, want.PrivateKeyPEM, want.CreatedAt)
	}
}

func checkRenewal(t *testing.T, call string, got, want library.Renewal) {
	t.Helper()
	checkTime(t, call+" RenewedAt", got.RenewedAt, want.RenewedAt)
	got.RenewedAt = want.RenewedAt
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func checkInvite(t *testing.T, call string, got, want library.Invite) {
	t.Helper()
	if !sameTime(got.ExpiresAt, want.ExpiresAt) || !sameTime(got.CreatedAt, want.CreatedAt) {
		t.Errorf("%s: times = %v, %v, want %v, %v (at ms precision)", call, got.ExpiresAt, got.CreatedAt, want.ExpiresAt, want.CreatedAt)
	}
	got.ExpiresAt, got.CreatedAt = want.ExpiresAt, want.CreatedAt
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func testTransferReadBack(t *testing.T, a, b ports.Repositories, s *transferSeed) {
	alder, birch := s.schools[0], s.schools[1]

	t.Run("Schools", func(t *testing.T) {
		c := ctx(t)
		for _, want := range s.schools {
			got := same(t, "Schools.Get "+want.Name, a, b, func(r ports.Repositories) (library.School, error) { return r.Schools.Get(c, want.ID) }, checkSchool)
			checkSchool(t, "Schools.Get "+want.Name, got, want)
			got = same(t, "Schools.GetByDomain "+want.Domain, a, b, func(r ports.Repositories) (library.School, error) { return r.Schools.GetByDomain(c, want.Domain) }, checkSchool)
			checkSchool(t, "Schools.GetByDomain "+want.Domain, got, want)
		}
		list := same(t, "Schools.List", a, b, func(r ports.Repositories) ([]library.School, error) { return r.Schools.List(c) }, inOrder(checkSchool))
		inOrder(checkSchool)(t, "Schools.List", list, s.schools)
	})

	t.Run("Accounts", func(t *testing.T) {
		c := ctx(t)
		for _, want := range s.accounts {
			got := same(t, "Accounts.Get "+want.Name, a, b, func(r ports.Repositories) (user.Account, error) { return r.Accounts.Get(c, want.ID) }, checkAccount)
			checkAccount(t, "Accounts.Get "+want.Name, got, want)
			if want.Email == "" {
				continue
			}
			got = same(t, "Accounts.GetByEmail "+want.Email, a, b, func(r ports.Repositories) (user.Account, error) { return r.Accounts.GetByEmail(c, want.Email) }, checkAccount)
			checkAccount(t, "Accounts.GetByEmail "+want.Email, got, want)
		}
		byID := func(x user.Account) string { return x.ID }
		all := same(t, "Accounts.GetMany", a, b, func(r ports.Repositories) ([]user.Account, error) {
			return r.Accounts.GetMany(c, accountIDs(s.accounts))
		}, anyOrder(byID, checkAccount))
		anyOrder(byID, checkAccount)(t, "Accounts.GetMany", all, s.accounts)
		roles := []user.Role{user.RoleStaff, user.RoleLibrarian, user.RoleStudent}
		staffAndStudents := same(t, "Accounts.ListBySchool", a, b, func(r ports.Repositories) ([]user.Account, error) { return r.Accounts.ListBySchool(c, alder.ID, roles) }, inOrder(checkAccount))
		anyOrder(byID, checkAccount)(t, "Accounts.ListBySchool", staffAndStudents, []user.Account{s.librarian, s.gone, s.pupil, s.student})
		deleted := same(t, "Accounts.ListDeleted", a, b, func(r ports.Repositories) ([]user.Account, error) { return r.Accounts.ListDeleted(c) }, inOrder(checkAccount))
		inOrder(checkAccount)(t, "Accounts.ListDeleted", deleted, []user.Account{s.gone})
		n := same(t, "Accounts.Count", a, b, func(r ports.Repositories) (int64, error) { return r.Accounts.Count(c) }, checkEqual)
		checkEqual(t, "Accounts.Count", n, int64(len(s.accounts)))

		// The student search runs on what the store derives from name,
		// email and number: it must have been derived on the way in.
		for _, q := range []struct {
			search string
			want   []user.Account
		}{
			{"", []user.Account{s.student, s.pupil}},
			{"emile", []user.Account{s.pupil}},
			{"ab 7", []user.Account{s.pupil}},
			{"2024", []user.Account{s.student}},
			{"lena@alder", []user.Account{s.student}},
			{"grace", nil}, // deleted
		} {
			call := fmt.Sprintf("Students.Search %q", q.search)
			query := library.StudentQuery{SchoolID: alder.ID, Terms: catalog.QueryTerms(q.search), Limit: 10}
			type page struct {
				Accounts []user.Account
				Total    int
			}
			got := same(t, call, a, b, func(r ports.Repositories) (page, error) {
				list, total, err := r.Students.Search(c, query)
				return page{list, total}, err
			}, func(t *testing.T, call string, got, want page) {
				t.Helper()
				checkEqual(t, call+" total", got.Total, want.Total)
				inOrder(checkAccount)(t, call, got.Accounts, want.Accounts)
			})
			checkEqual(t, call+" total", got.Total, len(q.want))
			anyOrder(byID, checkAccount)(t, call, got.Accounts, q.want)
		}
	})

	t.Run("RefreshTokens", func(t *testing.T) {
		c := ctx(t)
		for i, want := range s.tokens {
			call := fmt.Sprintf("RefreshTokens.Get #%d", i)
			got := same(t, call, a, b, func(r ports.Repositories) (auth.RefreshToken, error) { return r.RefreshTokens.Get(c, want.Hash) }, checkToken)
			checkToken(t, call, got, want)
		}
		for i, want := range s.rotatedAt {
			call := fmt.Sprintf("RefreshTokens.RotatedAt #%d", i)
			got := same(t, call, a, b, func(r ports.Repositories) (time.Time, error) { return r.RefreshTokens.RotatedAt(c, s.tokens[i].Hash) }, checkTime)
			checkTime(t, call, got, want)
		}
		_, err := b.RefreshTokens.RotatedAt(c, s.tokens[2].Hash)
		wantErr(t, "RefreshTokens.RotatedAt of a token never rotated, on B", err, errs.NotFound, "rotation_not_found")
		for i, family := range s.families {
			call := fmt.Sprintf("RefreshTokens.FamilyRevoked #%d", i)
			got := same(t, call, a, b, func(r ports.Repositories) (bool, error) { return r.RefreshTokens.FamilyRevoked(c, family) }, checkEqual)
			checkEqual(t, call, got, i > 0)
		}
	})

	t.Run("SigningKeys", func(t *testing.T) {
		c := ctx(t)
		keys := same(t, "SigningKeys.List", a, b, func(r ports.Repositories) ([]auth.SigningKey, error) { return r.SigningKeys.List(c) }, inOrder(checkKey))
		inOrder(checkKey)(t, "SigningKeys.List (the active key first)", keys, s.keys)
	})

	t.Run("Books", func(t *testing.T) {
		c := ctx(t)
		for i, want := range s.books {
			got := same(t, "Books.Get "+want.Title, a, b, func(r ports.Repositories) (catalog.Book, error) { return r.Books.Get(c, want.ID) }, checkBook)
			checkBook(t, "Books.Get "+want.Title, got, want)
			texts := same(t, "Books.ChapterTexts "+want.Title, a, b, func(r ports.Repositories) ([]catalog.ChapterText, error) { return r.Books.ChapterTexts(c, want.ID) }, checkTexts)
			checkTexts(t, "Books.ChapterTexts "+want.Title, texts, s.texts[i])
			last := s.texts[i][len(s.texts[i])-1]
			text := same(t, "Books.ChapterText "+want.Title, a, b, func(r ports.Repositories) (catalog.ChapterText, error) {
				return r.Books.ChapterText(c, want.ID, last.ChapterID)
			}, checkEqual)
			checkEqual(t, "Books.ChapterText "+want.Title, text, last)
		}
		type page struct {
			Books []catalog.Book
			Total int64
		}
		for _, q := range []struct {
			query catalog.Query
			want  []catalog.Book
		}{
			{catalog.Query{}, s.books},
			{catalog.Query{Terms: catalog.QueryTerms("lantern quill")}, s.books[:1]},
			{catalog.Query{Terms: catalog.QueryTerms("brandt")}, s.books[1:]},
			{catalog.Query{Sort: catalog.SortRatingDesc, Genre: "adventure"}, s.books[:1]},
		} {
			q.query.Page, q.query.Limit = 1, 10
			call := fmt.Sprintf("Books.List %+v", q.query)
			got := same(t, call, a, b, func(r ports.Repositories) (page, error) {
				books, total, err := r.Books.List(c, q.query)
				return page{books, total}, err
			}, func(t *testing.T, call string, got, want page) {
				t.Helper()
				checkEqual(t, call+" total", got.Total, want.Total)
				inOrder(checkBook)(t, call, got.Books, want.Books)
			})
			checkEqual(t, call+" total", got.Total, int64(len(q.want)))
			inOrder(checkBook)(t, call, got.Books, q.want)
		}
		n := same(t, "Books.Count", a, b, func(r ports.Repositories) (int64, error) { return r.Books.Count(c) }, checkEqual)
		checkEqual(t, "Books.Count", n, int64(len(s.books)))
	})

	t.Run("ReadingLists", func(t *testing.T) {
		c := ctx(t)
		for _, want := range s.items {
			got := same(t, "ReadingLists.Get", a, b, func(r ports.Repositories) (catalog.ListItem, error) {
				return r.ReadingLists.Get(c, want.AccountID, want.BookID)
			}, checkItem)
			checkItem(t, "ReadingLists.Get", got, want)
		}
		items := same(t, "ReadingLists.List", a, b, func(r ports.Repositories) ([]catalog.ListItem, error) {
			return r.ReadingLists.List(c, s.student.ID, "")
		}, inOrder(checkItem))
		anyOrder(func(x catalog.ListItem) string { return x.ID }, checkItem)(t, "ReadingLists.List", items, s.items)
		readers := same(t, "ReadingLists.ReadersByBook", a, b, func(r ports.Repositories) (map[string]int, error) {
			return r.ReadingLists.ReadersByBook(c, bookIDs(s.books))
		}, checkEqual)
		checkEqual(t, "ReadingLists.ReadersByBook", readers, map[string]int{s.books[0].ID: 1, s.books[1].ID: 1})
	})

	t.Run("Progress", func(t *testing.T) {
		c := ctx(t)
		for _, want := range s.progress {
			got := same(t, "Progress.Get", a, b, func(r ports.Repositories) (catalog.Progress, error) {
				return r.Progress.Get(c, want.AccountID, want.BookID)
			}, checkProgress)
			checkProgress(t, "Progress.Get", got, want)
		}
		byBook := func(p catalog.Progress) string { return p.BookID }
		all := same(t, "Progress.ListByAccount", a, b, func(r ports.Repositories) ([]catalog.Progress, error) {
			return r.Progress.ListByAccount(c, s.student.ID)
		}, inOrder(checkProgress))
		anyOrder(byBook, checkProgress)(t, "Progress.ListByAccount", all, s.progress)
		sessions := same(t, "Progress.Sessions", a, b, func(r ports.Repositories) ([]catalog.ReadingSession, error) {
			return r.Progress.Sessions(c, s.student.ID)
		}, inOrder(checkSession))
		inOrder(checkSession)(t, "Progress.Sessions", sessions, s.sessions)
		for i, want := range []int64{420, 600} {
			book := s.books[i].ID
			got := same(t, "Progress.TotalSeconds", a, b, func(r ports.Repositories) (int64, error) { return r.Progress.TotalSeconds(c, s.student.ID, book) }, checkEqual)
			checkEqual(t, "Progress.TotalSeconds of "+s.books[i].Title, got, want)
		}
	})

	t.Run("Holdings", func(t *testing.T) {
		c := ctx(t)
		for _, want := range s.libBooks {
			got := same(t, "Holdings.Book "+want.Title, a, b, func(r ports.Repositories) (library.Book, error) { return r.Holdings.Book(c, want.SchoolID, want.ID) }, checkLibBook)
			checkLibBook(t, "Holdings.Book "+want.Title, got, want)
		}
		type page struct {
			Books []library.Book
			Total int
		}
		// The search runs on what the store derives from title and author
		// (folded: "langs" finds "Långstrump").
		for _, q := range []struct {
			school library.School
			search string
			want   []library.Book
		}{
			{alder, "", s.libBooks[:2]},
			{alder, "langs pip", s.libBooks[1:2]},
			{alder, "dahl", s.libBooks[:1]},
			{birch, "matilda", s.libBooks[2:]},
		} {
			call := fmt.Sprintf("Holdings.BooksPage %s %q", q.school.Name, q.search)
			query := library.BookQuery{SchoolID: q.school.ID, Terms: catalog.QueryTerms(q.search), Limit: 10}
			got := same(t, call, a, b, func(r ports.Repositories) (page, error) {
				books, total, err := r.Holdings.BooksPage(c, query)
				return page{books, total}, err
			}, func(t *testing.T, call string, got, want page) {
				t.Helper()
				checkEqual(t, call+" total", got.Total, want.Total)
				inOrder(checkLibBook)(t, call, got.Books, want.Books)
			})
			checkEqual(t, call+" total", got.Total, len(q.want))
			inOrder(checkLibBook)(t, call, got.Books, q.want)
		}
		byID := func(x library.Book) string { return x.ID }
		books := same(t, "Holdings.BooksByID", a, b, func(r ports.Repositories) ([]library.Book, error) {
			return r.Holdings.BooksByID(c, alder.ID, libBookIDs(s.libBooks))
		}, anyOrder(byID, checkLibBook))
		anyOrder(byID, checkLibBook)(t, "Holdings.BooksByID", books, s.libBooks[:2])
		for _, want := range s.copies {
			got := same(t, "Holdings.Copy "+want.Code, a, b, func(r ports.Repositories) (library.Copy, error) { return r.Holdings.Copy(c, alder.ID, want.ID) }, checkCopy)
			checkCopy(t, "Holdings.Copy "+want.Code, got, want)
			got = same(t, "Holdings.CopyByCode "+want.Code, a, b, func(r ports.Repositories) (library.Copy, error) { return r.Holdings.CopyByCode(c, alder.ID, want.Code) }, checkCopy)
			checkCopy(t, "Holdings.CopyByCode "+want.Code, got, want)
		}
		copies := same(t, "Holdings.CopiesOfBook", a, b, func(r ports.Repositories) ([]library.Copy, error) {
			return r.Holdings.CopiesOfBook(c, alder.ID, s.libBooks[0].ID)
		}, inOrder(checkCopy))
		inOrder(checkCopy)(t, "Holdings.CopiesOfBook", copies, s.copies[:2])
		copyCounts := same(t, "Holdings.CopyCounts", a, b, func(r ports.Repositories) (map[string]int, error) {
			return r.Holdings.CopyCounts(c, alder.ID, libBookIDs(s.libBooks))
		}, checkEqual)
		checkEqual(t, "Holdings.CopyCounts", copyCounts, map[string]int{s.libBooks[0].ID: 2, s.libBooks[1].ID: 1})
	})

	t.Run("Loans", func(t *testing.T) {
		c := ctx(t)
		loans := []library.Loan{s.open, s.returned, s.incomplete}
		for _, want := range loans {
			got := same(t, "Loans.Get", a, b, func(r ports.Repositories) (library.Loan, error) { return r.Loans.Get(c, alder.ID, want.ID) }, checkLoan)
			checkLoan(t, "Loans.Get", got, want)
		}
		byID := func(l library.Loan) string { return l.ID }
		all := same(t, "Loans.ByIDs", a, b, func(r ports.Repositories) ([]library.Loan, error) { return r.Loans.ByIDs(c, loanIDs(loans)) }, anyOrder(byID, checkLoan))
		anyOrder(byID, checkLoan)(t, "Loans.ByIDs", all, loans)
		open := same(t, "Loans.Open", a, b, func(r ports.Repositories) ([]library.Loan, error) { return r.Loans.Open(c, alder.ID, "", "") }, inOrder(checkLoan))
		inOrder(checkLoan)(t, "Loans.Open (the returned loan left out)", open, []library.Loan{s.open, s.incomplete})
		ofStudent := same(t, "Loans.OfStudent", a, b, func(r ports.Repositories) ([]library.Loan, error) { return r.Loans.OfStudent(c, s.student.ID) }, inOrder(checkLoan))
		inOrder(checkLoan)(t, "Loans.OfStudent (newest first)", ofStudent, []library.Loan{s.incomplete, s.open})
		ofPupil := same(t, "Loans.OfStudent", a, b, func(r ports.Repositories) ([]library.Loan, error) { return r.Loans.OfStudent(c, s.pupil.ID) }, inOrder(checkLoan))
		inOrder(checkLoan)(t, "Loans.OfStudent of the pupil", ofPupil, []library.Loan{s.returned})
		renewals := same(t, "Loans.Renewals", a, b, func(r ports.Repositories) ([]library.Renewal, error) { return r.Loans.Renewals(c, loanIDs(loans)) }, inOrder(checkRenewal))
		anyOrder(func(x library.Renewal) string { return fmt.Sprintf("%s#%03d", x.LoanID, x.Number) }, checkRenewal)(t, "Loans.Renewals", renewals, s.renewals)
	})

	t.Run("ActiveLoans", func(t *testing.T) {
		c := ctx(t)
		for _, want := range s.claims {
			got := same(t, "ActiveLoans.Holder", a, b, func(r ports.Repositories) (library.CopyClaim, error) { return r.ActiveLoans.Holder(c, want.CopyID) }, checkClaim)
			checkClaim(t, "ActiveLoans.Holder", got, want)
		}
		_, err := b.ActiveLoans.Holder(c, s.copies[2].ID)
		wantErr(t, "ActiveLoans.Holder of a copy never claimed, on B", err, errs.NotFound, "claim_not_found")
		byCopy := func(x library.CopyClaim) string { return x.CopyID }
		copyIDs := []string{s.copies[0].ID, s.copies[1].ID, s.copies[2].ID}
		got := same(t, "ActiveLoans.ClaimsOfCopies", a, b, func(r ports.Repositories) ([]library.CopyClaim, error) {
			return r.ActiveLoans.ClaimsOfCopies(c, copyIDs)
		}, anyOrder(byCopy, checkClaim))
		wantClaimSet(t, "ActiveLoans.ClaimsOfCopies", got, s.claims...)
		got = same(t, "ActiveLoans.ClaimsOfBooks", a, b, func(r ports.Repositories) ([]library.CopyClaim, error) {
			return r.ActiveLoans.ClaimsOfBooks(c, alder.ID, libBookIDs(s.libBooks))
		}, anyOrder(byCopy, checkClaim))
		wantClaimSet(t, "ActiveLoans.ClaimsOfBooks", got, s.claims...)
	})

	t.Run("Students", func(t *testing.T) {
		c := ctx(t)
		asked := []string{"ab-7", "2024-017", "zz-1"}
		taken := same(t, "Students.TakenNumbers", a, b, func(r ports.Repositories) ([]string, error) { return r.Students.TakenNumbers(c, alder.ID, asked) }, anyOrder(func(x string) string { return x }, checkEqual))
		anyOrder(func(x string) string { return x }, checkEqual)(t, "Students.TakenNumbers (as stored)", taken, []string{s.pupil.StudentNumber, s.student.StudentNumber})
	})

	t.Run("Invites", func(t *testing.T) {
		c := ctx(t)
		for _, want := range s.invites {
			got := same(t, "Invites.Get", a, b, func(r ports.Repositories) (library.Invite, error) { return r.Invites.Get(c, want.TokenHash) }, checkInvite)
			checkInvite(t, "Invites.Get", got, want)
		}
	})

	t.Run("ExternalIdentities", func(t *testing.T) {
		c := ctx(t)
		for _, want := range s.links {
			call := "ExternalIdentities.Get " + want.Subject
			got := same(t, call, a, b, func(r ports.Repositories) (user.ExternalIdentity, error) {
				return r.ExternalIdentities.Get(c, want.Issuer, want.Subject)
			}, checkLink)
			checkLink(t, call, got, want)
		}
	})

	t.Run("Holds", func(t *testing.T) {
		c := ctx(t)
		ids := make([]string, len(s.holds))
		for i, h := range s.holds {
			ids[i] = h.ID
		}
		for _, st := range []user.Account{s.student, s.pupil} {
			got := same(t, "Holds.OfStudent", a, b, func(r ports.Repositories) ([]library.Hold, error) { return r.Holds.OfStudent(c, st.ID, 10) }, checkEqual)
			if len(got) != 2 {
				t.Errorf("Holds.OfStudent on B = %d holds, want 2", len(got))
			}
		}
		for _, book := range s.libBooks[:2] {
			got := same(t, "Holds.Queue", a, b, func(r ports.Repositories) ([]library.HoldQueueEntry, error) {
				return r.Holds.Queue(c, alder.ID, book.ID, library.HoldQueueEntry{}, 10)
			}, checkEqual)
			if len(got) != 1 {
				t.Errorf("Holds.Queue of %s on B = %+v, want one entry", book.Title, got)
			}
		}
		traps := same(t, "Holds.TrapsOfHolds", a, b, func(r ports.Repositories) ([]library.HoldTrap, error) { return r.Holds.TrapsOfHolds(c, ids) },
			anyOrder(func(tr library.HoldTrap) string { return tr.CopyID }, checkEqual[library.HoldTrap]))
		ends := same(t, "Holds.Ends", a, b, func(r ports.Repositories) ([]library.HoldEnd, error) { return r.Holds.Ends(c, ids) },
			anyOrder(func(e library.HoldEnd) string { return e.HoldID }, checkEqual[library.HoldEnd]))
		if len(traps) != 2 || len(ends) != 2 {
			t.Errorf("on B: %d traps and %d ends, want 2 and 2", len(traps), len(ends))
		}
	})
	t.Run("MailTokens", func(t *testing.T) {
		c := ctx(t)
		for _, want := range s.mailTokens {
			call := "MailTokens.Get " + string(want.Purpose)
			got := same(t, call, a, b, func(r ports.Repositories) (auth.MailToken, error) {
				return r.MailTokens.Get(c, want.Hash, want.Purpose)
			}, checkMailToken)
			checkMailToken(t, call, got, want)
		}
		_, err := b.MailTokens.Get(c, s.usedToken.Hash, s.usedToken.Purpose)
		wantErr(t, "MailTokens.Get of a token used before the copy, on B", err, errs.NotFound, "mail_token_not_found")
	})

	t.Run("Notices", func(t *testing.T) {
		c := ctx(t)
		for i, want := range s.noticeSettings {
			got := same(t, "Notices.Settings", a, b, func(r ports.Repositories) (library.NoticeSettings, error) {
				return r.Notices.Settings(c, s.schools[i].ID)
			}, checkEqual)
			checkEqual(t, "Notices.Settings "+s.schools[i].Name, got, want)
		}
		rooms := same(t, "Homerooms", a, b, func(r ports.Repositories) ([]library.Homeroom, error) { return r.Homerooms.Homerooms(c, alder.ID) }, checkEqual)
		checkEqual(t, "Homerooms of Alder", rooms, s.homerooms)
		notices := same(t, "Notices.OfSubject", a, b, func(r ports.Repositories) ([]library.Notice, error) {
			return r.Notices.OfSubject(c, s.open.ID)
		}, inOrder(checkNotice))
		inOrder(checkNotice)(t, "Notices.OfSubject of the open loan", notices, s.notices)
		for _, day := range s.noticeDays {
			done, err := b.Notices.DayFinished(c, alder.ID, day)
			must(t, "DayFinished on B", err)
			if !done {
				t.Errorf("DayFinished %s on B = false, want the copied day", day)
			}
		}
		// The copied claims still claim: a run after the move sends neither again.
		won, err := b.Notices.Claim(c, s.notices)
		must(t, "Notices.Claim of copied notices on B", err)
		if len(won) != 0 {
			t.Errorf("Notices.Claim of copied notices on B won %v, want none", won)
		}
	})

	t.Run("Charges", func(t *testing.T) {
		c := ctx(t)
		for i, want := range s.charges {
			got := same(t, "Charges.Get", a, b, func(r ports.Repositories) (library.Charge, error) {
				return r.Charges.Get(c, want.SchoolID, want.ID)
			}, checkCharge)
			checkCharge(t, "Charges.Get", got, want)
			sts, err := b.Charges.Settlements(c, []string{want.ID})
			must(t, "Charges.Settlements on B", err)
			if len(sts) != 1 || sts[0].Outcome != s.settlements[i].Outcome || sts[0].By != s.settlements[i].By || !sameTime(sts[0].SettledAt, s.settlements[i].SettledAt) {
				t.Errorf("Settlements of %s on B = %+v, want %+v", want.ID, sts, s.settlements[i])
			}
			wantErr(t, "Charges.Insert of a copied charge", b.Charges.Insert(c, want), errs.Conflict, "charge_exists")
			wantErr(t, "Charges.Settle of a copied settlement", b.Charges.Settle(c, s.settlements[i]), errs.Conflict, "charge_settled")
		}
		for _, want := range s.endings {
			got, err := b.Loans.Ending(c, want.LoanID)
			must(t, "Loans.Ending on B", err)
			if got.Outcome != want.Outcome || !sameTime(got.At, want.At) {
				t.Errorf("Ending of %s on B = %+v, want %+v", want.LoanID, got, want)
			}
			wantErr(t, "Loans.ClaimEnding of a copied ending", b.Loans.ClaimEnding(c, want), errs.Conflict, "loan_ended")
		}
		cp, err := b.Holdings.Copy(c, s.copies[2].SchoolID, s.copies[2].ID)
		must(t, "Holdings.Copy on B", err)
		if cp.Condition.Condition != library.ConditionLost || cp.Condition.LoanID != s.incomplete.ID || !sameTime(cp.Condition.At, base.Add(time.Hour)) {
			t.Errorf("the lost copy's condition on B = %+v", cp.Condition)
		}
	})

	t.Run("Stocktakes", func(t *testing.T) {
		c := ctx(t)
		for i, want := range s.stocktakes {
			got, err := b.Stocktakes.Get(c, want.SchoolID, want.ID)
			must(t, "Stocktakes.Get on B", err)
			if got.From != want.From || got.To != want.To || got.OpenedBy != want.OpenedBy || !sameTime(got.OpenedAt, want.OpenedAt) ||
				got.Closed() != want.Closed() || (want.Closed() && !sameTime(got.ClosedAt, want.ClosedAt)) {
				t.Errorf("Stocktakes.Get on B = %+v, want %+v", got, want)
			}
			sc := s.scans[i]
			gotScan, err := b.Stocktakes.Scan(c, sc.StocktakeID, sc.CopyID)
			must(t, "Stocktakes.Scan on B", err)
			if gotScan.Code != sc.Code || gotScan.BookID != sc.BookID || gotScan.By != sc.By || !sameTime(gotScan.ScannedAt, sc.ScannedAt) {
				t.Errorf("Stocktakes.Scan on B = %+v, want %+v", gotScan, sc)
			}
			wantErr(t, "Stocktakes.AddScan of a copied scan", b.Stocktakes.AddScan(c, sc), errs.Conflict, "scan_exists")
		}
	})

	t.Run("WantToRead", func(t *testing.T) {
		got, err := b.WantToRead.OfStudent(ctx(t), s.student.ID, library.MaxWantToRead)
		must(t, "WantToRead.OfStudent on B", err)
		if len(got) != len(s.wants) {
			t.Fatalf("WantToRead.OfStudent on B = %+v, want %+v", got, s.wants)
		}
		for i, want := range s.wants {
			g := got[len(got)-1-i] // newest first
			if g.BookID != want.BookID || g.SchoolID != want.SchoolID || !sameTime(g.AddedAt, want.AddedAt) {
				t.Errorf("WantToRead on B = %+v, want %+v", g, want)
			}
		}
		if added, err := b.WantToRead.Add(ctx(t), s.wants[0]); err != nil || added {
			t.Errorf("WantToRead.Add of a copied entry = %v, %v; want it there already", added, err)
		}
	})

	t.Run("Reviews", func(t *testing.T) {
		for _, want := range s.reviews {
			got, err := b.Reviews.Get(ctx(t), want.SchoolID, want.ID)
			must(t, "Reviews.Get on B", err)
			checkReview(t, "Reviews.Get on B", got, want)
		}
	})

	t.Run("Covers", func(t *testing.T) {
		for _, want := range s.covers {
			got, err := b.Covers.Get(ctx(t), want.SchoolID, want.BookID)
			must(t, "Covers.Get on B", err)
			checkCover(t, "Covers.Get on B", got, want)
		}
	})

	t.Run("FinishedLoans", func(t *testing.T) {
		got, err := b.FinishedLoans.OfLoans(ctx(t), finishedIDs(s.finished))
		must(t, "FinishedLoans.OfLoans on B", err)
		byLoan := map[string]library.FinishedLoan{}
		for _, f := range got {
			byLoan[f.LoanID] = f
		}
		for _, want := range s.finished {
			checkFinished(t, "FinishedLoans on B", byLoan[want.LoanID], want)
		}
		if stored, err := b.FinishedLoans.Claim(ctx(t), s.finished[0]); err != nil || stored {
			t.Errorf("FinishedLoans.Claim of a copied record = %v, %v; want it there already", stored, err)
		}
	})

	// The choices, and the keys of the books they join, which Write
	// derives as the repositories do.
	t.Run("AppLinks", func(t *testing.T) {
		c := ctx(t)
		bookIDs := []string{s.libBooks[0].ID, s.libBooks[1].ID}
		got := same(t, "AppLinks.ChoicesForBooks", a, b, func(r ports.Repositories) ([]library.AppLinkChoice, error) {
			return r.AppLinks.ChoicesForBooks(c, alder.ID, bookIDs)
		}, anyOrder(choiceKey, checkChoice))
		anyOrder(choiceKey, checkChoice)(t, "AppLinks.ChoicesForBooks", got, s.appLinks)
		got = same(t, "AppLinks.ChoicesForAppBook", a, b, func(r ports.Repositories) ([]library.AppLinkChoice, error) {
			return r.AppLinks.ChoicesForAppBook(c, alder.ID, s.books[0].ID, 10)
		}, anyOrder(choiceKey, checkChoice))
		anyOrder(choiceKey, checkChoice)(t, "AppLinks.ChoicesForAppBook", got, s.appLinks[:1])

		matilda := s.libBooks[0]
		lib := same(t, "AppLinks.LibraryBooksByWorkKeys", a, b, func(r ports.Repositories) ([]library.Book, error) {
			return r.AppLinks.LibraryBooksByWorkKeys(c, alder.ID, []string{catalog.WorkKey(matilda.Title, matilda.Author)}, 10)
		}, inOrder(checkLibBook))
		inOrder(checkLibBook)(t, "AppLinks.LibraryBooksByWorkKeys", lib, []library.Book{matilda})
		for _, want := range s.books {
			byKey := same(t, "AppLinks.AppBooksByWorkKeys "+want.Title, a, b, func(r ports.Repositories) ([]catalog.Book, error) {
				return r.AppLinks.AppBooksByWorkKeys(c, []string{catalog.WorkKey(want.Title, want.Author)}, 10)
			}, inOrder(checkBook))
			inOrder(checkBook)(t, "AppLinks.AppBooksByWorkKeys "+want.Title, byKey, []catalog.Book{want})
		}
	})

	// The log reads back whole, newest first, on both stores.
	t.Run("AuditLog", func(t *testing.T) {
		got := same(t, "AuditLog.Page", a, b, func(r ports.Repositories) ([]library.AuditEntry, error) {
			return r.AuditLog.Page(ctx(t), library.AuditQuery{}, 10)
		}, inOrder(checkAuditEntry))
		inOrder(checkAuditEntry)(t, "AuditLog.Page", got, []library.AuditEntry{s.audit[1], s.audit[0]})
	})

	// Each kiosk signs in on B by its copied login, and lists in its school.
	t.Run("Kiosks", func(t *testing.T) {
		c := ctx(t)
		for _, want := range s.kiosks {
			got := same(t, "Kiosks.KioskByLogin "+want.Login, a, b, func(r ports.Repositories) (library.Kiosk, error) {
				return r.Kiosks.KioskByLogin(c, want.Login)
			}, checkKiosk)
			checkKiosk(t, "Kiosks.KioskByLogin "+want.Login, got, want)
			list := same(t, "Kiosks.KiosksOfSchool", a, b, func(r ports.Repositories) ([]library.Kiosk, error) {
				return r.Kiosks.KiosksOfSchool(c, want.SchoolID, library.MaxKiosksPerSchool)
			}, inOrder(checkKiosk))
			inOrder(checkKiosk)(t, "Kiosks.KiosksOfSchool", list, []library.Kiosk{want})
		}
	})

	// Each scan reads back on B with its outcome, and the conflict lists
	// as the school's one to settle.
	t.Run("OfflineOps", func(t *testing.T) {
		c := ctx(t)
		for _, want := range s.offlineOps {
			got := same(t, "OfflineOps.OfflineOp "+want.Code, a, b, func(r ports.Repositories) (library.OfflineOp, error) {
				return r.OfflineOps.OfflineOp(c, want.SchoolID, want.ID)
			}, checkOfflineOp)
			checkOfflineOp(t, "OfflineOps.OfflineOp "+want.Code, got, want)
		}
		for _, want := range s.offlineOps {
			list := same(t, "OfflineOps.OfflineOpsWithStatus "+want.Status, a, b, func(r ports.Repositories) ([]library.OfflineOp, error) {
				ops, n, err := r.OfflineOps.OfflineOpsWithStatus(c, alder.ID, want.Status, 0, 10)
				if err == nil && n != 1 {
					t.Errorf("OfflineOps.OfflineOpsWithStatus %s total = %d, want 1", want.Status, n)
				}
				return ops, err
			}, inOrder(checkOfflineOp))
			inOrder(checkOfflineOp)(t, "OfflineOps.OfflineOpsWithStatus "+want.Status, list, []library.OfflineOp{want})
		}
	})

	t.Run("ImportJobs", func(t *testing.T) {
		c := ctx(t)
		for _, want := range s.importJobs {
			got, err := b.ImportJobs.Get(c, want.SchoolID, want.ID)
			must(t, "ImportJobs.Get on B", err)
			checkImportJob(t, "ImportJobs.Get on B", got, want)
		}
	})
}

// checkImportJob compares two jobs, times to the stores' millisecond.
func checkImportJob(t *testing.T, call string, got, want library.ImportJob) {
	t.Helper()
	checkTime(t, call+" StartedAt", got.StartedAt, want.StartedAt)
	checkTime(t, call+" LeaseUntil", got.LeaseUntil, want.LeaseUntil)
	checkTime(t, call+" FinishedAt", got.FinishedAt, want.FinishedAt)
	got.StartedAt, got.LeaseUntil, got.FinishedAt = want.StartedAt, want.LeaseUntil, want.FinishedAt
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func checkNotice(t *testing.T, call string, got, want library.Notice) {
	t.Helper()
	checkTime(t, call+" ClaimedAt", got.ClaimedAt, want.ClaimedAt)
	checkTime(t, call+" SentAt", got.SentAt, want.SentAt)
	got.ClaimedAt, got.SentAt = want.ClaimedAt, want.SentAt
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func checkLink(t *testing.T, call string, got, want user.ExternalIdentity) {
	t.Helper()
	checkTime(t, call+" CreatedAt", got.CreatedAt, want.CreatedAt)
	got.CreatedAt = want.CreatedAt
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}
