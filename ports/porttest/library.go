package porttest

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// The library's ports each have their own suite below. Together they check
// the documented errors, the scoping of every lookup by school (another
// school's object is NotFound), the unique keys, and the exactly-once claims
// under concurrency. newRepos must return empty repositories that no other
// subtest sees; the suites use the schools and accounts of the same
// repositories where a port reads them.

type portTest struct {
	name string
	run  func(t *testing.T, r ports.Repositories)
}

func runPortTests(t *testing.T, newRepos func(t *testing.T) ports.Repositories, tests []portTest) {
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, newRepos(t)) })
	}
}

// Holdings checks the ports.HoldingsRepository contract.
func Holdings(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	runPortTests(t, newRepos, []portTest{
		{"Books/CreateGet", testLibBookCreateGet},
		{"Books/ISBNUniquePerSchool", testLibBookISBNUnique},
		{"Books/ListOrderAndScope", testLibBooksList},
		{"Books/BooksByID", testLibBooksByID},
		{"Books/PageSearchAndScope", testLibBooksPage},
		{"Books/LoanCategory", testLibBookCategory},
		{"Books/Details", testLibBookDetails},
		{"Copies/CountsOfSomeBooks", testLibCopyCountsOf},
		{"Copies/CreateCopiesDuplicates", testLibCreateCopiesDuplicates},
		{"Copies/GetAndScope", testLibCopyGet},
		{"Copies/OfBookAndCounts", testLibCopiesOfBookAndCounts},
		{"Copies/PagesCountsAndDelete", testLibCopyPagesCountsAndDelete},
	})
}

// Loans checks the ports.LoanRepository contract.
func Loans(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	runPortTests(t, newRepos, []portTest{
		{"InsertGet", testLibLoanInsertGet},
		{"ByIDs", testLibLoansByID},
		{"Open", testLibOpenLoans},
		{"OpenOfStudents", testLibOpenOfStudents},
		{"OfStudent", testLibLoansOfStudent},
		{"MarkReturnedIdempotent", testLibMarkReturned},
		{"Delete", testLibDeleteLoan},
		{"AnonymizeStudent", testLibAnonymizeStudent},
		{"AnonymizeReturned", testLibAnonymizeReturned},
		{"Renewals/AddList", testLibRenewals},
		{"Renewals/AddRenewalRace", testLibRenewalRace},
	})
}

// ActiveLoans checks the ports.ActiveLoanRepository contract.
func ActiveLoans(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	runPortTests(t, newRepos, []portTest{
		{"ClaimHolder", testLibClaimGet},
		{"ClaimRace", testLibClaimCopyRace},
		{"ClaimsOfBooks", testLibClaimsOfBooks},
		{"Release", testLibReleaseClaim},
		{"ReleaseRace", testLibReleaseRace},
		{"ClaimManyRace", testLibClaimManyRace},
		{"ReleaseMany", testLibReleaseMany},
	})
}

// Students checks the ports.StudentRepository contract.
func Students(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	runPortTests(t, newRepos, []portTest{
		{"Numbers/UniquePerSchool", testLibStudentNumbers},
		{"Numbers/IgnoreCase", testStudentNumbersIgnoreCase},
		{"Numbers/Taken", testStudentTakenNumbers},
		{"Numbers/Release", testLibForgetAccount},
		{"Search/OrderAndScope", testStudentSearchScope},
		{"Search/Words", testStudentSearchWords},
		{"Search/Pages", testStudentSearchPages},
		{"Search/Homeroom", testStudentSearchHomeroom},
		{"Import/AllOrNothing", testImportAllOrNothing},
		{"Import/CancelledMidway", testImportCancelledMidway},
		{"Import/DeadlineThenResend", testImportDeadlineThenResend},
		{"Roster/ApplyAndRead", testRosterApply},
		{"Roster/AllOrNothing", testRosterAllOrNothing},
		{"Roster/ExternalIDUniquePerSchool", testRosterExternalIDUnique},
		{"Roster/RolloverOncePerYear", testRolloverOnce},
	})
}

// Invites checks the ports.InviteRepository contract.
func Invites(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	runPortTests(t, newRepos, []portTest{
		{"CreateGetRedeem", testLibInvites},
		{"RedeemRace", testLibRedeemRace},
	})
}

// --- helpers ---

// race runs call(0) .. call(n-1) in n goroutines released together and
// returns their errors by index.
func race(n int, call func(i int) error) []error {
	out := make([]error, n)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range n {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			out[i] = call(i)
		}()
	}
	start.Done()
	done.Wait()
	return out
}

// wantOneWinner checks that exactly one of results is nil and every other
// is a Conflict with code, and returns the winner's index.
func wantOneWinner(t *testing.T, call string, results []error, code string) int {
	t.Helper()
	winner, wins, lost := -1, 0, 0
	for i, err := range results {
		switch {
		case err == nil:
			winner = i
			wins++
		case errs.KindOf(err) == errs.Conflict && errs.CodeOf(err) == code:
			lost++
		default:
			t.Errorf("%s #%d: unexpected error %v (kind %q, code %q)", call, i, err, errs.KindOf(err), errs.CodeOf(err))
		}
	}
	if wins != 1 || lost != len(results)-1 {
		t.Fatalf("%d racing %s: %d nil and %d %s, want 1 and %d", len(results), call, wins, lost, code, len(results)-1)
	}
	return winner
}

func newLibBook(schoolID, isbn, title string) library.Book {
	return library.Book{
		ID:        uuid.NewString(),
		SchoolID:  schoolID,
		ISBN:      isbn,
		Title:     title,
		Author:    "Astrid Lindgren",
		CoverURL:  "https://covers.example.org/" + title + ".jpg",
		CreatedAt: base,
	}
}

