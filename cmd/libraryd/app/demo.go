package app

import (
	"context"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"net"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/adapters/bookimport"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/core/service/reading"
	"github.com/readinglibrary/service/core/service/students"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// DemoPassword is the password of every demo account. It is published in the
// README, which is why demo data is only on by default with the embedded
// database on a developer's machine.
const DemoPassword = "reading-demo-2026"

// DemoAccount is one seeded account, for the start-up banner and tests.
type DemoAccount struct {
	Email    string
	Password string
	Role     user.Role
	Tier     user.Tier
}

// demoSchoolDomain is the demo school's domain; login redirects staff there.
const demoSchoolDomain = "maplegrove.example.org"

// demoHomeroom is the demo student's class, which the demo teacher teaches.
const demoHomeroom = "4B"

var demoAccounts = []struct {
	email, name string
	role        user.Role
	tier        user.Tier
	school      bool
}{
	{"admin@library.example.org", "Ada Admin", user.RoleAdmin, user.TierPremium, false},
	{"librarian@maplegrove.example.org", "Lena Librarian", user.RoleLibrarian, user.TierStandard, true},
	{"staff@maplegrove.example.org", "Sam Staff", user.RoleStaff, user.TierStandard, true},
	{"teacher@maplegrove.example.org", "Tess Teacher", user.RoleTeacher, user.TierStandard, true},
	{"student@maplegrove.example.org", "Theo Student", user.RoleStudent, user.TierStandard, true},
	{"reader@library.example.org", "Rita Reader", user.RoleReader, user.TierStandard, false},
	{"premium@library.example.org", "Paul Premium", user.RoleReader, user.TierPremium, false},
}

// seedDemo fills an empty store with a demo school, its accounts, the demo
// catalog, a reading history and a stocked school library. On a store that
// already has accounts it only reports which demo accounts are there, so
// the banner keeps showing them on later starts.
//
// Replicas starting at once on an empty database: inserting the demo school
// (its domain is unique) is the claim, so exactly one of them seeds and the
// others leave it to that one.
func seedDemo(ctx context.Context, repos ports.Repositories, ident *identity.Identity, books *reading.Books, lib *service.Library) ([]DemoAccount, error) {
	n, err := repos.Accounts.Count(ctx)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		school, err := library.NewSchool(uuid.NewString(), "Maple Grove Primary School", demoSchoolDomain, time.Now())
		if err != nil {
			return nil, err
		}
		switch err := repos.Schools.Create(ctx, school); {
		case err == nil:
			if err := seedDemoData(ctx, repos, ident, books, lib, school); err != nil {
				return nil, err
			}
		case !errs.Is(err, errs.Conflict):
			return nil, err
		}
	}
	var present []DemoAccount
	for _, d := range demoAccounts {
		if _, err := repos.Accounts.GetByEmail(ctx, d.email); err == nil {
			present = append(present, DemoAccount{Email: d.email, Password: DemoPassword, Role: d.role, Tier: d.tier})
		}
	}
	return present, nil
}

