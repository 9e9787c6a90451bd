package sqliterepo_test

import (
	"context"
	"fmt"
	mathrand "math/rand/v2"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/sqliterepo/sqlitetest"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// The school of BenchmarkLibrary.
const (
	benchBooks      = 10_000
	benchCopiesEach = 2
	benchStudents   = 2_000
	benchLoans      = 100_000
	benchOpenLoans  = 2_000 // the last loans, each on its own copy, claimed
	benchSchool     = "school-bench"
)

var (
	benchAdjectives = []string{"silver", "hidden", "broken", "golden", "quiet", "wild", "lost", "burning", "frozen", "secret",
		"last", "little", "dark", "bright", "ancient", "crimson", "empty", "distant", "hollow", "painted",
		"sleeping", "iron", "glass", "winter", "summer", "endless", "forgotten", "northern", "velvet", "paper"}
	benchNouns = []string{"dragon", "garden", "river", "castle", "forest", "harbour", "mountain", "lantern", "orchard", "island",
		"kingdom", "mirror", "shadow", "city", "letter", "wolf", "clock", "bridge", "library", "storm",
		"voyage", "crown", "meadow", "tower", "desert", "song", "whale", "key", "door", "star"}
	benchFirst = []string{"Emma", "Liam", "Olivia", "Noah", "Ava", "Elias", "Mia", "Lucas", "Zoë", "Léa",
		"Mateo", "Sofia", "Hugo", "Alma", "Ivan", "Nora", "Omar", "Ines", "Felix", "Maja",
		"Theo", "Ella", "Jonas", "Clara", "Arthur", "Lina", "Oscar", "Ida", "Leo", "Freya",
		"Amir", "Yara", "Sami", "Hanna", "Milo", "Aino", "Emil", "Saga", "Adam", "Livia",
		"Tomás", "Eva", "Karl", "Rosa", "Finn", "Greta", "Luca", "Anja", "Max", "Selma"}
	benchLast = []string{"Andersson", "Berg", "Costa", "Dubois", "Eriksen", "Fischer", "García", "Hansen", "Ivanova", "Jensen",
		"Kowalski", "Lindqvist", "Martin", "Nilsen", "Olsen", "Petrov", "Quinn", "Rossi", "Schmidt", "Tanaka",
		"Ueda", "Virtanen", "Weber", "Xu", "Young", "Zimmermann", "Novak", "Horvat", "Moreau", "Larsen"}
)

// seedBenchSchool stores the benchmark's school through the repositories:
// books with generated titles ("The Silver Dragon 17") and authors, their
// copies, students with generated names and numbers, and loans over five
// years, all returned but the last benchOpenLoans, which hold claims.
func seedBenchSchool(b *testing.B, r ports.Repositories) (books []library.Book, copies []library.Copy, loans []library.Loan) {
	b.Helper()
	ctx := context.Background()
	rng := mathrand.New(mathrand.NewPCG(1, 2))
	must := func(err error) {
		b.Helper()
		if err != nil {
			b.Fatal(err)
		}
	}
	start := time.Date(2020, 9, 1, 8, 0, 0, 0, time.UTC)
	codes := mathrand.NewChaCha8([32]byte{'b', 'e', 'n', 'c', 'h'})
	for i := range benchBooks {
		book := library.Book{ID: fmt.Sprintf("lb-%05d", i), SchoolID: benchSchool, ISBN: fmt.Sprintf("978%010d", i),
			Title: fmt.Sprintf("The %s %s %d", capital(benchAdjectives[rng.IntN(len(benchAdjectives))]),
				capital(benchNouns[rng.IntN(len(benchNouns))]), i),
			Author:    benchFirst[rng.IntN(len(benchFirst))] + " " + benchLast[rng.IntN(len(benchLast))],
			CreatedAt: start}
		must(r.Holdings.CreateBook(ctx, book))
		books = append(books, book)
		for range benchCopiesEach {
			code, err := library.NewCopyCode(codes)
			must(err)
			copies = append(copies, library.Copy{ID: fmt.Sprintf("cp-%06d", len(copies)), SchoolID: benchSchool, BookID: book.ID, Code: code, CreatedAt: start})
		}
	}
	for i := 0; i < len(copies); i += 1000 {
		dups, err := r.Holdings.CreateCopies(ctx, copies[i:min(i+1000, len(copies))])
		must(err)
		if len(dups) != 0 {
			b.Fatalf("duplicate copy codes at %v", dups)
		}
	}
	students := make([]user.Account, benchStudents)
	for i := range students {
		students[i] = user.Account{ID: fmt.Sprintf("st-%05d", i), Role: user.RoleStudent, SchoolID: benchSchool,
			Name:          benchFirst[rng.IntN(len(benchFirst))] + " " + benchLast[rng.IntN(len(benchLast))],
			StudentNumber: fmt.Sprintf("%d-%04d", 2020+i%6, i), Tier: user.TierStandard, CreatedAt: start, UpdatedAt: start}
		must(r.Accounts.Create(ctx, students[i]))
	}
	step := 5 * 365 * 24 * time.Hour / benchLoans
	for i := range benchLoans {
		open := i >= benchLoans-benchOpenLoans
		ci := rng.IntN(len(copies))
		if open {
			ci = (i - (benchLoans - benchOpenLoans)) * (len(copies) / benchOpenLoans)
		}
		cp, book := copies[ci], books[ci/benchCopiesEach]
		at := start.Add(time.Duration(i) * step)
		l := library.Loan{ID: fmt.Sprintf("ln-%06d", i), SchoolID: benchSchool, BookID: cp.BookID, CopyID: cp.ID, CopyCode: cp.Code,
			StudentID: students[rng.IntN(len(students))].ID, LoanedAt: at, DueAt: at.AddDate(0, 0, 14).Format(time.DateOnly),
			BookTitle: book.Title, BookAuthor: book.Author}
		if !open {
			l.ReturnedAt = at.Add(10 * 24 * time.Hour)
		}
		must(r.Loans.Insert(ctx, l))
		if open {
			must(r.ActiveLoans.Claim(ctx, library.CopyClaim{CopyID: cp.ID, LoanID: l.ID, SchoolID: benchSchool, BookID: cp.BookID, ClaimedAt: at}))
		}
		loans = append(loans, l)
	}
	return books, copies, loans
}

func capital(s string) string { return string(s[0]-'a'+'A') + s[1:] }

// BenchmarkLibrary measures the library's reads on one school of 10,000
// books, 20,000 copies, 2,000 students and 100,000 loans (2,000 of them
// open), seeded through the repositories (which takes a minute or two: a
// synced commit per record).
func BenchmarkLibrary(b *testing.B) {
	db := sqlitetest.NewDB(b)
	r := db.Repositories()
	seeded := time.Now()
	books, copies, loans := seedBenchSchool(b, r)
	b.Logf("seeded in %v", time.Since(seeded).Round(time.Second))
	ctx := context.Background()

	bookIDs := make([]string, 0, 50)
	for i := range 50 {
		bookIDs = append(bookIDs, books[i*(len(books)/50)].ID)
	}
	loanIDs := make([]string, 0, 50)
	for i := range 50 {
		loanIDs = append(loanIDs, loans[i*(len(loans)/50)].ID)
	}
	// run measures call, after one call that counts its results (reported
	// as "results": rows returned, or the total of a search).
	run := func(name string, call func() (int, error)) {
		n, err := call()
		if err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := call(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n), "results")
		})
	}
	code := copies[len(copies)/3].Code
	run("CopyByCode", func() (int, error) {
		_, err := r.Holdings.CopyByCode(ctx, benchSchool, code)
		return 1, err
	})
	run("BooksPage/page3", func() (int, error) {
		page, _, err := r.Holdings.BooksPage(ctx, library.BookQuery{SchoolID: benchSchool, Offset: 40, Limit: 20})
		return len(page), err
	})
	run("BooksPage/search2words", func() (int, error) {
		_, total, err := r.Holdings.BooksPage(ctx, library.BookQuery{SchoolID: benchSchool, Terms: catalog.QueryTerms("silver dragon"), Limit: 20})
		return total, err
	})
	run("BooksPage/search1prefix", func() (int, error) {
		_, total, err := r.Holdings.BooksPage(ctx, library.BookQuery{SchoolID: benchSchool, Terms: catalog.QueryTerms("s"), Limit: 20})
		return total, err
	})
	run("Students.Search/1word", func() (int, error) {
		_, total, err := r.Students.Search(ctx, library.StudentQuery{SchoolID: benchSchool, Terms: catalog.QueryTerms("emma"), Limit: 20})
		return total, err
	})
	run("Students.Search/page1", func() (int, error) {
		page, _, err := r.Students.Search(ctx, library.StudentQuery{SchoolID: benchSchool, Limit: 20})
		return len(page), err
	})
	run("Loans.Open", func() (int, error) {
		open, err := r.Loans.Open(ctx, benchSchool, "", "")
		return len(open), err
	})
	run("Loans.OfStudent", func() (int, error) {
		all, err := r.Loans.OfStudent(ctx, "st-00042")
		return len(all), err
	})
	run("ClaimsOfBooks/50", func() (int, error) {
		claims, err := r.ActiveLoans.ClaimsOfBooks(ctx, benchSchool, bookIDs)
		return len(claims), err
	})
	run("Loans.ByIDs/50", func() (int, error) {
		got, err := r.Loans.ByIDs(ctx, loanIDs)
		return len(got), err
	})
	run("CopyCounts/50", func() (int, error) {
		counts, err := r.Holdings.CopyCounts(ctx, benchSchool, bookIDs)
		return len(counts), err
	})
}
