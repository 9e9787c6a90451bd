package porttest

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ = register("Reports", Reports)

// Reports checks the ports.ReportRepository contract.
func Reports(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	runPortTests(t, newRepos, []portTest{
		{"LoanCounts", testReportLoanCounts},
		{"TopBooks", testReportTopBooks},
		{"Collection", testReportCollection},
		{"NeverBorrowed", testReportNeverBorrowed},
		{"HoldQueues", testReportHoldQueues},
	})
}

// testReportLoanCounts: every loan record of the school counts in the
// bucket of its time (a bound belongs to the later bucket), returned and
// anonymised loans too; another school's loans never.
func testReportLoanCounts(t *testing.T, r ports.Repositories) {
	school, other := uuid.NewString(), uuid.NewString()
	book := createLibBook(t, r, school, "", "Emil")
	jan := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	feb, mar := jan.AddDate(0, 1, 0), jan.AddDate(0, 2, 0)
	insertLoan(t, r, school, uuid.NewString(), book.ID, jan)                        // on the bound: January
	insertLoan(t, r, school, uuid.NewString(), book.ID, feb.Add(-time.Millisecond)) // January's last instant
	returned := insertLoan(t, r, school, uuid.NewString(), book.ID, feb.Add(time.Hour))
	must(t, "MarkReturned", r.Loans.MarkReturned(ctx(t), returned.ID, feb.Add(2*time.Hour)))
	must(t, "AnonymizeStudent", r.Loans.AnonymizeStudent(ctx(t), returned.StudentID))
	insertLoan(t, r, school, uuid.NewString(), book.ID, mar) // after the last bound
	insertLoan(t, r, other, uuid.NewString(), uuid.NewString(), feb.Add(time.Hour))

	got, err := r.Reports.LoanCounts(ctx(t), school, []time.Time{jan, feb, mar})
	must(t, "LoanCounts", err)
	if want := []int{2, 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("LoanCounts = %v, want %v", got, want)
	}
	got, err = r.Reports.LoanCounts(ctx(t), school, []time.Time{jan})
	must(t, "LoanCounts of one bound", err)
	if len(got) != 0 {
		t.Errorf("LoanCounts of one bound = %v, want none", got)
	}
}

// testReportTopBooks: the books with the most loans made in [from, to),
// an anonymised one included and only the school's, most first, ties by
// title then id, at most limit of them.
func testReportTopBooks(t *testing.T, r ports.Repositories) {
	school, other := uuid.NewString(), uuid.NewString()
	ronja := createLibBook(t, r, school, "", "Ronja")
	mio := createLibBook(t, r, school, "", "Mio")
	bamse := createLibBook(t, r, school, "", "Bamse")
	alfons := createLibBook(t, r, school, "", "Alfons")
	from := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	to := from.AddDate(0, 1, 0)
	for range 3 {
		insertLoan(t, r, school, uuid.NewString(), ronja.ID, from.Add(time.Hour))
	}
	gone := insertLoan(t, r, school, uuid.NewString(), mio.ID, to.Add(-time.Hour))
	must(t, "MarkReturned", r.Loans.MarkReturned(ctx(t), gone.ID, to))
	must(t, "AnonymizeStudent", r.Loans.AnonymizeStudent(ctx(t), gone.StudentID))
	insertLoan(t, r, school, uuid.NewString(), mio.ID, to)                   // after the range
	insertLoan(t, r, school, uuid.NewString(), mio.ID, from.Add(-time.Hour)) // before it
	insertLoan(t, r, school, uuid.NewString(), bamse.ID, from)
	insertLoan(t, r, school, uuid.NewString(), alfons.ID, from.Add(2*time.Hour))
	for range 5 {
		insertLoan(t, r, other, uuid.NewString(), mio.ID, from.Add(time.Hour))
	}

	for _, tt := range []struct {
		limit int
		want  []library.BookLoans
	}{
		{10, []library.BookLoans{{BookID: ronja.ID, Loans: 3}, {BookID: alfons.ID, Loans: 1}, {BookID: bamse.ID, Loans: 1}, {BookID: mio.ID, Loans: 1}}},
		{2, []library.BookLoans{{BookID: ronja.ID, Loans: 3}, {BookID: alfons.ID, Loans: 1}}},
	} {
		got, err := r.Reports.TopBooks(ctx(t), school, from, to, tt.limit)
		must(t, "TopBooks", err)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("TopBooks(limit %d) = %+v, want %+v", tt.limit, got, tt.want)
		}
	}
	none, err := r.Reports.TopBooks(ctx(t), school, to.AddDate(1, 0, 0), to.AddDate(2, 0, 0), 10)
	must(t, "TopBooks of an empty range", err)
	if len(none) != 0 {
		t.Errorf("TopBooks of an empty range = %+v, want none", none)
	}
}