// printBanner tells a newcomer where the service is and how to sign in.
func printBanner(w io.Writer, cfg Config, addr net.Addr, demo []DemoAccount) {
	base := cfg.IssuerURL
	if tcp, ok := addr.(*net.TCPAddr); ok && strings.HasSuffix(cfg.Addr, ":0") {
		base = fmt.Sprintf("http://127.0.0.1:%d", tcp.Port)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nReading library service listening on %s\n", base)
	fmt.Fprintf(&b, "Librarian web app: %s/library\n", base)
	if len(demo) > 0 {
		fmt.Fprintf(&b, "\nDemo accounts (password %q for all):\n", DemoPassword)
		for _, d := range demo {
			fmt.Fprintf(&b, "  %-36s %-10s %s\n", d.Email, d.Role, d.Tier)
		}
		fmt.Fprintf(&b, "\nTry it:\n")
		fmt.Fprintf(&b, "  TOKEN=$(curl -s %s/api/auth/login -H 'Content-Type: application/json' \\\n", base)
		fmt.Fprintf(&b, "    -d '{\"email\":\"%s\",\"password\":\"%s\"}' | sed -E 's/.*\"access_token\":\"([^\"]+)\".*/\\1/')\n", demo[0].Email, DemoPassword)
		fmt.Fprintf(&b, "  curl -s %s/v1/users/me -H \"Authorization: Bearer $TOKEN\"\n", base)
	}
	fmt.Fprintln(&b)
	_, _ = io.WriteString(w, b.String())
}

// seedDemoData seeds everything once the demo school is claimed.
func seedDemoData(ctx context.Context, repos ports.Repositories, ident *identity.Identity, books *reading.Books, lib *service.Library, school library.School) error {
	if err := seedDemoBooks(ctx, repos, books); err != nil {
		return err
	}
	ins := make([]identity.NewAccountInput, 0, len(demoAccounts))
	for _, d := range demoAccounts {
		in := identity.NewAccountInput{Email: d.email, Name: d.name, Role: d.role, Tier: d.tier}
		if d.school {
			in.SchoolID = school.ID
		}
		ins = append(ins, in)
	}
	if _, err := ident.CreateAccountsSharingPassword(ctx, DemoPassword, ins); err != nil {
		return fmt.Errorf("demo accounts: %w", err)
	}
	if err := seedDemoReading(ctx, repos); err != nil {
		return err
	}
	return seedDemoLibrary(ctx, repos, lib)
}

// demoBooks are twenty short books written for this project (no copyrighted
// text), across genres and all three reading levels, some premium.
//
//go:embed demobooks/*.json
var demoBooks embed.FS

// seedDemoBooks imports the demo books into an empty catalog.
func seedDemoBooks(ctx context.Context, repos ports.Repositories, books *reading.Books) error {
	n, err := repos.Books.Count(ctx)
	if err != nil || n > 0 {
		return err
	}
	names, err := fs.Glob(demoBooks, "demobooks/*.json")
	if err != nil {
		return err
	}
	sort.Strings(names)
	var drafts []catalog.BookDraft
	for _, name := range names {
		data, err := demoBooks.ReadFile(name)
		if err != nil {
			return err
		}
		ds, err := bookimport.JSON(data)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		drafts = append(drafts, ds...)
	}
	_, err = books.CreateBooks(ctx, drafts)
	return err
}

// seedDemoReading gives the demo reader a short history (two fantasy books
// finished, one in progress, one listed, reading on several recent days) so
// recommendations and statistics show something real from the first start.
func seedDemoReading(ctx context.Context, repos ports.Repositories) error {
	reader, err := repos.Accounts.GetByEmail(ctx, "reader@library.example.org")
	if err != nil {
		return err
	}
	page, _, err := repos.Books.List(ctx, catalog.Query{Page: 1, Limit: catalog.MaxLimit, Sort: catalog.SortTitle})
	if err != nil {
		return err
	}
	var fantasy, other []catalog.Book
	for _, b := range page {
		if b.Genre == "fantasy" && b.Access == catalog.AccessFree {
			fantasy = append(fantasy, b)
		} else if b.Access == catalog.AccessFree {
			other = append(other, b)
		}
	}
	if len(fantasy) < 2 || len(other) < 2 {
		return nil // a catalog without the demo books: nothing to base a history on
	}
	now := time.Now().UTC()
	day := func(daysAgo int) time.Time { return now.Add(-time.Duration(daysAgo) * 24 * time.Hour) }
	read := func(b catalog.Book, pages []int, daysAgo []int) error {
		prev := catalog.Progress{}
		for i, pg := range pages {
			at := day(daysAgo[i])
			next, session, err := catalog.ApplyProgress(b, prev, catalog.ProgressUpdate{PageNumber: pg, TimeSpent: 600 + 60*pg}, reader.ID, reading.NewPrefixedID("rs_"), at, time.UTC)
			if err != nil {
				return err
			}
			if err := repos.Progress.RecordSession(ctx, session); err != nil {
				return err
			}
			prev = next
		}
		if err := repos.Progress.Save(ctx, prev); err != nil {
			return err
		}
		status := catalog.CurrentlyReading
		if prev.Completed() {
			status = catalog.Finished
		}
		_, _, err := repos.ReadingLists.Add(ctx, catalog.ListItem{
			ID: reading.NewPrefixedID(catalog.ListItemIDPrefix), AccountID: reader.ID, BookID: b.ID,
			Status: status, Priority: catalog.PriorityNormal, AddedAt: day(daysAgo[0]), UpdatedAt: prev.LastRead,
		})
		return err
	}
	if err := read(fantasy[0], []int{fantasy[0].Pages / 2, fantasy[0].Pages}, []int{6, 5}); err != nil {
		return err
	}
	if err := read(fantasy[1], []int{fantasy[1].Pages / 3, fantasy[1].Pages}, []int{3, 2}); err != nil {
		return err
	}
	if err := read(other[0], []int{other[0].Pages / 4}, []int{1}); err != nil {
		return err
	}
	_, _, err = repos.ReadingLists.Add(ctx, catalog.ListItem{
		ID: reading.NewPrefixedID(catalog.ListItemIDPrefix), AccountID: reader.ID, BookID: other[1].ID,
		Status: catalog.WantToRead, Priority: catalog.PriorityHigh, AddedAt: now, UpdatedAt: now,
	})
	return err
}

// seedDemoLibrary stocks the demo school's own library: a few titles with
// copies, and one loan to the demo student, so the librarian's lists and
// the public catalog show something from the first start.
func seedDemoLibrary(ctx context.Context, repos ports.Repositories, lib *service.Library) error {
	school, err := repos.Schools.GetByDomain(ctx, demoSchoolDomain)
	if err != nil {
		return err
	}
	admin, err := repos.Accounts.GetByEmail(ctx, "admin@library.example.org")
	if err != nil {
		return err
	}
	student, err := repos.Accounts.GetByEmail(ctx, "student@maplegrove.example.org")
	if err != nil {
		return err
	}
	asAdmin := user.WithPrincipal(ctx, user.PrincipalOf(admin))
	// The demo student is in 4B, whose teacher has an account, so the
	// teacher's class page has someone in it.
	homeroom := demoHomeroom
	if _, err := lib.Students.Update(asAdmin, school.ID, student.ID, students.StudentChanges{Homeroom: &homeroom}); err != nil {
		return fmt.Errorf("demo homeroom: %w", err)
	}
	if _, _, err := lib.Notices.ReplaceHomerooms(asAdmin, school.ID, []library.Homeroom{
		{Name: demoHomeroom, TeacherName: "Tess Teacher", TeacherEmail: "teacher@maplegrove.example.org"}}); err != nil {
		return fmt.Errorf("demo homerooms: %w", err)
	}
	titles := []library.BookDraft{
		{Title: "The Ember Egg", Author: "Mira Holloway", ISBN: "979-8-31042-121-9", Copies: 3},
		{Title: "Where Is Nibbles?", Author: "Priya Nandakumar", ISBN: "979-8-31042-107-3", Copies: 2},
		{Title: "The Amazing Journey of a Water Drop", Author: "Dr. Tom Reyes", ISBN: "979-8-89214-120-8", Copies: 4},
	}
	var shelf []demoShelfBook
	for i, d := range titles {
		if !library.ValidISBN(d.ISBN) {
			d.ISBN = "" // the demo must start even if a number above is mistyped
		}
		b, copies, err := lib.Holdings.AddBook(asAdmin, school.ID, d)
		if err != nil {
			return fmt.Errorf("demo library book %q: %w", d.Title, err)
		}
		if i == 0 && len(copies) > 0 {
			if _, err := lib.Circulation.CreateLoan(asAdmin, circulation.LoanInput{SchoolID: school.ID, BookID: b.ID, CopyID: copies[0].ID, StudentID: student.ID}); err != nil {
				return fmt.Errorf("demo loan: %w", err)
			}
		}
		shelf = append(shelf, demoShelfBook{book: b, copies: copies})
	}
	return seedDemoTerm(ctx, repos, lib, asAdmin, school, shelf)
}

type demoShelfBook struct {
	book   library.Book
	copies []library.Copy
}

// DemoClassmates are the demo student's classmates in 4B, with a term of
// reading behind them: books borrowed, returned and marked read at the
// desk, and books read to the end in the app. Tests that count the demo
// school's students or loans count these too.
var DemoClassmates = []struct {
	Name     string
	Loans    []int // the demo titles they borrowed and read, in turn
	AppBooks int   // app books they read to the end
}{
	{"Ava Lindqvist", []int{1, 2, 0}, 3},
	{"Ben Okafor", []int{2}, 2},
	{"Chloé Martin", []int{1, 0}, 0},
	{"Dev Patel", nil, 0}, // nothing read: idle, as the demo student is
}

// seedDemoTerm gives 4B a term of reading so a teacher's reading page
// shows something real from the first start: each classmate's loans over
// the last seven weeks, returned a week later and marked read at the desk,
// and their app reading over the last month. The library's clock is set
// back for each loan and put right after.
func seedDemoTerm(ctx context.Context, repos ports.Repositories, lib *service.Library, asAdmin context.Context, school library.School, shelf []demoShelfBook) error {
	defer lib.SetClock(time.Now, nil)
	appBooks, _, err := repos.Books.List(ctx, catalog.Query{Page: 1, Limit: catalog.MaxLimit, Sort: catalog.SortTitle})
	if err != nil {
		return err
	}
	now := time.Now().UTC()
	homeroom := demoHomeroom
	for k, c := range DemoClassmates {
		st, err := lib.Students.Create(asAdmin, school.ID, students.StudentInput{Name: c.Name, Homeroom: homeroom})
		if err != nil {
			return fmt.Errorf("demo classmate %s: %w", c.Name, err)
		}
		for j, t := range c.Loans {
			// Sixteen days apart, a week each, classmates four days apart:
			// two of them never want one copy at once, and the first copy
			// of the first title stays with the demo student.
			lent := now.AddDate(0, 0, -50+16*j+4*k)
			lib.SetClock(func() time.Time { return lent }, nil)
			b := shelf[t%len(shelf)]
			cp := b.copies[len(b.copies)-1]
			if t == 0 {
				cp = b.copies[1+(k/2)%2]
			}
			v, err := lib.Circulation.CreateLoan(asAdmin, circulation.LoanInput{SchoolID: school.ID, BookID: b.book.ID, CopyID: cp.ID, StudentID: st.ID})
			if err != nil {
				return fmt.Errorf("demo classmate's loan: %w", err)
			}
			back := lent.AddDate(0, 0, 7)
			lib.SetClock(func() time.Time { return back }, nil)
			if _, err := lib.Circulation.ReturnLoan(asAdmin, v.Loan.ID); err != nil {
				return fmt.Errorf("demo classmate's return: %w", err)
			}
			if _, err := lib.Circulation.MarkFinishedAtDesk(asAdmin, school.ID, v.Loan.ID); err != nil {
				return fmt.Errorf("demo classmate's book read: %w", err)
			}
		}
		lib.SetClock(time.Now, nil)
		for j := range c.AppBooks {
			if len(appBooks) == 0 {
				break
			}
			book := appBooks[(3*k+j)%len(appBooks)]
			for session := range 3 {
				at := now.AddDate(0, 0, -30+8*j+2*session+k)
				done := session == 2
				p := catalog.Progress{AccountID: st.ID, BookID: book.ID, PageNumber: max(book.Pages*(session+1)/3, 1), LastRead: at}
				p.MaxPage, p.Percentage = p.PageNumber, float64(100*(session+1)/3)
				p.MaxPercentage = p.Percentage
				if done {
					p.PageNumber, p.MaxPage, p.Percentage, p.MaxPercentage, p.CompletedAt = book.Pages, book.Pages, 100, 100, at
				}
				if err := repos.Progress.Save(ctx, p); err != nil {
					return err
				}
				if err := repos.Progress.RecordSession(ctx, catalog.ReadingSession{ID: uuid.NewString(), AccountID: st.ID, BookID: book.ID, At: at,
					LocalDay: at.Format(time.DateOnly), Seconds: 900, ToPage: p.PageNumber, Completed: done}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
