package porttest

import (
	"testing"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

// testLibBookCategory: a book's loan category is stored on create, read by
// every read of the book, and changed only within its school.
func testLibBookCategory(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	ref := newLibBook(schoolA, "", "Atlas")
	ref.LoanCategory = library.CategoryReference
	must(t, "CreateBook reference", r.Holdings.CreateBook(ctx(t), ref))
	plain := createLibBook(t, r, schoolA, "", "Novel")
	got, err := r.Holdings.Book(ctx(t), schoolA, ref.ID)
	must(t, "Book reference", err)
	checkLibBook(t, "Book reference", got, ref)
	got, err = r.Holdings.Book(ctx(t), schoolA, plain.ID)
	must(t, "Book plain", err)
	if got.LoanCategory != library.CategoryStandard {
		t.Errorf("a book created without a category reads as %q, want standard", got.LoanCategory)
	}

	must(t, "SetBookCategory short", r.Holdings.SetBookCategory(ctx(t), schoolA, plain.ID, library.CategoryShort))
	plain.LoanCategory = library.CategoryShort
	byID, err := r.Holdings.BooksByID(ctx(t), schoolA, []string{plain.ID, ref.ID})
	must(t, "BooksByID", err)
	if len(byID) != 2 {
		t.Fatalf("BooksByID = %d books, want 2", len(byID))
	}
	for _, b := range byID {
		want := plain
		if b.ID == ref.ID {
			want = ref
		}
		checkLibBook(t, "BooksByID after SetBookCategory", b, want)
	}
	page, _, err := r.Holdings.BooksPage(ctx(t), library.BookQuery{SchoolID: schoolA, Limit: 10})
	must(t, "BooksPage", err)
	if len(page) != 2 || page[0].LoanCategory != library.CategoryReference || page[1].LoanCategory != library.CategoryShort {
		t.Errorf("BooksPage = %+v, want Atlas reference then Novel short", page)
	}

	must(t, "SetBookCategory back to standard", r.Holdings.SetBookCategory(ctx(t), schoolA, ref.ID, library.CategoryStandard))
	ref.LoanCategory = library.CategoryStandard
	got, err = r.Holdings.Book(ctx(t), schoolA, ref.ID)
	must(t, "Book after standard", err)
	checkLibBook(t, "Book after SetBookCategory standard", got, ref)

	wantErr(t, "SetBookCategory of another school's book", r.Holdings.SetBookCategory(ctx(t), schoolB, plain.ID, library.CategoryReference),
		errs.NotFound, "book_not_found")
	wantErr(t, "SetBookCategory of a missing book", r.Holdings.SetBookCategory(ctx(t), schoolA, uuid.NewString(), library.CategoryReference),
		errs.NotFound, "book_not_found")
	got, err = r.Holdings.Book(ctx(t), schoolA, plain.ID)
	must(t, "Book after refused change", err)
	checkLibBook(t, "Book after a refused change", got, plain)
}

// testSchoolSaveLoanRules: a school's loan rules are stored whole, in
// order, and read with the school by every read; saving them keeps the
// settings and calendar and saving those keeps the rules; no rules clears
// them.
func testSchoolSaveLoanRules(t *testing.T, r ports.Repositories) {
	s := newSchool("Maple High", "maple.example.org")
	other := newSchool("Oak", "oak.example.org")
	must(t, "Create school", r.Schools.Create(ctx(t), s))
	must(t, "Create other school", r.Schools.Create(ctx(t), other))
	wantSchool(t, r, "Get before any rules", s.ID, s)

	rules := []library.LoanRule{
		{Patron: "grade:year 7", Category: library.CategoryStandard, LoanDays: 7, Renewals: 0, MaxItems: 1},
		{Patron: "students", Category: library.CategoryShort, LoanDays: 3, Renewals: 1, MaxItems: 0},
		{Patron: "staff", Category: library.CategoryStandard, LoanDays: 28, Renewals: 20, MaxItems: 100},
	}
	must(t, "SaveLoanRules", r.Schools.SaveLoanRules(ctx(t), s.ID, rules))
	want := s
	want.LoanRules = rules
	wantSchool(t, r, "Get after SaveLoanRules", s.ID, want)
	got, err := r.Schools.GetByDomain(ctx(t), s.Domain)
	must(t, "GetByDomain", err)
	checkSchool(t, "GetByDomain after SaveLoanRules", got, want)
	list, err := r.Schools.List(ctx(t))
	must(t, "List", err)
	if len(list) != 2 {
		t.Fatalf("List = %d schools, want 2", len(list))
	}
	checkSchool(t, "List (Maple)", list[0], want)
	checkSchool(t, "List (Oak)", list[1], other)

	settings := library.Settings{DefaultLoanDays: 10, MaxRenewals: 1, RenewalDays: 5, MaxCopiesPerBook: 9, MaxCopiesPerSchool: 99, Timezone: "America/Chicago",
		HoldPickupDays: 4}
	must(t, "SaveSettings", r.Schools.SaveSettings(ctx(t), s.ID, settings))
	want.Settings = settings
	cal := library.Calendar{TermEnds: []string{"2027-07-09"}}
	must(t, "SaveCalendar", r.Schools.SaveCalendar(ctx(t), s.ID, cal))
	want.Calendar = cal
	wantSchool(t, r, "Get after SaveSettings and SaveCalendar (the rules stay)", s.ID, want)

	smaller := rules[1:2]
	must(t, "SaveLoanRules smaller", r.Schools.SaveLoanRules(ctx(t), s.ID, smaller))
	want.LoanRules = smaller
	wantSchool(t, r, "Get after a second SaveLoanRules (replaced whole, settings and calendar stay)", s.ID, want)

	must(t, "SaveLoanRules none", r.Schools.SaveLoanRules(ctx(t), s.ID, nil))
	want.LoanRules = nil
	wantSchool(t, r, "Get after saving no rules", s.ID, want)

	wantSchool(t, r, "Get other school", other.ID, other)
	wantErr(t, "SaveLoanRules of a missing school", r.Schools.SaveLoanRules(ctx(t), uuid.NewString(), rules), errs.NotFound, "school_not_found")
}
