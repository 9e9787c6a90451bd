package service_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/sqliterepo"
	"github.com/readinglibrary/service/adapters/sqliterepo/sqlitetest"
	"github.com/readinglibrary/service/cmd/libraryd/wire"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports/portfake"
)

// BenchmarkNoticesRun measures one day's reminder run of a school with 500
// students in 20 homerooms (each with a teacher), every open loan overdue,
// on the embedded store: each iteration is a new school day, so every
// loan gets a fresh line in its homeroom's digest (the heaviest day: one
// claim per loan). It reports the statements per run beside the time:
// they stay the same from 1,000 to 10,000 loans, because the loans, their
// renewals and claims, the students and the notices are each read or
// written in one batch, and only the mails add a statement each.
func BenchmarkNoticesRun(b *testing.B) {
	for _, loans := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("loans=%d", loans), func(b *testing.B) {
			var statements atomic.Int64
			db := sqlitetest.NewDB(b, sqliterepo.WithStatementObserver(func(string) { statements.Add(1) }))
			repos := db.Repositories()
			ctx := context.Background()
			outbox := &portfake.Outbox{}
			idDeps := wire.Identity(repos, portfake.Tokens{}, portfake.Hasher{}, portfake.OpenThrottle{})
			idDeps.Mailer = outbox
			id := identity.NewIdentity(idDeps, identity.IdentityConfig{})
			lib := service.NewLibrary(wire.Library(repos), id, service.LibraryConfig{})
			start := time.Date(2026, 9, 1, 6, 0, 0, 0, time.UTC)
			lib.SetClock(func() time.Time { return start }, nil)

			school, err := library.NewSchool("school-bench", "Bench School", "bench.example.org", start)
			must := func(err error) {
				if err != nil {
					b.Fatal(err)
				}
			}
			must(err)
			must(repos.Schools.Create(ctx, school))
			must(repos.Notices.SaveSettings(ctx, school.ID, library.NoticeSettings{Enabled: true, SendAt: "07:00", DueSoonDays: 2, OverdueSteps: []int{1, 7, 14}}))
			var rooms []library.Homeroom
			for h := range 20 {
				rooms = append(rooms, library.Homeroom{SchoolID: school.ID, Name: fmt.Sprintf("H%02d", h), TeacherEmail: fmt.Sprintf("teacher%02d@bench.example.org", h)})
			}
			must(repos.Homerooms.ReplaceHomerooms(ctx, school.ID, rooms))
			students := make([]user.Account, 500)
			for i := range students {
				students[i] = user.Account{ID: fmt.Sprintf("st-%03d", i), Role: user.RoleStudent, SchoolID: school.ID, Name: fmt.Sprintf("Student %03d", i),
					Email: fmt.Sprintf("s%03d@bench.example.org", i), Homeroom: fmt.Sprintf("H%02d", i%20), Tier: user.TierStandard, CreatedAt: start, UpdatedAt: start}
				must(repos.Accounts.Create(ctx, students[i]))
			}
			for i := range loans {
				l := library.Loan{ID: fmt.Sprintf("ln-%05d", i), SchoolID: school.ID, BookID: "bk", CopyID: fmt.Sprintf("cp-%05d", i), CopyCode: "CODE",
					StudentID: students[i%len(students)].ID, LoanedAt: start, DueAt: "2026-09-10", BookTitle: "Title", BookAuthor: "Author"}
				must(repos.Loans.Insert(ctx, l))
				must(repos.ActiveLoans.Claim(ctx, library.CopyClaim{CopyID: l.CopyID, LoanID: l.ID, SchoolID: school.ID, BookID: "bk", ClaimedAt: start}))
			}
			day := time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC) // three weeks overdue: past every step
			var perRun, mails int64
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				now := day.AddDate(0, 0, i)
				lib.SetClock(func() time.Time { return now }, nil)
				before := statements.Load()
				res, err := lib.Notices.Run(ctx, now)
				if err != nil || res.Sent < loans {
					b.Fatalf("run %d: %+v %v, want every loan in a digest", i, res, err)
				}
				perRun, mails = statements.Load()-before, int64(res.Mails)
			}
			b.ReportMetric(float64(perRun), "statements/run")
			b.ReportMetric(float64(mails), "mails/run")
		})
	}
}
