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
	}
	return nil
}