// testReportCollection: titles and copies per genre, reading level and
// year; books without a value under "", books without copies counted as
// titles, another school's books never.
func testReportCollection(t *testing.T, r ports.Repositories) {
	school, other := uuid.NewString(), uuid.NewString()
	add := func(schoolID, title, genre, level string, year, copies int) {
		t.Helper()
		b := newLibBook(schoolID, "", title)
		b.Genre, b.ReadingLevel, b.PublishedYear = genre, level, year
		must(t, "CreateBook "+title, r.Holdings.CreateBook(ctx(t), b))
		var cs []library.Copy
		for i := range copies {
			cs = append(cs, newCopy(schoolID, b.ID, title+"-"+string(rune('A'+i))))
		}
		if len(cs) > 0 {
			dup, err := r.Holdings.CreateCopies(ctx(t), cs)
			must(t, "CreateCopies", err)
			if len(dup) != 0 {
				t.Fatalf("CreateCopies: duplicates %v", dup)
			}
		}
	}
	add(school, "Ronja", "fiction", "3.5", 1981, 2)
	add(school, "Emil", "fiction", "2", 1963, 1)
	add(school, "Atlas", "reference", "", 0, 3)
	add(school, "Draft", "", "2", 2020, 0)
	add(other, "Elsewhere", "fiction", "2", 1963, 5)

	for _, tt := range []struct {
		field string
		want  []library.CollectionCount
	}{
		{library.CollectionGenre, []library.CollectionCount{{Value: "", Titles: 1}, {Value: "fiction", Titles: 2, Copies: 3},
			{Value: "reference", Titles: 1, Copies: 3}}},
		{library.CollectionReadingLevel, []library.CollectionCount{{Value: "", Titles: 1, Copies: 3}, {Value: "2", Titles: 2, Copies: 1},
			{Value: "3.5", Titles: 1, Copies: 2}}},
		{library.CollectionPublishedYear, []library.CollectionCount{{Value: "", Titles: 1, Copies: 3}, {Value: "1963", Titles: 1, Copies: 1},
			{Value: "1981", Titles: 1, Copies: 2}, {Value: "2020", Titles: 1}}},
	} {
		got, err := r.Reports.Collection(ctx(t), school, tt.field)
		must(t, "Collection "+tt.field, err)
		slices.SortFunc(got, func(a, b library.CollectionCount) int { return strings.Compare(a.Value, b.Value) })
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Collection(%s) = %+v, want %+v", tt.field, got, tt.want)
		}
	}
	empty, err := r.Reports.Collection(ctx(t), uuid.NewString(), library.CollectionGenre)
	must(t, "Collection of an empty school", err)
	if len(empty) != 0 {
		t.Errorf("Collection of an empty school = %+v, want none", empty)
	}
}

// testReportNeverBorrowed: the school's books that no loan record names
// (a returned, anonymised loan is a borrowing), by title, paged, with
// their total; another school's loans of a book id do not count for it.
func testReportNeverBorrowed(t *testing.T, r ports.Repositories) {
	school, other := uuid.NewString(), uuid.NewString()
	var unused []library.Book
	for _, title := range []string{"Delta", "Alpha", "Echo", "Charlie"} {
		unused = append(unused, createLibBook(t, r, school, "", title))
	}
	lent := createLibBook(t, r, school, "", "Bravo")
	l := insertLoan(t, r, school, uuid.NewString(), lent.ID, base)
	must(t, "MarkReturned", r.Loans.MarkReturned(ctx(t), l.ID, base.Add(time.Hour)))
	must(t, "AnonymizeStudent", r.Loans.AnonymizeStudent(ctx(t), l.StudentID))
	createLibBook(t, r, other, "", "Aardvark")

	slices.SortFunc(unused, func(a, b library.Book) int { return strings.Compare(a.Title, b.Title) })
	page, total, err := r.Reports.NeverBorrowed(ctx(t), school, 0, 3)
	must(t, "NeverBorrowed page 1", err)
	if total != 4 {
		t.Errorf("NeverBorrowed total = %d, want 4", total)
	}
	if got, want := titlesOf(page), titlesOf(unused[:3]); !reflect.DeepEqual(got, want) {
		t.Errorf("NeverBorrowed page 1 = %v, want %v", got, want)
	}
	for i := range page {
		checkLibBook(t, "NeverBorrowed book", page[i], unused[i])
	}
	page, total, err = r.Reports.NeverBorrowed(ctx(t), school, 3, 3)
	must(t, "NeverBorrowed page 2", err)
	if total != 4 || !reflect.DeepEqual(titlesOf(page), []string{"Echo"}) {
		t.Errorf("NeverBorrowed page 2 = %v of %d, want [Echo] of 4", titlesOf(page), total)
	}
	page, total, err = r.Reports.NeverBorrowed(ctx(t), uuid.NewString(), 0, 10)
	must(t, "NeverBorrowed of an empty school", err)
	if total != 0 || len(page) != 0 {
		t.Errorf("NeverBorrowed of an empty school = %v of %d, want none", titlesOf(page), total)
	}
}