func checkLibBook(t *testing.T, call string, got, want library.Book) {
	t.Helper()
	if !sameTime(got.CreatedAt, want.CreatedAt) {
		t.Errorf("%s: CreatedAt = %v, want %v (at ms precision)", call, got.CreatedAt, want.CreatedAt)
	}
	got.CreatedAt = want.CreatedAt
	// A book stored without a loan category is a standard one.
	want.LoanCategory = library.BookCategory(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func createLibBook(t *testing.T, r ports.Repositories, schoolID, isbn, title string) library.Book {
	t.Helper()
	b := newLibBook(schoolID, isbn, title)
	must(t, "CreateBook "+title, r.Holdings.CreateBook(ctx(t), b))
	return b
}

// allLibBooks returns every book of the school, in BooksPage's order.
func allLibBooks(t *testing.T, r ports.Repositories, schoolID string) ([]library.Book, error) {
	t.Helper()
	books, _, err := r.Holdings.BooksPage(ctx(t), library.BookQuery{SchoolID: schoolID, Limit: 1000})
	return books, err
}

func libBookIDs(books []library.Book) []string {
	ids := make([]string, len(books))
	for i, b := range books {
		ids[i] = b.ID
	}
	return ids
}

func newCopy(schoolID, bookID, code string) library.Copy {
	return library.Copy{ID: uuid.NewString(), SchoolID: schoolID, BookID: bookID, Code: code, CreatedAt: base}
}

func checkCopy(t *testing.T, call string, got, want library.Copy) {
	t.Helper()
	if !sameTime(got.CreatedAt, want.CreatedAt) {
		t.Errorf("%s: CreatedAt = %v, want %v (at ms precision)", call, got.CreatedAt, want.CreatedAt)
	}
	got.CreatedAt = want.CreatedAt
	if !sameTime(got.Condition.At, want.Condition.At) {
		t.Errorf("%s: Condition.At = %v, want %v (at ms precision)", call, got.Condition.At, want.Condition.At)
	}
	got.Condition.At = want.Condition.At
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func copyCodes(copies []library.Copy) []string {
	codes := make([]string, len(copies))
	for i, c := range copies {
		codes[i] = c.Code
	}
	return codes
}

func newLoan(schoolID, studentID, bookID string, at time.Time) library.Loan {
	return library.Loan{
		ID:         uuid.NewString(),
		SchoolID:   schoolID,
		BookID:     bookID,
		CopyID:     uuid.NewString(),
		CopyCode:   "K7Q-" + strings.ToUpper(uuid.NewString()[:4]),
		StudentID:  studentID,
		LoanedAt:   at,
		DueAt:      at.AddDate(0, 0, 14).Format(time.DateOnly),
		BookTitle:  "Pippi Longstocking",
		BookAuthor: "Astrid Lindgren",
	}
}

func insertLoan(t *testing.T, r ports.Repositories, schoolID, studentID, bookID string, at time.Time) library.Loan {
	t.Helper()
	l := newLoan(schoolID, studentID, bookID, at)
	must(t, "InsertLoan", r.Loans.Insert(ctx(t), l))
	return l
}

func checkLoan(t *testing.T, call string, got, want library.Loan) {
	t.Helper()
	if !sameTime(got.LoanedAt, want.LoanedAt) || !sameTime(got.ReturnedAt, want.ReturnedAt) {
		t.Errorf("%s: times = %v, %v, want %v, %v (at ms precision)", call, got.LoanedAt, got.ReturnedAt, want.LoanedAt, want.ReturnedAt)
	}
	if got.Returned() != want.Returned() {
		t.Errorf("%s: Returned() = %v, want %v", call, got.Returned(), want.Returned())
	}
	got.LoanedAt, got.ReturnedAt = want.LoanedAt, want.ReturnedAt
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func loanIDs(loans []library.Loan) []string {
	ids := make([]string, len(loans))
	for i, l := range loans {
		ids[i] = l.ID
	}
	return ids
}

// wantLoans checks loans in order, every field.
func wantLoans(t *testing.T, call string, got []library.Loan, want ...library.Loan) {
	t.Helper()
	if fmt.Sprint(loanIDs(got)) != fmt.Sprint(loanIDs(want)) {
		t.Fatalf("%s = %v, want %v", call, loanIDs(got), loanIDs(want))
	}
	for i := range got {
		checkLoan(t, fmt.Sprintf("%s[%d]", call, i), got[i], want[i])
	}
}

// sortedIDs returns ids sorted, for comparing sets.
func sortedIDs(ids []string) []string {
	out := slices.Clone(ids)
	sort.Strings(out)
	return out
}

func newClaim(copyID, loanID, schoolID string) library.CopyClaim {
	return library.CopyClaim{CopyID: copyID, LoanID: loanID, SchoolID: schoolID, BookID: uuid.NewString(), ClaimedAt: base}
}

func checkClaim(t *testing.T, call string, got, want library.CopyClaim) {
	t.Helper()
	if !sameTime(got.ClaimedAt, want.ClaimedAt) {
		t.Errorf("%s: ClaimedAt = %v, want %v (at ms precision)", call, got.ClaimedAt, want.ClaimedAt)
	}
	got.ClaimedAt = want.ClaimedAt
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

// wantClaimSet checks claims in any order, every field.
func wantClaimSet(t *testing.T, call string, got []library.CopyClaim, want ...library.CopyClaim) {
	t.Helper()
	byCopy := make(map[string]library.CopyClaim, len(want))
	var wantIDs, gotIDs []string
	for _, c := range want {
		byCopy[c.CopyID] = c
		wantIDs = append(wantIDs, c.CopyID)
	}
	for _, c := range got {
		gotIDs = append(gotIDs, c.CopyID)
	}
	if fmt.Sprint(sortedIDs(gotIDs)) != fmt.Sprint(sortedIDs(wantIDs)) {
		t.Fatalf("%s = claims of %v, want %v", call, sortedIDs(gotIDs), sortedIDs(wantIDs))
	}
	for _, c := range got {
		checkClaim(t, call+" "+c.CopyID, c, byCopy[c.CopyID])
	}
}

// --- books ---

func testLibBookCreateGet(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	b := createLibBook(t, r, schoolA, "9780140309577", "Pippi Longstocking")
	got, err := r.Holdings.Book(ctx(t), schoolA, b.ID)
	must(t, "Book", err)
	checkLibBook(t, "Book", got, b)

	_, err = r.Holdings.Book(ctx(t), schoolB, b.ID)
	wantErr(t, "Book of another school", err, errs.NotFound, "book_not_found")
	_, err = r.Holdings.Book(ctx(t), schoolA, uuid.NewString())
	wantErr(t, "Book missing", err, errs.NotFound, "book_not_found")

	// Zero values come back as zero values.
	z := library.Book{ID: uuid.NewString(), SchoolID: schoolA}
	must(t, "CreateBook zero", r.Holdings.CreateBook(ctx(t), z))
	got, err = r.Holdings.Book(ctx(t), schoolA, z.ID)
	must(t, "Book zero", err)
	checkLibBook(t, "Book zero", got, z)
}

func testLibBookISBNUnique(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	const isbn = "9780140309577"
	first := createLibBook(t, r, schoolA, isbn, "Pippi Longstocking")

	dup := newLibBook(schoolA, isbn, "Pippi Goes on Board")
	wantErr(t, "CreateBook same ISBN same school", r.Holdings.CreateBook(ctx(t), dup), errs.Conflict, "isbn_exists")
	_, err := r.Holdings.Book(ctx(t), schoolA, dup.ID)
	wantErr(t, "Book refused", err, errs.NotFound, "book_not_found")
	got, err := r.Holdings.Book(ctx(t), schoolA, first.ID)
	must(t, "Book first", err)
	checkLibBook(t, "Book first after conflict", got, first)

	// The same ISBN in another school is fine.
	createLibBook(t, r, schoolB, isbn, "Pippi Longstocking")
	// Books without an ISBN never clash.
	createLibBook(t, r, schoolA, "", "Class Diary 2024")
	createLibBook(t, r, schoolA, "", "Class Diary 2025")
	createLibBook(t, r, schoolA, "", "Class Diary 2025")
	createLibBook(t, r, schoolA, "9780140328707", "Emil and the Detectives")

	books, err := allLibBooks(t, r, schoolA)
	must(t, "Books", err)
	if len(books) != 5 {
		t.Fatalf("Books of school A = %d books, want 5", len(books))
	}
}

func testLibBooksList(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	books, err := allLibBooks(t, r, schoolA)
	must(t, "Books on empty", err)
	if len(books) != 0 {
		t.Fatalf("Books on empty = %d, want 0", len(books))
	}
	twinA, twinB := newLibBook(schoolA, "", "Matilda"), newLibBook(schoolA, "", "Matilda")
	twinA.ID, twinB.ID = "00000000-0000-4000-8000-00000000000a", "00000000-0000-4000-8000-00000000000b"
	for _, b := range []library.Book{
		newLibBook(schoolA, "1", "The Witches"),
		twinB,
		newLibBook(schoolA, "2", "Danny"),
		newLibBook(schoolB, "3", "Boy"), // another school
		twinA,
		newLibBook(schoolA, "4", "matilda"), // byte order: lowercase after uppercase
	} {
		must(t, "CreateBook "+b.Title, r.Holdings.CreateBook(ctx(t), b))
	}
	books, err = allLibBooks(t, r, schoolA)
	must(t, "Books", err)
	var got []string
	for _, b := range books {
		got = append(got, b.Title+"/"+b.ID[len(b.ID)-1:])
	}
	titles := make([]string, len(books))
	for i, b := range books {
		titles[i] = b.Title
	}
	if want := []string{"Danny", "Matilda", "Matilda", "The Witches", "matilda"}; fmt.Sprint(titles) != fmt.Sprint(want) {
		t.Fatalf("Books order = %v, want %v (by title, then id)", titles, want)
	}
	if books[1].ID != twinA.ID || books[2].ID != twinB.ID {
		t.Fatalf("Books with one title = %v, want %s before %s", got, twinA.ID, twinB.ID)
	}
	checkLibBook(t, "Books[1]", books[1], twinA)

	books, err = allLibBooks(t, r, schoolB)
	must(t, "Books of B", err)
	if len(books) != 1 || books[0].Title != "Boy" {
		t.Fatalf("Books of B = %v, want only Boy", libBookIDs(books))
	}
}

func testLibBooksByID(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	a1 := createLibBook(t, r, schoolA, "1", "One")
	a2 := createLibBook(t, r, schoolA, "2", "Two")
	createLibBook(t, r, schoolA, "3", "Three") // not asked for
	b1 := createLibBook(t, r, schoolB, "1", "One")

	got, err := r.Holdings.BooksByID(ctx(t), schoolA, []string{a2.ID, b1.ID, uuid.NewString(), a1.ID, a2.ID})
	must(t, "BooksByID", err)
	if fmt.Sprint(sortedIDs(libBookIDs(got))) != fmt.Sprint(sortedIDs([]string{a1.ID, a2.ID})) {
		t.Fatalf("BooksByID = %v, want %v (each of school A once)", libBookIDs(got), []string{a1.ID, a2.ID})
	}
	for _, b := range got {
		if b.ID == a1.ID {
			checkLibBook(t, "BooksByID a1", b, a1)
		}
	}
	got, err = r.Holdings.BooksByID(ctx(t), schoolA, nil)
	must(t, "BooksByID none", err)
	if len(got) != 0 {
		t.Fatalf("BooksByID(nil) = %v, want none", libBookIDs(got))
	}
}

// --- copies ---

func testLibCreateCopiesDuplicates(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	book := createLibBook(t, r, schoolA, "1", "One")
	first := []library.Copy{newCopy(schoolA, book.ID, "AAA-111"), newCopy(schoolA, book.ID, "AAA-222"), newCopy(schoolB, uuid.NewString(), "BBB-999")}
	dups, err := r.Holdings.CreateCopies(ctx(t), first)
	must(t, "CreateCopies", err)
	if len(dups) != 0 {
		t.Fatalf("CreateCopies of new codes = duplicates %v, want none", dups)
	}

	second := []library.Copy{
		newCopy(schoolA, book.ID, "AAA-333"), // 0: new
		newCopy(schoolA, book.ID, "AAA-111"), // 1: taken before
		newCopy(schoolA, book.ID, "BBB-999"), // 2: taken in school B only
		newCopy(schoolA, book.ID, "AAA-333"), // 3: taken by #0 of this call
		newCopy(schoolA, book.ID, "AAA-444"), // 4: new
		newCopy(schoolA, book.ID, "AAA-222"), // 5: taken before
	}
	dups, err = r.Holdings.CreateCopies(ctx(t), second)
	must(t, "CreateCopies with duplicates", err)
	if fmt.Sprint(dups) != fmt.Sprint([]int{1, 3, 5}) {
		t.Fatalf("CreateCopies duplicates = %v, want [1 3 5]", dups)
	}
	for _, i := range []int{0, 2, 4} {
		got, err := r.Holdings.Copy(ctx(t), schoolA, second[i].ID)
		must(t, fmt.Sprintf("Copy #%d", i), err)
		checkCopy(t, fmt.Sprintf("Copy #%d", i), got, second[i])
	}
	for _, i := range []int{1, 3, 5} {
		_, err := r.Holdings.Copy(ctx(t), schoolA, second[i].ID)
		wantErr(t, fmt.Sprintf("Copy refused #%d", i), err, errs.NotFound, "copy_not_found")
	}
	got, err := r.Holdings.CopyByCode(ctx(t), schoolA, "AAA-111")
	must(t, "CopyByCode AAA-111", err)
	checkCopy(t, "CopyByCode AAA-111 keeps the first", got, first[0])
	got, err = r.Holdings.CopyByCode(ctx(t), schoolA, "AAA-333")
	must(t, "CopyByCode AAA-333", err)
	checkCopy(t, "CopyByCode AAA-333 is the first of the call", got, second[0])

	dups, err = r.Holdings.CreateCopies(ctx(t), nil)
	must(t, "CreateCopies none", err)
	if len(dups) != 0 {
		t.Fatalf("CreateCopies(nil) = %v, want none", dups)
	}
	// Every copy refused.
	dups, err = r.Holdings.CreateCopies(ctx(t), []library.Copy{newCopy(schoolA, book.ID, "AAA-111"), newCopy(schoolB, book.ID, "BBB-999")})
	must(t, "CreateCopies all taken", err)
	if fmt.Sprint(dups) != fmt.Sprint([]int{0, 1}) {
		t.Fatalf("CreateCopies all taken = %v, want [0 1]", dups)
	}
	copies, err := r.Holdings.CopiesOfBook(ctx(t), schoolA, book.ID)
	must(t, "CopiesOfBook", err)
	if want := []string{"AAA-111", "AAA-222", "AAA-333", "AAA-444", "BBB-999"}; fmt.Sprint(copyCodes(copies)) != fmt.Sprint(want) {
		t.Fatalf("CopiesOfBook = %v, want %v", copyCodes(copies), want)
	}
}

func testLibCopyGet(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	c := newCopy(schoolA, uuid.NewString(), "K7Q-2MX")
	_, err := r.Holdings.CreateCopies(ctx(t), []library.Copy{c})
	must(t, "CreateCopies", err)

	got, err := r.Holdings.Copy(ctx(t), schoolA, c.ID)
	must(t, "Copy", err)
	checkCopy(t, "Copy", got, c)
	got, err = r.Holdings.CopyByCode(ctx(t), schoolA, c.Code)
	must(t, "CopyByCode", err)
	checkCopy(t, "CopyByCode", got, c)

	_, err = r.Holdings.Copy(ctx(t), schoolB, c.ID)
	wantErr(t, "Copy of another school", err, errs.NotFound, "copy_not_found")
	_, err = r.Holdings.CopyByCode(ctx(t), schoolB, c.Code)
	wantErr(t, "CopyByCode of another school", err, errs.NotFound, "copy_not_found")
	_, err = r.Holdings.Copy(ctx(t), schoolA, uuid.NewString())
	wantErr(t, "Copy missing", err, errs.NotFound, "copy_not_found")
	_, err = r.Holdings.CopyByCode(ctx(t), schoolA, "ZZZ-000")
	wantErr(t, "CopyByCode missing", err, errs.NotFound, "copy_not_found")
}

func testLibCopiesOfBookAndCounts(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	b1, b2, b3 := createLibBook(t, r, schoolA, "1", "One"), createLibBook(t, r, schoolA, "2", "Two"), createLibBook(t, r, schoolA, "3", "Three")
	all := []string{b1.ID, b2.ID, b3.ID}
	counts, err := r.Holdings.CopyCounts(ctx(t), schoolA, all)
	must(t, "CopyCounts on empty", err)
	if len(counts) != 0 {
		t.Fatalf("CopyCounts without copies = %v, want none", counts)
	}
	copies := []library.Copy{
		newCopy(schoolA, b1.ID, "C-3"),
		newCopy(schoolA, b1.ID, "C-1"),
		newCopy(schoolA, b2.ID, "C-9"),
		newCopy(schoolA, b1.ID, "C-2"),
		newCopy(schoolB, b1.ID, "C-0"), // another school, same book id
	}
	dups, err := r.Holdings.CreateCopies(ctx(t), copies)
	must(t, "CreateCopies", err)
	if len(dups) != 0 {
		t.Fatalf("CreateCopies = duplicates %v, want none", dups)
	}

	got, err := r.Holdings.CopiesOfBook(ctx(t), schoolA, b1.ID)
	must(t, "CopiesOfBook", err)
	if want := []string{"C-1", "C-2", "C-3"}; fmt.Sprint(copyCodes(got)) != fmt.Sprint(want) {
		t.Fatalf("CopiesOfBook = %v, want %v (by code)", copyCodes(got), want)
	}
	checkCopy(t, "CopiesOfBook[0]", got[0], copies[1])
	got, err = r.Holdings.CopiesOfBook(ctx(t), schoolA, b3.ID)
	must(t, "CopiesOfBook without copies", err)
	if len(got) != 0 {
		t.Fatalf("CopiesOfBook without copies = %v, want none", copyCodes(got))
	}
	got, err = r.Holdings.CopiesOfBook(ctx(t), schoolB, b1.ID)
	must(t, "CopiesOfBook of B", err)
	if fmt.Sprint(copyCodes(got)) != "[C-0]" {
		t.Fatalf("CopiesOfBook of B = %v, want [C-0]", copyCodes(got))
	}

	counts, err = r.Holdings.CopyCounts(ctx(t), schoolA, all)
	must(t, "CopyCounts", err)
	if want := map[string]int{b1.ID: 3, b2.ID: 1}; fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Fatalf("CopyCounts = %v, want %v (books without copies absent)", counts, want)
	}
	counts, err = r.Holdings.CopyCounts(ctx(t), schoolB, all)
	must(t, "CopyCounts of B", err)
	if want := map[string]int{b1.ID: 1}; fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Fatalf("CopyCounts of B = %v, want %v", counts, want)
	}
}

// testLibCopyPagesCountsAndDelete checks the calls that bound copies: a
// book's copies page by page, the school's count stopping at a bound, and
// the removal of copies that a cap refused.
func testLibCopyPagesCountsAndDelete(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	b1, b2 := createLibBook(t, r, schoolA, "1", "One"), createLibBook(t, r, schoolA, "2", "Two")
	var copies []library.Copy
	for i := range 7 {
		copies = append(copies, newCopy(schoolA, b1.ID, fmt.Sprintf("C-%d", 6-i)))
	}
	copies = append(copies, newCopy(schoolA, b2.ID, "D-1"), newCopy(schoolB, b1.ID, "E-1"))
	_, err := r.Holdings.CreateCopies(ctx(t), copies)
	must(t, "CreateCopies", err)

	for _, tc := range []struct {
		offset, limit int
		want          string
	}{{0, 3, "[C-0 C-1 C-2]"}, {3, 3, "[C-3 C-4 C-5]"}, {6, 3, "[C-6]"}, {7, 3, "[]"}, {0, 100, "[C-0 C-1 C-2 C-3 C-4 C-5 C-6]"}} {
		got, err := r.Holdings.CopiesOfBookPage(ctx(t), schoolA, b1.ID, tc.offset, tc.limit)
		must(t, "CopiesOfBookPage", err)
		if fmt.Sprint(copyCodes(got)) != tc.want {
			t.Fatalf("CopiesOfBookPage(offset %d, limit %d) = %v, want %s", tc.offset, tc.limit, copyCodes(got), tc.want)
		}
	}
	got, err := r.Holdings.CopiesOfBookPage(ctx(t), schoolB, b1.ID, 0, 10)
	must(t, "CopiesOfBookPage of B", err)
	if fmt.Sprint(copyCodes(got)) != "[E-1]" {
		t.Fatalf("CopiesOfBookPage of B = %v, want [E-1]", copyCodes(got))
	}

	for _, tc := range []struct{ upTo, want int }{{100, 8}, {8, 8}, {5, 5}, {1, 1}} {
		n, err := r.Holdings.CountSchoolCopies(ctx(t), schoolA, tc.upTo)
		must(t, "CountSchoolCopies", err)
		if n != tc.want {
			t.Fatalf("CountSchoolCopies(upTo %d) = %d, want %d", tc.upTo, n, tc.want)
		}
	}
	if n, err := r.Holdings.CountSchoolCopies(ctx(t), uuid.NewString(), 10); err != nil || n != 0 {
		t.Fatalf("CountSchoolCopies of a school without copies = %d, %v", n, err)
	}

	// Another school's ids are not removed; removing twice is no error.
	ids := []string{copies[0].ID, copies[1].ID, copies[8].ID}
	must(t, "DeleteCopies", r.Holdings.DeleteCopies(ctx(t), schoolA, ids))
	must(t, "DeleteCopies again", r.Holdings.DeleteCopies(ctx(t), schoolA, ids))
	if n, _ := r.Holdings.CountSchoolCopies(ctx(t), schoolA, 100); n != 6 {
		t.Fatalf("school A has %d copies after deleting 2, want 6", n)
	}
	if n, _ := r.Holdings.CountSchoolCopies(ctx(t), schoolB, 100); n != 1 {
		t.Fatalf("school B has %d copies after A deleted B's id, want 1", n)
	}
	wantErr(t, "Copy after DeleteCopies", func() error { _, err := r.Holdings.Copy(ctx(t), schoolA, copies[0].ID); return err }(), errs.NotFound, "copy_not_found")
}

func testLibBooksPage(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	for i, title := range []string{"Echo", "alpha", "Delta", "Bravo", "Charlie (Part 1)"} {
		createLibBook(t, r, schoolA, fmt.Sprint(i+1), title)
	}
	odd := newLibBook(schoolA, "9", "Foxtrot")
	odd.Author = "Tove Jansson"
	must(t, "CreateBook", r.Holdings.CreateBook(ctx(t), odd))
	hugo := newLibBook(schoolA, "10", "Les Misérables")
	hugo.Author = "Victor Hugo"
	must(t, "CreateBook", r.Holdings.CreateBook(ctx(t), hugo))
	createLibBook(t, r, schoolB, "1", "Alpha of B")

	page := func(search string, offset, limit int) ([]string, int) {
		t.Helper()
		books, total, err := r.Holdings.BooksPage(ctx(t), library.BookQuery{SchoolID: schoolA, Terms: catalog.QueryTerms(search), Offset: offset, Limit: limit})
		must(t, "BooksPage", err)
		out := []string{}
		for _, b := range books {
			out = append(out, b.Title)
		}
		return out, total
	}
	// Ordered by title as stored (byte order, like the other lists).
	if got, total := page("", 0, 3); fmt.Sprint(got) != "[Bravo Charlie (Part 1) Delta]" || total != 7 {
		t.Fatalf("BooksPage(0,3) = %v, total %d; want [Bravo Charlie (Part 1) Delta], 7", got, total)
	}
	if got, total := page("", 3, 3); fmt.Sprint(got) != "[Echo Foxtrot Les Misérables]" || total != 7 {
		t.Fatalf("BooksPage(3,3) = %v, total %d; want [Echo Foxtrot Les Misérables], 7", got, total)
	}
	if got, total := page("", 7, 3); len(got) != 0 || total != 7 {
		t.Fatalf("BooksPage past the end = %v, total %d; want none, 7", got, total)
	}
	// Search: every word begins a word of the title or the author, ignoring
	// case and accents.
	if got, total := page("ALPH", 0, 10); fmt.Sprint(got) != "[alpha]" || total != 1 {
		t.Fatalf("BooksPage(search ALPH) = %v, total %d; want [alpha] of school A only", got, total)
	}
	if got, total := page("jansson", 0, 10); fmt.Sprint(got) != "[Foxtrot]" || total != 1 {
		t.Fatalf("BooksPage(search jansson) = %v, total %d; want [Foxtrot] (by author)", got, total)
	}
	if got, total := page("fox tove", 0, 10); fmt.Sprint(got) != "[Foxtrot]" || total != 1 {
		t.Fatalf("BooksPage(search 'fox tove') = %v, total %d; want [Foxtrot] (title and author words)", got, total)
	}
	if got, total := page("(part 1)", 0, 10); fmt.Sprint(got) != "[Charlie (Part 1)]" || total != 1 {
		t.Fatalf("BooksPage(search '(part 1)') = %v, total %d; want [Charlie (Part 1)]", got, total)
	}
	if got, total := page("miser HUGO", 0, 10); fmt.Sprint(got) != "[Les Misérables]" || total != 1 {
		t.Fatalf("BooksPage(search 'miser HUGO') = %v, total %d; want [Les Misérables] (accents and case ignored)", got, total)
	}
	if got, total := page("lpha", 0, 10); len(got) != 0 || total != 0 {
		t.Fatalf("BooksPage(search 'lpha') = %v, total %d; want nothing (words match from their start)", got, total)
	}
	if got, total := page("alpha echo", 0, 10); len(got) != 0 || total != 0 {
		t.Fatalf("BooksPage(search 'alpha echo') = %v, total %d; want nothing (every word must match one book)", got, total)
	}
	// A page of a search.
	if got, total := page("a", 1, 1); total != 5 || fmt.Sprint(got) != "[Charlie (Part 1)]" {
		t.Fatalf("BooksPage(search a, 1, 1) = %v, total %d; want [Charlie (Part 1)] of 5 (by Astrid Lindgren, or alpha)", got, total)
	}
}

func testLibCopyCountsOf(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	b1, b2, b3 := createLibBook(t, r, schoolA, "1", "One"), createLibBook(t, r, schoolA, "2", "Two"), createLibBook(t, r, schoolA, "3", "Three")
	_, err := r.Holdings.CreateCopies(ctx(t), []library.Copy{
		newCopy(schoolA, b1.ID, "C-1"), newCopy(schoolA, b1.ID, "C-2"), newCopy(schoolA, b2.ID, "C-3"),
		newCopy(schoolA, b3.ID, "C-4"), newCopy(schoolB, b1.ID, "C-5"),
	})
	must(t, "CreateCopies", err)
	counts, err := r.Holdings.CopyCounts(ctx(t), schoolA, []string{b1.ID, b2.ID, uuid.NewString()})
	must(t, "CopyCountsOf", err)
	if want := map[string]int{b1.ID: 2, b2.ID: 1}; fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Fatalf("CopyCountsOf = %v, want %v (only the books asked for, only school A)", counts, want)
	}
	counts, err = r.Holdings.CopyCounts(ctx(t), schoolA, nil)
	must(t, "CopyCountsOf(nil)", err)
	if len(counts) != 0 {
		t.Fatalf("CopyCountsOf(nil) = %v, want none", counts)
	}
}

func testLibClaimsOfBooks(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	bookX, bookY := uuid.NewString(), uuid.NewString()
	cx := library.CopyClaim{CopyID: uuid.NewString(), LoanID: uuid.NewString(), SchoolID: schoolA, BookID: bookX, ClaimedAt: base}
	cy := library.CopyClaim{CopyID: uuid.NewString(), LoanID: uuid.NewString(), SchoolID: schoolA, BookID: bookY, ClaimedAt: base}
	cb := library.CopyClaim{CopyID: uuid.NewString(), LoanID: uuid.NewString(), SchoolID: schoolB, BookID: bookX, ClaimedAt: base}
	for _, c := range []library.CopyClaim{cx, cy, cb} {
		must(t, "ClaimCopy", r.ActiveLoans.Claim(ctx(t), c))
	}
	got, err := r.ActiveLoans.ClaimsOfBooks(ctx(t), schoolA, []string{bookX})
	must(t, "ClaimsOfBooks", err)
	wantClaimSet(t, "ClaimsOfBooks(X)", got, cx)
	got, err = r.ActiveLoans.ClaimsOfBooks(ctx(t), schoolA, []string{bookX, bookY})
	must(t, "ClaimsOfBooks", err)
	wantClaimSet(t, "ClaimsOfBooks(X, Y)", got, cx, cy)
	got, err = r.ActiveLoans.ClaimsOfBooks(ctx(t), schoolA, nil)
	must(t, "ClaimsOfBooks(nil)", err)
	wantClaimSet(t, "ClaimsOfBooks(nil)", got)
}

// --- loans ---

func testLibLoanInsertGet(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	l := insertLoan(t, r, schoolA, uuid.NewString(), uuid.NewString(), base)
	got, err := r.Loans.Get(ctx(t), schoolA, l.ID)
	must(t, "Loan", err)
	checkLoan(t, "Loan", got, l)
	if got.Returned() {
		t.Fatalf("Loan of a new record: Returned() = true, ReturnedAt %v", got.ReturnedAt)
	}

	_, err = r.Loans.Get(ctx(t), schoolB, l.ID)
	wantErr(t, "Loan of another school", err, errs.NotFound, "loan_not_found")
	_, err = r.Loans.Get(ctx(t), schoolA, uuid.NewString())
	wantErr(t, "Loan missing", err, errs.NotFound, "loan_not_found")

	// A loan stored as returned keeps its return time.
	done := newLoan(schoolA, uuid.NewString(), uuid.NewString(), base)
	done.ReturnedAt = base.Add(3 * 24 * time.Hour)
	must(t, "InsertLoan returned", r.Loans.Insert(ctx(t), done))
	got, err = r.Loans.Get(ctx(t), schoolA, done.ID)
	must(t, "Loan returned", err)
	checkLoan(t, "Loan returned", got, done)
}

func testLibLoansByID(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	a := insertLoan(t, r, schoolA, uuid.NewString(), uuid.NewString(), base)
	b := insertLoan(t, r, schoolB, uuid.NewString(), uuid.NewString(), base)
	insertLoan(t, r, schoolA, uuid.NewString(), uuid.NewString(), base) // not asked for

	got, err := r.Loans.ByIDs(ctx(t), []string{b.ID, uuid.NewString(), a.ID, b.ID})
	must(t, "LoansByID", err)
	if fmt.Sprint(sortedIDs(loanIDs(got))) != fmt.Sprint(sortedIDs([]string{a.ID, b.ID})) {
		t.Fatalf("LoansByID = %v, want %v (any school, each once)", loanIDs(got), []string{a.ID, b.ID})
	}
	for _, l := range got {
		if l.ID == b.ID {
			checkLoan(t, "LoansByID b", l, b)
		}
	}
	got, err = r.Loans.ByIDs(ctx(t), nil)
	must(t, "LoansByID none", err)
	if len(got) != 0 {
		t.Fatalf("LoansByID(nil) = %v, want none", loanIDs(got))
	}
}

func testLibOpenLoans(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	s1, s2, b1, b2 := uuid.NewString(), uuid.NewString(), uuid.NewString(), uuid.NewString()
	l1 := insertLoan(t, r, schoolA, s1, b1, base.Add(time.Hour))
	l2 := insertLoan(t, r, schoolA, s2, b1, base)
	l3 := insertLoan(t, r, schoolA, s1, b2, base.Add(2*time.Hour))
	l4 := insertLoan(t, r, schoolA, s1, b1, base.Add(-time.Hour))
	must(t, "MarkReturned l4", r.Loans.MarkReturned(ctx(t), l4.ID, base))
	done := newLoan(schoolA, s1, b1, base.Add(-2*time.Hour)) // stored as returned
	done.ReturnedAt = base
	must(t, "InsertLoan returned", r.Loans.Insert(ctx(t), done))
	l5 := insertLoan(t, r, schoolB, s1, b1, base)

	open := func(student, book string) []library.Loan {
		t.Helper()
		loans, err := r.Loans.Open(ctx(t), schoolA, student, book)
		must(t, "OpenLoans", err)
		return loans
	}
	wantLoans(t, "OpenLoans(A)", open("", ""), l2, l1, l3)
	wantLoans(t, "OpenLoans(A, s1)", open(s1, ""), l1, l3)
	wantLoans(t, "OpenLoans(A, book b1)", open("", b1), l2, l1)
	wantLoans(t, "OpenLoans(A, s1, b1)", open(s1, b1), l1)
	wantLoans(t, "OpenLoans(A, unknown student)", open(uuid.NewString(), ""))

	loans, err := r.Loans.Open(ctx(t), schoolB, "", "")
	must(t, "OpenLoans(B)", err)
	wantLoans(t, "OpenLoans(B)", loans, l5)

	must(t, "MarkReturned l1", r.Loans.MarkReturned(ctx(t), l1.ID, base.Add(3*time.Hour)))
	wantLoans(t, "OpenLoans(A, s1) after a return", open(s1, ""), l3)
}

func testLibLoansOfStudent(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	student := uuid.NewString()
	l1 := insertLoan(t, r, schoolA, student, uuid.NewString(), base)
	l2 := insertLoan(t, r, schoolA, student, uuid.NewString(), base.Add(48*time.Hour))
	l3 := insertLoan(t, r, schoolB, student, uuid.NewString(), base.Add(24*time.Hour))
	must(t, "MarkReturned l1", r.Loans.MarkReturned(ctx(t), l1.ID, base.Add(time.Hour)))
	l1.ReturnedAt = base.Add(time.Hour)
	insertLoan(t, r, schoolA, uuid.NewString(), uuid.NewString(), base) // another student

	loans, err := r.Loans.OfStudent(ctx(t), student)
	must(t, "LoansOfStudent", err)
	wantLoans(t, "LoansOfStudent", loans, l2, l3, l1)

	loans, err = r.Loans.OfStudent(ctx(t), uuid.NewString())
	must(t, "LoansOfStudent without loans", err)
	wantLoans(t, "LoansOfStudent without loans", loans)
}

func testLibMarkReturned(t *testing.T, r ports.Repositories) {
	schoolA := uuid.NewString()
	l := insertLoan(t, r, schoolA, uuid.NewString(), uuid.NewString(), base)
	other := insertLoan(t, r, schoolA, uuid.NewString(), uuid.NewString(), base)
	first := base.Add(5 * 24 * time.Hour)
	must(t, "MarkReturned", r.Loans.MarkReturned(ctx(t), l.ID, first))
	must(t, "MarkReturned again", r.Loans.MarkReturned(ctx(t), l.ID, first.Add(time.Hour)))

	got, err := r.Loans.Get(ctx(t), schoolA, l.ID)
	must(t, "Loan", err)
	l.ReturnedAt = first
	checkLoan(t, "Loan after two returns", got, l)

	got, err = r.Loans.Get(ctx(t), schoolA, other.ID)
	must(t, "Loan other", err)
	checkLoan(t, "Loan not returned", got, other)

	must(t, "MarkReturned missing loan", r.Loans.MarkReturned(ctx(t), uuid.NewString(), first))
}

func testLibDeleteLoan(t *testing.T, r ports.Repositories) {
	schoolA := uuid.NewString()
	l := insertLoan(t, r, schoolA, uuid.NewString(), uuid.NewString(), base)
	other := insertLoan(t, r, schoolA, uuid.NewString(), uuid.NewString(), base)
	must(t, "DeleteLoan", r.Loans.Delete(ctx(t), l.ID))
	_, err := r.Loans.Get(ctx(t), schoolA, l.ID)
	wantErr(t, "Loan deleted", err, errs.NotFound, "loan_not_found")
	must(t, "DeleteLoan again", r.Loans.Delete(ctx(t), l.ID))
	must(t, "DeleteLoan never stored", r.Loans.Delete(ctx(t), uuid.NewString()))
	got, err := r.Loans.Get(ctx(t), schoolA, other.ID)
	must(t, "Loan other", err)
	checkLoan(t, "Loan other after DeleteLoan", got, other)
}

func testLibAnonymizeStudent(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	student, other := uuid.NewString(), uuid.NewString()
	l1 := insertLoan(t, r, schoolA, student, uuid.NewString(), base)
	l2 := insertLoan(t, r, schoolB, student, uuid.NewString(), base.Add(time.Hour))
	must(t, "MarkReturned l1", r.Loans.MarkReturned(ctx(t), l1.ID, base.Add(2*time.Hour)))
	l1.ReturnedAt = base.Add(2 * time.Hour)
	kept := insertLoan(t, r, schoolA, other, uuid.NewString(), base)

	must(t, "AnonymizeStudent", r.Loans.AnonymizeStudent(ctx(t), student))
	must(t, "AnonymizeStudent again", r.Loans.AnonymizeStudent(ctx(t), student))

	loans, err := r.Loans.OfStudent(ctx(t), student)
	must(t, "LoansOfStudent", err)
	wantLoans(t, "LoansOfStudent after AnonymizeStudent", loans)

	l1.StudentID, l2.StudentID = "", ""
	for _, want := range []library.Loan{l1, l2} {
		loans, err = r.Loans.ByIDs(ctx(t), []string{want.ID})
		must(t, "ByIDs of an anonymized loan", err)
		wantLoans(t, "ByIDs of an anonymized loan: the history is kept without the student", loans, want)
		if !loans[0].StudentDeleted() {
			t.Errorf("anonymized loan %s: StudentDeleted() = false", want.ID)
		}
	}

	loans, err = r.Loans.OfStudent(ctx(t), other)
	must(t, "LoansOfStudent other", err)
	wantLoans(t, "LoansOfStudent of another student", loans, kept)
	must(t, "AnonymizeStudent without loans", r.Loans.AnonymizeStudent(ctx(t), uuid.NewString()))
}

// AnonymizeReturned takes the school's loans returned before the cutoff,
// oldest first and a batch at a time, and leaves open loans, loans
// returned since, and other schools' loans naming their students.
func testLibAnonymizeReturned(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	student := uuid.NewString()
	cutoff := base.Add(10 * 24 * time.Hour)
	var old []library.Loan
	for i := range 5 {
		l := insertLoan(t, r, schoolA, student, uuid.NewString(), base.Add(time.Duration(i)*time.Hour))
		must(t, "MarkReturned old", r.Loans.MarkReturned(ctx(t), l.ID, base.Add(time.Duration(24*(i+1))*time.Hour)))
		l.ReturnedAt = base.Add(time.Duration(24*(i+1)) * time.Hour)
		old = append(old, l)
	}
	recent := insertLoan(t, r, schoolA, student, uuid.NewString(), base)
	must(t, "MarkReturned recent", r.Loans.MarkReturned(ctx(t), recent.ID, cutoff.Add(time.Minute)))
	recent.ReturnedAt = cutoff.Add(time.Minute)
	open := insertLoan(t, r, schoolA, student, uuid.NewString(), base)
	elsewhere := insertLoan(t, r, schoolB, student, uuid.NewString(), base)
	must(t, "MarkReturned elsewhere", r.Loans.MarkReturned(ctx(t), elsewhere.ID, base.Add(time.Hour)))
	elsewhere.ReturnedAt = base.Add(time.Hour)

	n, err := r.Loans.AnonymizeReturned(ctx(t), schoolA, cutoff, 3)
	must(t, "AnonymizeReturned first batch", err)
	if n != 3 {
		t.Fatalf("first batch of 3: anonymized %d loans", n)
	}
	// The oldest returns go first.
	for i, l := range old {
		got, err := r.Loans.ByIDs(ctx(t), []string{l.ID})
		must(t, "ByIDs", err)
		if want := i >= 3; len(got) != 1 || (got[0].StudentID == student) != want {
			t.Errorf("after the first batch, loan returned on day %d names its student: %v, want %v", i+1, !got[0].StudentDeleted(), want)
		}
	}
	n, err = r.Loans.AnonymizeReturned(ctx(t), schoolA, cutoff, 3)
	must(t, "AnonymizeReturned second batch", err)
	if n != 2 {
		t.Fatalf("second batch: anonymized %d loans, want the 2 left", n)
	}
	n, err = r.Loans.AnonymizeReturned(ctx(t), schoolA, cutoff, 3)
	must(t, "AnonymizeReturned again", err)
	if n != 0 {
		t.Fatalf("a third batch anonymized %d loans, want 0", n)
	}
	loans, err := r.Loans.OfStudent(ctx(t), student)
	must(t, "OfStudent", err)
	if len(loans) != 3 {
		t.Fatalf("the student still has %d loans, want 3 (returned since the cutoff, open, another school's)", len(loans))
	}
	for _, want := range []library.Loan{recent, open, elsewhere} {
		got, err := r.Loans.ByIDs(ctx(t), []string{want.ID})
		must(t, "ByIDs kept", err)
		wantLoans(t, "a loan the cutoff does not reach", got, want)
	}
	for _, l := range old {
		l.StudentID = ""
		got, err := r.Loans.ByIDs(ctx(t), []string{l.ID})
		must(t, "ByIDs anonymized", err)
		wantLoans(t, "an anonymized loan keeps its book and dates", got, l)
	}
}

// --- claims ---

func testLibClaimGet(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	c1 := newClaim(uuid.NewString(), uuid.NewString(), schoolA)
	c2 := newClaim(uuid.NewString(), uuid.NewString(), schoolA)
	c3 := newClaim(uuid.NewString(), uuid.NewString(), schoolB)
	for _, c := range []library.CopyClaim{c1, c2, c3} {
		must(t, "ClaimCopy", r.ActiveLoans.Claim(ctx(t), c))
	}
	got, err := r.ActiveLoans.Holder(ctx(t), c1.CopyID)
	must(t, "Claim", err)
	checkClaim(t, "Claim", got, c1)

	again := newClaim(c1.CopyID, uuid.NewString(), schoolA)
	wantErr(t, "ClaimCopy of a claimed copy", r.ActiveLoans.Claim(ctx(t), again), errs.Conflict, "copy_claimed")
	got, err = r.ActiveLoans.Holder(ctx(t), c1.CopyID)
	must(t, "Claim after conflict", err)
	checkClaim(t, "Claim after conflict keeps the first", got, c1)

	_, err = r.ActiveLoans.Holder(ctx(t), uuid.NewString())
	wantErr(t, "Claim of an unclaimed copy", err, errs.NotFound, "claim_not_found")

	claims, err := r.ActiveLoans.ClaimsOfCopies(ctx(t), []string{c3.CopyID, uuid.NewString(), c1.CopyID, c1.CopyID})
	must(t, "ClaimsByCopy", err)
	wantClaimSet(t, "ClaimsByCopy", claims, c1, c3)
	claims, err = r.ActiveLoans.ClaimsOfCopies(ctx(t), nil)
	must(t, "ClaimsByCopy none", err)
	wantClaimSet(t, "ClaimsByCopy(nil)", claims)

	books := []string{c1.BookID, c2.BookID, c3.BookID}
	claims, err = r.ActiveLoans.ClaimsOfBooks(ctx(t), schoolA, books)
	must(t, "ClaimsOfBooks", err)
	wantClaimSet(t, "ClaimsOfBooks(A)", claims, c1, c2)
	claims, err = r.ActiveLoans.ClaimsOfBooks(ctx(t), schoolB, books)
	must(t, "ClaimsOfBooks B", err)
	wantClaimSet(t, "ClaimsOfBooks(B)", claims, c3)
	claims, err = r.ActiveLoans.ClaimsOfBooks(ctx(t), uuid.NewString(), books)
	must(t, "ClaimsOfBooks without claims", err)
	wantClaimSet(t, "ClaimsOfBooks without claims", claims)
}

func testLibClaimCopyRace(t *testing.T, r ports.Repositories) {
	const racers, rounds = 50, 3
	schoolA := uuid.NewString()
	var copyIDs []string
	for round := range rounds {
		copyID := uuid.NewString()
		copyIDs = append(copyIDs, copyID)
		claims := make([]library.CopyClaim, racers)
		for i := range claims {
			claims[i] = newClaim(copyID, uuid.NewString(), schoolA)
		}
		c := ctx(t)
		results := race(racers, func(i int) error { return r.ActiveLoans.Claim(c, claims[i]) })
		winner := wantOneWinner(t, fmt.Sprintf("ClaimCopy (round %d)", round+1), results, "copy_claimed")
		got, err := r.ActiveLoans.Holder(ctx(t), copyID)
		must(t, "Claim", err)
		checkClaim(t, "Claim after the race", got, claims[winner])
	}
	claims, err := r.ActiveLoans.ClaimsOfCopies(ctx(t), copyIDs)
	must(t, "ClaimsOfCopies", err)
	if len(claims) != rounds {
		t.Fatalf("ClaimsOfCopies after %d races = %d claims, want %d", rounds, len(claims), rounds)
	}
}

func testLibReleaseClaim(t *testing.T, r ports.Repositories) {
	schoolA := uuid.NewString()
	c := newClaim(uuid.NewString(), uuid.NewString(), schoolA)
	must(t, "ClaimCopy", r.ActiveLoans.Claim(ctx(t), c))

	must(t, "ReleaseClaim with another loan", r.ActiveLoans.Release(ctx(t), c.CopyID, uuid.NewString()))
	got, err := r.ActiveLoans.Holder(ctx(t), c.CopyID)
	must(t, "Claim after ReleaseClaim with another loan", err)
	checkClaim(t, "Claim after ReleaseClaim with another loan", got, c)

	must(t, "ReleaseClaim", r.ActiveLoans.Release(ctx(t), c.CopyID, c.LoanID))
	_, err = r.ActiveLoans.Holder(ctx(t), c.CopyID)
	wantErr(t, "Claim after ReleaseClaim", err, errs.NotFound, "claim_not_found")
	must(t, "ReleaseClaim again", r.ActiveLoans.Release(ctx(t), c.CopyID, c.LoanID))

	// The copy can be claimed again, and the old loan cannot release the
	// new claim.
	next := newClaim(c.CopyID, uuid.NewString(), schoolA)
	must(t, "ClaimCopy after the release", r.ActiveLoans.Claim(ctx(t), next))
	must(t, "ReleaseClaim by the old loan", r.ActiveLoans.Release(ctx(t), c.CopyID, c.LoanID))
	got, err = r.ActiveLoans.Holder(ctx(t), c.CopyID)
	must(t, "Claim of the new loan", err)
	checkClaim(t, "Claim of the new loan", got, next)
}

// testLibReleaseRace releases one loan's claim twice at once (a double
// return) while another loan claims the copy as soon as it is free: the
// late release must not remove the new claim. Some MongoDB-compatible
// servers delete by reading the matching documents and then deleting their
// _ids, so a claim keyed by the copy id alone lost the new claim in most
// rounds there.
func testLibReleaseRace(t *testing.T, r ports.Repositories) {
	const rounds = 20
	schoolA := uuid.NewString()
	for round := range rounds {
		old := newClaim(uuid.NewString(), uuid.NewString(), schoolA)
		must(t, "ClaimCopy", r.ActiveLoans.Claim(ctx(t), old))
		next := newClaim(old.CopyID, uuid.NewString(), schoolA)
		c := ctx(t)
		results := race(3, func(i int) error {
			if i < 2 {
				return r.ActiveLoans.Release(c, old.CopyID, old.LoanID)
			}
			for {
				err := r.ActiveLoans.Claim(c, next)
				if errs.CodeOf(err) != "copy_claimed" {
					return err
				}
			}
		})
		for i, err := range results {
			must(t, fmt.Sprintf("round %d call #%d", round+1, i), err)
		}
		got, err := r.ActiveLoans.Holder(ctx(t), old.CopyID)
		must(t, fmt.Sprintf("Claim after round %d", round+1), err)
		checkClaim(t, fmt.Sprintf("Claim after round %d", round+1), got, next)
	}
}

// --- renewals ---

func testLibRenewals(t *testing.T, r ports.Repositories) {
	loanA, loanB := "00000000-0000-4000-8000-00000000000a", "00000000-0000-4000-8000-00000000000b"
	rn := func(loan string, n int) library.Renewal {
		return library.Renewal{LoanID: loan, Number: n, DueAt: fmt.Sprintf("2025-04-%02d", n), RenewedAt: base.Add(time.Duration(n) * time.Hour)}
	}
	// Numbers 2 and 10 sort as numbers, not as text.
	for _, x := range []library.Renewal{rn(loanB, 1), rn(loanA, 10), rn(loanA, 2), rn(loanA, 1), rn("00000000-0000-4000-8000-00000000000c", 1)} {
		must(t, fmt.Sprintf("AddRenewal %s#%d", x.LoanID, x.Number), r.Loans.AddRenewal(ctx(t), x))
	}
	dup := rn(loanA, 2)
	dup.DueAt = "2030-01-01"
	wantErr(t, "AddRenewal same loan and number", r.Loans.AddRenewal(ctx(t), dup), errs.Conflict, "renewal_exists")

	got, err := r.Loans.Renewals(ctx(t), []string{loanB, loanA, uuid.NewString()})
	must(t, "Renewals", err)
	want := []library.Renewal{rn(loanA, 1), rn(loanA, 2), rn(loanA, 10), rn(loanB, 1)}
	if len(got) != len(want) {
		t.Fatalf("Renewals = %+v, want %+v", got, want)
	}
	for i := range want {
		if !sameTime(got[i].RenewedAt, want[i].RenewedAt) {
			t.Errorf("Renewals[%d].RenewedAt = %v, want %v", i, got[i].RenewedAt, want[i].RenewedAt)
		}
		got[i].RenewedAt = want[i].RenewedAt
		if got[i] != want[i] {
			t.Errorf("Renewals[%d] = %+v, want %+v (by loan, then number; the refused one not stored)", i, got[i], want[i])
		}
	}
	got, err = r.Loans.Renewals(ctx(t), nil)
	must(t, "Renewals none", err)
	if len(got) != 0 {
		t.Fatalf("Renewals(nil) = %+v, want none", got)
	}
}

func testLibRenewalRace(t *testing.T, r ports.Repositories) {
	const racers = 30
	loan := uuid.NewString()
	c := ctx(t)
	results := race(racers, func(i int) error {
		return r.Loans.AddRenewal(c, library.Renewal{LoanID: loan, Number: 1, DueAt: fmt.Sprintf("2025-05-%02d", i%28+1), RenewedAt: base})
	})
	winner := wantOneWinner(t, "AddRenewal", results, "renewal_exists")
	got, err := r.Loans.Renewals(ctx(t), []string{loan})
	must(t, "Renewals", err)
	if len(got) != 1 || got[0].DueAt != fmt.Sprintf("2025-05-%02d", winner%28+1) {
		t.Fatalf("Renewals after the race = %+v, want only the winner's (#%d)", got, winner)
	}
}

// --- settings, student numbers, invites ---

func testLibSaveSettings(t *testing.T, r ports.Repositories) {
	s := newSchool("Maple High", "maple.example.org")
	other := newSchool("Oak", "oak.example.org")
	must(t, "Create school", r.Schools.Create(ctx(t), s))
	must(t, "Create other school", r.Schools.Create(ctx(t), other))

	// Zero values are stored as such; the copy caps too, and an empty
	// catalogue server (lookups off) is not read back as the default.
	settings := library.Settings{DefaultLoanDays: 7, MaxRenewals: 0, RenewalDays: 3, AllowPublicCatalog: false,
		MaxCopiesPerBook: 3, MaxCopiesPerSchool: 10, HoldPickupDays: 1}
	must(t, "SaveSettings", r.Schools.SaveSettings(ctx(t), s.ID, settings))
	got, err := r.Schools.Get(ctx(t), s.ID)
	must(t, "Get", err)
	want := s
	want.Settings = settings
	checkSchool(t, "Get after SaveSettings", got, want)
	got, err = r.Schools.GetByDomain(ctx(t), s.Domain)
	must(t, "GetByDomain", err)
	checkSchool(t, "GetByDomain after SaveSettings", got, want)

	settings = library.Settings{DefaultLoanDays: 28, MaxRenewals: 5, RenewalDays: 14, AllowPublicCatalog: true,
		MaxCopiesPerBook: library.MaxCopiesPerBookLimit, MaxCopiesPerSchool: library.MaxCopiesPerSchoolLimit,
		HoldPickupDays: library.MaxHoldPickupDays, CatalogEndpoint: "https://koha.maple.example.org:9998/biblios?x-db=kids"}
	must(t, "SaveSettings again", r.Schools.SaveSettings(ctx(t), s.ID, settings))
	got, err = r.Schools.Get(ctx(t), s.ID)
	must(t, "Get", err)
	want.Settings = settings
	checkSchool(t, "Get after the second SaveSettings", got, want)

	got, err = r.Schools.Get(ctx(t), other.ID)
	must(t, "Get other", err)
	checkSchool(t, "Get other school", got, other)

	wantErr(t, "SaveSettings of a missing school", r.Schools.SaveSettings(ctx(t), uuid.NewString(), settings), errs.NotFound, "school_not_found")
}

// testSchoolSaveCalendar: a calendar is stored whole and read with its
// school by every read; saving the calendar keeps the settings and saving
// the settings keeps the calendar; the empty calendar clears it.
func testSchoolSaveCalendar(t *testing.T, r ports.Repositories) {
	s := newSchool("Maple High", "maple.example.org")
	other := newSchool("Oak", "oak.example.org")
	must(t, "Create school", r.Schools.Create(ctx(t), s))
	must(t, "Create other school", r.Schools.Create(ctx(t), other))

	cal := library.Calendar{
		ClosedWeekdays: []time.Weekday{time.Monday, time.Saturday, time.Sunday},
		Closures: []library.Closure{
			{From: "2026-12-21", To: "2027-01-03", Name: "Winter break"},
			{From: "2027-02-15", To: "2027-02-15"}, // one day, no name
			{From: "2027-04-01", To: "2027-04-12", Name: "Pâques – «spring» break"},
		},
		TermEnds: []string{"2026-12-18", "2027-03-26", "2027-07-09"},
	}
	must(t, "SaveCalendar", r.Schools.SaveCalendar(ctx(t), s.ID, cal))
	want := s
	want.Calendar = cal
	wantSchool(t, r, "Get after SaveCalendar", s.ID, want)
	got, err := r.Schools.GetByDomain(ctx(t), s.Domain)
	must(t, "GetByDomain", err)
	checkSchool(t, "GetByDomain after SaveCalendar", got, want)
	list, err := r.Schools.List(ctx(t))
	must(t, "List", err)
	if len(list) != 2 {
		t.Fatalf("List = %d schools, want 2", len(list))
	}
	checkSchool(t, "List (Maple)", list[0], want)
	checkSchool(t, "List (Oak)", list[1], other)

	settings := library.Settings{DefaultLoanDays: 10, MaxRenewals: 1, RenewalDays: 5, MaxCopiesPerBook: 9, MaxCopiesPerSchool: 99, Timezone: "America/Chicago",
		HoldPickupDays: 4, LoanHistoryDays: 30}
	must(t, "SaveSettings", r.Schools.SaveSettings(ctx(t), s.ID, settings))
	want.Settings = settings
	wantSchool(t, r, "Get after SaveSettings (the calendar stays)", s.ID, want)

	smaller := library.Calendar{TermEnds: []string{"2027-07-09"}}
	must(t, "SaveCalendar smaller", r.Schools.SaveCalendar(ctx(t), s.ID, smaller))
	want.Calendar = smaller
	wantSchool(t, r, "Get after a second SaveCalendar (replaced whole, settings stay)", s.ID, want)

	must(t, "SaveCalendar empty", r.Schools.SaveCalendar(ctx(t), s.ID, library.Calendar{}))
	want.Calendar = library.Calendar{}
	wantSchool(t, r, "Get after saving the empty calendar", s.ID, want)

	wantSchool(t, r, "Get other school", other.ID, other)
	wantErr(t, "SaveCalendar of a missing school", r.Schools.SaveCalendar(ctx(t), uuid.NewString(), cal), errs.NotFound, "school_not_found")
}

// wantSchool reads the school with id and checks it is want.
func wantSchool(t *testing.T, r ports.Repositories, call, id string, want library.School) {
	t.Helper()
	got, err := r.Schools.Get(ctx(t), id)
	must(t, call, err)
	checkSchool(t, call, got, want)
}

func testLibStudentNumbers(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	acc1, acc2 := uuid.NewString(), uuid.NewString()
	must(t, "ClaimStudentNumber", r.Students.ClaimNumber(ctx(t), schoolA, "2024-017", acc1))
	wantErr(t, "ClaimStudentNumber taken", r.Students.ClaimNumber(ctx(t), schoolA, "2024-017", acc2), errs.Conflict, "student_number_exists")
	wantErr(t, "ClaimStudentNumber taken, same account", r.Students.ClaimNumber(ctx(t), schoolA, "2024-017", acc1), errs.Conflict, "student_number_exists")
	must(t, "ClaimStudentNumber in another school", r.Students.ClaimNumber(ctx(t), schoolB, "2024-017", acc2))
	must(t, "ClaimStudentNumber another number", r.Students.ClaimNumber(ctx(t), schoolA, "2024-018", acc2))

	c := ctx(t)
	results := race(20, func(i int) error {
		return r.Students.ClaimNumber(c, schoolA, "2024-099", uuid.NewString())
	})
	wantOneWinner(t, "ClaimStudentNumber", results, "student_number_exists")
}

func testLibInvites(t *testing.T, r ports.Repositories) {
	inv := library.Invite{TokenHash: "sha256-" + uuid.NewString(), AccountID: uuid.NewString(), ExpiresAt: base.Add(72 * time.Hour), CreatedAt: base}
	must(t, "CreateInvite", r.Invites.Create(ctx(t), inv))
	check := func(call string) {
		t.Helper()
		got, err := r.Invites.Get(ctx(t), inv.TokenHash)
		must(t, call, err)
		if !sameTime(got.ExpiresAt, inv.ExpiresAt) || !sameTime(got.CreatedAt, inv.CreatedAt) {
			t.Errorf("%s: times = %v, %v, want %v, %v", call, got.ExpiresAt, got.CreatedAt, inv.ExpiresAt, inv.CreatedAt)
		}
		got.ExpiresAt, got.CreatedAt = inv.ExpiresAt, inv.CreatedAt
		if got != inv {
			t.Errorf("%s:\n got %+v\nwant %+v", call, got, inv)
		}
	}
	check("Invite")
	_, err := r.Invites.Get(ctx(t), "sha256-unknown")
	wantErr(t, "Invite missing", err, errs.NotFound, "invite_not_found")

	must(t, "RedeemInvite", r.Invites.Redeem(ctx(t), inv.TokenHash, base.Add(time.Hour)))
	wantErr(t, "RedeemInvite again", r.Invites.Redeem(ctx(t), inv.TokenHash, base.Add(2*time.Hour)), errs.Conflict, "invite_used")
	check("Invite after redemption")

	other := library.Invite{TokenHash: "sha256-" + uuid.NewString(), AccountID: uuid.NewString(), ExpiresAt: base, CreatedAt: base}
	must(t, "CreateInvite other", r.Invites.Create(ctx(t), other))
	must(t, "RedeemInvite other", r.Invites.Redeem(ctx(t), other.TokenHash, base))
}

func testLibRedeemRace(t *testing.T, r ports.Repositories) {
	inv := library.Invite{TokenHash: "sha256-" + uuid.NewString(), AccountID: uuid.NewString(), ExpiresAt: base.Add(time.Hour), CreatedAt: base}
	must(t, "CreateInvite", r.Invites.Create(ctx(t), inv))
	c := ctx(t)
	results := race(20, func(i int) error {
		return r.Invites.Redeem(c, inv.TokenHash, base.Add(time.Duration(i)*time.Second))
	})
	wantOneWinner(t, "RedeemInvite", results, "invite_used")
	wantErr(t, "RedeemInvite afterwards", r.Invites.Redeem(ctx(t), inv.TokenHash, base), errs.Conflict, "invite_used")
}

func testLibForgetAccount(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	gone, kept := uuid.NewString(), uuid.NewString()
	must(t, "ClaimStudentNumber", r.Students.ClaimNumber(ctx(t), school, "S-1", gone))
	must(t, "ClaimStudentNumber", r.Students.ClaimNumber(ctx(t), school, "S-2", kept))
	inv := library.Invite{TokenHash: "sha256-" + uuid.NewString(), AccountID: gone, ExpiresAt: base.Add(time.Hour), CreatedAt: base}
	must(t, "CreateInvite", r.Invites.Create(ctx(t), inv))
	keptInv := library.Invite{TokenHash: "sha256-" + uuid.NewString(), AccountID: kept, ExpiresAt: base.Add(time.Hour), CreatedAt: base}
	must(t, "CreateInvite kept", r.Invites.Create(ctx(t), keptInv))
	must(t, "ReleaseNumbers", r.Students.ReleaseNumbers(ctx(t), gone))
	must(t, "ReleaseNumbers again", r.Students.ReleaseNumbers(ctx(t), gone))
	must(t, "Invites.DeleteByAccount", r.Invites.DeleteByAccount(ctx(t), gone))
	must(t, "Invites.DeleteByAccount again", r.Invites.DeleteByAccount(ctx(t), gone))
	_, err := r.Invites.Get(ctx(t), inv.TokenHash)
	wantErr(t, "Invite after DeleteByAccount", err, errs.NotFound, "invite_not_found")
	_, err = r.Invites.Get(ctx(t), keptInv.TokenHash)
	must(t, "the other account's invite stays", err)
	// The forgotten account's number is free again; the other stays taken.
	must(t, "ClaimStudentNumber freed", r.Students.ClaimNumber(ctx(t), school, "S-1", uuid.NewString()))
	wantErr(t, "ClaimStudentNumber kept", r.Students.ClaimNumber(ctx(t), school, "S-2", uuid.NewString()), errs.Conflict, "student_number_exists")
}

func testStudentNumbersIgnoreCase(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	must(t, "ClaimNumber", r.Students.ClaimNumber(ctx(t), school, "ab-17", uuid.NewString()))
	wantErr(t, "ClaimNumber in other case", r.Students.ClaimNumber(ctx(t), school, "AB-17", uuid.NewString()), errs.Conflict, "student_number_exists")
}

func testStudentTakenNumbers(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	must(t, "ClaimNumber", r.Students.ClaimNumber(ctx(t), schoolA, "A-1", uuid.NewString()))
	must(t, "ClaimNumber", r.Students.ClaimNumber(ctx(t), schoolA, "a-2", uuid.NewString()))
	must(t, "ClaimNumber B", r.Students.ClaimNumber(ctx(t), schoolB, "B-1", uuid.NewString()))
	taken, err := r.Students.TakenNumbers(ctx(t), schoolA, []string{"a-1", "A-2", "B-1", "A-3"})
	must(t, "TakenNumbers", err)
	var lower []string
	for _, n := range taken {
		lower = append(lower, strings.ToLower(n))
	}
	slices.Sort(lower)
	if fmt.Sprint(lower) != "[a-1 a-2]" {
		t.Fatalf("TakenNumbers = %v, want A-1 and a-2 in any case (B-1 is school B's)", taken)
	}
	taken, err = r.Students.TakenNumbers(ctx(t), schoolA, nil)
	must(t, "TakenNumbers(nil)", err)
	if len(taken) != 0 {
		t.Fatalf("TakenNumbers(nil) = %v, want none", taken)
	}
}

// createStudents stores students of a school (accounts with the student
// role) and returns them.
func createStudents(t *testing.T, r ports.Repositories, school string, specs ...[3]string) []user.Account {
	t.Helper()
	var out []user.Account
	for _, sp := range specs {
		a := user.Account{
			ID: uuid.NewString(), Name: sp[0], Email: sp[1], StudentNumber: sp[2], Role: user.RoleStudent, SchoolID: school,
			Tier: user.TierStandard, Preferences: user.DefaultPreferences(), CreatedAt: base, UpdatedAt: base,
		}
		must(t, "Create "+a.Name, r.Accounts.Create(ctx(t), a))
		out = append(out, a)
	}
	return out
}

func searchStudents(t *testing.T, r ports.Repositories, school, search string, offset, limit int) ([]string, int) {
	t.Helper()
	list, total, err := r.Students.Search(ctx(t), library.StudentQuery{SchoolID: school, Terms: catalog.QueryTerms(search), Offset: offset, Limit: limit})
	must(t, "Search "+search, err)
	names := []string{}
	for _, a := range list {
		if a.Role != user.RoleStudent || a.SchoolID != school {
			t.Fatalf("Search %q returned %s (%s of %s), want only students of the school", search, a.Name, a.Role, a.SchoolID)
		}
		names = append(names, a.Name)
	}
	return names, total
}

func testStudentSearchScope(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	if got, total := searchStudents(t, r, schoolA, "", 0, 10); len(got) != 0 || total != 0 {
		t.Fatalf("Search on empty = %v, %d; want none", got, total)
	}
	students := createStudents(t, r, schoolA,
		[3]string{"Zoë Quinn", "", "7A-01"}, [3]string{"Ada Brook", "ada@example.org", ""}, [3]string{"Ada Brook", "", "7A-02"},
		[3]string{"bea Stone", "", ""})
	createStudents(t, r, schoolB, [3]string{"Ada Other", "", ""})
	librarian := newAccount("lib@example.org")
	librarian.SchoolID, librarian.Name, librarian.Deleted = schoolA, "Ada Librarian", false
	must(t, "Create librarian", r.Accounts.Create(ctx(t), librarian))
	deleted := createStudents(t, r, schoolA, [3]string{"Ada Gone", "", ""})[0]
	deleted.Deleted = true
	must(t, "Update deleted", r.Accounts.Update(ctx(t), deleted))

	got, total := searchStudents(t, r, schoolA, "", 0, 10)
	if fmt.Sprint(got) != "[Ada Brook Ada Brook Zoë Quinn bea Stone]" || total != 4 {
		t.Fatalf("Search all = %v, %d; want the 4 students by name (byte order), not the librarian, the deleted one or school B's", got, total)
	}
	list, _, err := r.Students.Search(ctx(t), library.StudentQuery{SchoolID: schoolA, Limit: 10})
	must(t, "Search", err)
	first, second := students[1], students[2]
	if first.ID > second.ID {
		first, second = second, first
	}
	if list[0].ID != first.ID || list[1].ID != second.ID {
		t.Fatalf("Search twins = %s, %s; want %s first (by id)", list[0].ID, list[1].ID, first.ID)
	}
	checkAccount(t, "Search[0]", list[0], first)
}

func testStudentSearchWords(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	createStudents(t, r, school,
		[3]string{"Zoë Quinn", "zq@pupils.example.org", "7A-01"}, [3]string{"Ada Brook", "ada.b@pupils.example.org", ""},
		[3]string{"Adam Lee", "", "8B-11"}, [3]string{"Émile Durand", "", "A-10"})
	for _, tc := range []struct{ search, want string }{
		{"ada", "[Ada Brook Adam Lee]"},     // a name word's start
		{"ADA BRO", "[Ada Brook]"},          // every word, any case
		{"zoe", "[Zoë Quinn]"},              // accents ignored
		{"emile", "[Émile Durand]"},         // accents ignored
		{"quinn zq", "[Zoë Quinn]"},         // name and email words together
		{"pupils", "[Ada Brook Zoë Quinn]"}, // an email word
		{"7a-01", "[Zoë Quinn]"},            // the student number
		{"8b", "[Adam Lee]"},                // its start
		{"a-10", "[Émile Durand]"},          // a number is words too
		{"uinn", "[]"},                      // words match from their start
		{"ada quinn", "[]"},                 // every word must match one student
	} {
		if got, total := searchStudents(t, r, school, tc.search, 0, 10); fmt.Sprint(got) != tc.want || total != len(got) {
			t.Errorf("Search %q = %v (total %d), want %s", tc.search, got, total, tc.want)
		}
	}
}

func testStudentSearchPages(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	var specs [][3]string
	for i := range 12 {
		specs = append(specs, [3]string{fmt.Sprintf("Pupil %02d", i), "", fmt.Sprintf("N-%d", i)})
	}
	specs = append(specs, [3]string{"Other Name", "", "X-1"})
	createStudents(t, r, school, specs...)
	if got, total := searchStudents(t, r, school, "pupil", 5, 5); fmt.Sprint(got) != "[Pupil 05 Pupil 06 Pupil 07 Pupil 08 Pupil 09]" || total != 12 {
		t.Fatalf("Search pupil (5, 5) = %v, %d; want Pupil 05..09 of 12", got, total)
	}
	if got, total := searchStudents(t, r, school, "pupil", 10, 5); fmt.Sprint(got) != "[Pupil 10 Pupil 11]" || total != 12 {
		t.Fatalf("Search pupil (10, 5) = %v, %d; want the last two of 12", got, total)
	}
	if got, total := searchStudents(t, r, school, "", 20, 5); len(got) != 0 || total != 13 {
		t.Fatalf("Search past the end = %v, %d; want none of 13", got, total)
	}
}