// testReportHoldQueues: per book of the school, its waiting holds (a
// ready hold, named by a trap, is not waiting) and its copies without a
// condition (a lost or damaged copy cannot be lent); a title with holds
// and no lendable copy is there with 0; books without a waiting hold and
// another school's holds and copies never count.
func testReportHoldQueues(t *testing.T, r ports.Repositories) {
	school, other := uuid.NewString(), uuid.NewString()
	copies := func(schoolID, bookID string, n int) []library.Copy {
		t.Helper()
		var cs []library.Copy
		for range n {
			cs = append(cs, newCopy(schoolID, bookID, "C-"+uuid.NewString()[:8]))
		}
		dup, err := r.Holdings.CreateCopies(ctx(t), cs)
		must(t, "CreateCopies", err)
		if len(dup) != 0 {
			t.Fatalf("CreateCopies: duplicates %v", dup)
		}
		return cs
	}
	hold := func(schoolID, bookID string) library.HoldQueueEntry {
		t.Helper()
		e := newQueueEntry(schoolID, bookID, uuid.NewString(), base)
		must(t, "Enqueue", r.Holds.Enqueue(ctx(t), e))
		return e
	}
	popular := createLibBook(t, r, school, "", "Popular")
	pc := copies(school, popular.ID, 3)
	must(t, "SetCopyCondition lost", r.Holdings.SetCopyCondition(ctx(t), school, pc[0].ID,
		library.CopyCondition{Condition: library.ConditionLost, At: base}))
	must(t, "SetCopyCondition damaged", r.Holdings.SetCopyCondition(ctx(t), school, pc[1].ID,
		library.CopyCondition{Condition: library.ConditionDamaged, At: base}))
	for range 3 {
		hold(school, popular.ID)
	}
	ready := hold(school, popular.ID)
	must(t, "Trap", r.Holds.Trap(ctx(t), newTrap(school, popular.ID, pc[2].ID, ready.HoldID, base.Add(time.Hour))))

	gone := createLibBook(t, r, school, "", "Gone")
	gc := copies(school, gone.ID, 1)
	must(t, "SetCopyCondition lost", r.Holdings.SetCopyCondition(ctx(t), school, gc[0].ID,
		library.CopyCondition{Condition: library.ConditionLost, At: base}))
	hold(school, gone.ID)
	none := createLibBook(t, r, school, "", "No copies")
	hold(school, none.ID)

	// Every hold of this one is ready: it is not in the report.
	served := createLibBook(t, r, school, "", "Served")
	sc := copies(school, served.ID, 1)
	sr := hold(school, served.ID)
	must(t, "Trap", r.Holds.Trap(ctx(t), newTrap(school, served.ID, sc[0].ID, sr.HoldID, base.Add(time.Hour))))
	quiet := createLibBook(t, r, school, "", "Quiet")
	copies(school, quiet.ID, 2)

	elsewhere := createLibBook(t, r, other, "", "Elsewhere")
	copies(other, elsewhere.ID, 4)
	for range 2 {
		hold(other, elsewhere.ID)
		hold(other, popular.ID) // another school's holds on this school's book id
	}

	got, err := r.Reports.HoldQueues(ctx(t), school)
	must(t, "HoldQueues", err)
	slices.SortFunc(got, func(a, b library.HoldQueue) int { return strings.Compare(a.BookID, b.BookID) })
	want := []library.HoldQueue{{BookID: popular.ID, Waiting: 3, Copies: 1}, {BookID: gone.ID, Waiting: 1}, {BookID: none.ID, Waiting: 1}}
	slices.SortFunc(want, func(a, b library.HoldQueue) int { return strings.Compare(a.BookID, b.BookID) })
	if !reflect.DeepEqual(got, want) {
		t.Errorf("HoldQueues = %+v, want %+v", got, want)
	}
	empty, err := r.Reports.HoldQueues(ctx(t), uuid.NewString())
	must(t, "HoldQueues of an empty school", err)
	if len(empty) != 0 {
		t.Errorf("HoldQueues of an empty school = %+v, want none", empty)
	}
}

func titlesOf(books []library.Book) []string {
	out := make([]string, len(books))
	for i, b := range books {
		out[i] = b.Title
	}
	return out
}
