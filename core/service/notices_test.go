package service_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/ports"
)

// flakyMailer fails the sends it is told to, then delivers.
type flakyMailer struct {
	mu    sync.Mutex
	fails int
	sent  []ports.Message
}

func (m *flakyMailer) Send(_ context.Context, msg ports.Message) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fails > 0 {
		m.fails--
		return errs.E(errs.Unavailable, errs.CodeUnavailable, "The mail server is down.")
	}
	m.sent = append(m.sent, msg)
	return nil
}

func (m *flakyMailer) to(addr string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, msg := range m.sent {
		if msg.To == addr {
			n++
		}
	}
	return n
}

// noticeFixture lends one copy to a student with an address, due in two
// days, in a school whose reminders are on from midnight.
func noticeFixture(t *testing.T) (*libFixture, *flakyMailer, string) {
	lf := newLibFixture(t)
	mailer := &flakyMailer{}
	lf.reidentify(func(d *identity.IdentityDeps) { d.Mailer = mailer })
	lf.useLibrary(service.LibraryConfig{})
	ctx := as(lf.librarian)
	if _, _, err := lf.lib.Notices.PutSettings(ctx, "", library.NoticeSettings{Enabled: true, SendAt: "00:00", DueSoonDays: 2, OverdueSteps: []int{1}}); err != nil {
		t.Fatal(err)
	}
	b, copies := lf.addBook(t, lf.librarian, "Deep Water", 1)
	due := lf.clock.Now().UTC().AddDate(0, 0, 2).Format("2006-01-02")
	v, err := lf.lib.Circulation.CreateLoan(ctx, circulation.LoanInput{BookID: b.ID, CopyID: copies[0].ID, StudentID: lf.student.ID, DueAt: due})
	if err != nil {
		t.Fatal(err)
	}
	return lf, mailer, v.Loan.ID
}

// A mail that fails releases its notices: the day stays open, and the next
// run sends them, once.
func TestNoticeMailThatFailsIsSentByTheNextRun(t *testing.T) {
	lf, mailer, loanID := noticeFixture(t)
	now := lf.clock.Now()
	mailer.fails = 1
	res, err := lf.lib.Notices.Run(context.Background(), now)
	if err != nil || res.Failed != 1 || res.Sent != 0 {
		t.Fatalf("run with the mail server down: %+v %v, want one failed notice", res, err)
	}
	if log, _ := lf.lib.Notices.LoanNotices(as(lf.librarian), "", loanID); len(log) != 0 {
		t.Fatalf("a failed notice stays in the log: %+v", log)
	}
	res, err = lf.lib.Notices.Run(context.Background(), now.Add(time.Hour))
	if err != nil || res.Sent != 1 || mailer.to(lf.student.Email) != 1 {
		t.Fatalf("the next run: %+v %v, %d mails; want the notice sent once", res, err, mailer.to(lf.student.Email))
	}
	res, err = lf.lib.Notices.Run(context.Background(), now.Add(2*time.Hour))
	if err != nil || res.Schools != 0 || mailer.to(lf.student.Email) != 1 {
		t.Fatalf("a third run: %+v %v, %d mails; want nothing more", res, err, mailer.to(lf.student.Email))
	}
	log, err := lf.lib.Notices.LoanNotices(as(lf.librarian), "", loanID)
	if err != nil || len(log) != 1 || !log[0].Sent() || log[0].Kind != library.NoticeDueSoon {
		t.Fatalf("the loan's log: %+v %v", log, err)
	}
}

// A run that stopped between its claim and its mail leaves the notice
// unsent; a run an hour later sends it, and one sooner does not.
func TestAbandonedNoticeIsSentAfterAnHour(t *testing.T) {
	lf, mailer, loanID := noticeFixture(t)
	now := lf.clock.Now()
	key := library.NoticeKey(loanID, library.NoticeDueSoon, now.UTC().AddDate(0, 0, 2).Format("2006-01-02"), 0, now.UTC().Format("2006-01-02"))
	won, err := lf.store.Notices.Claim(context.Background(), []library.Notice{{Key: key, SchoolID: libSchoolA, SubjectID: loanID,
		StudentID: lf.student.ID, Kind: library.NoticeDueSoon, DueAt: now.UTC().AddDate(0, 0, 2).Format("2006-01-02"),
		Day: now.UTC().Format("2006-01-02"), Recipient: lf.student.Email, ClaimedAt: now}})
	if err != nil || len(won) != 1 {
		t.Fatalf("the stopped run's claim: %v %v", won, err)
	}
	lf.clock.Set(now.Add(30 * time.Minute))
	if res, err := lf.lib.Notices.Run(context.Background(), now.Add(30*time.Minute)); err != nil || res.Sent != 0 || mailer.to(lf.student.Email) != 0 {
		t.Fatalf("half an hour on: %+v %v, want the claim left to its run", res, err)
	}
	lf.clock.Set(now.Add(61 * time.Minute))
	if res, err := lf.lib.Notices.Run(context.Background(), now.Add(61*time.Minute)); err != nil || res.Sent != 1 || mailer.to(lf.student.Email) != 1 {
		t.Fatalf("an hour on: %+v %v, want the abandoned notice sent", res, err)
	}
}

// Reminders off, or before the school's time: nothing is claimed or sent.
func TestNoticesWaitForTheSchoolsTime(t *testing.T) {
	lf, mailer, _ := noticeFixture(t)
	ctx := as(lf.librarian)
	if _, _, err := lf.lib.Notices.PutSettings(ctx, "", library.NoticeSettings{Enabled: true, SendAt: "23:59", DueSoonDays: 2, OverdueSteps: []int{1}}); err != nil {
		t.Fatal(err)
	}
	day := lf.clock.Now().UTC().Truncate(24 * time.Hour)
	if res, err := lf.lib.Notices.Run(context.Background(), day.Add(23*time.Hour)); err != nil || res.Schools != 0 {
		t.Fatalf("before 23:59: %+v %v", res, err)
	}
	if _, _, err := lf.lib.Notices.PutSettings(ctx, "", library.NoticeSettings{Enabled: false, SendAt: "00:00", DueSoonDays: 2, OverdueSteps: []int{1}}); err != nil {
		t.Fatal(err)
	}
	if res, err := lf.lib.Notices.Run(context.Background(), day.Add(23*time.Hour)); err != nil || res.Schools != 0 || len(mailer.sent) != 0 {
		t.Fatalf("reminders off: %+v %v", res, err)
	}
	_, _, err := lf.lib.Notices.PutSettings(ctx, "", library.NoticeSettings{Enabled: true, SendAt: "7:30", OverdueSteps: []int{}})
	var e *errs.Error
	if !errors.As(err, &e) || e.Kind != errs.Invalid {
		t.Fatalf("send_at 7:30: %v, want Invalid", err)
	}
}

// A copy put aside for a hold: the student is told once that it waits,
// and once more the day before the pickup window ends.
func TestHoldNoticesReadyThenExpiring(t *testing.T) {
	lf, mailer, loanID := noticeFixture(t)
	ctx := as(lf.librarian)
	loan, err := lf.store.Loans.ByIDs(context.Background(), []string{loanID})
	if err != nil || len(loan) != 1 {
		t.Fatal(err)
	}
	// Ben holds the title lent to Ann; Ann brings it back.
	if _, err := lf.lib.Holds.Place(ctx, circulation.HoldInput{BookID: loan[0].BookID, StudentID: lf.student2.ID}); err != nil {
		t.Fatal(err)
	}
	v, err := lf.lib.Circulation.ReturnLoan(ctx, loanID)
	if err != nil || v.PutAside == nil || v.PutAside.StudentID != lf.student2.ID {
		t.Fatalf("return: %+v %v, want the copy put aside for Ben", v.PutAside, err)
	}
	expires := v.PutAside.ExpiresAt
	now := lf.clock.Now()
	if _, err := lf.lib.Notices.Run(context.Background(), now); err != nil {
		t.Fatal(err)
	}
	if n := mailer.to(lf.student2.Email); n != 1 {
		t.Fatalf("after the return Ben got %d mails, want the one saying the book waits", n)
	}
	if !containsText(mailer.sent, lf.student2.Email, "is waiting for you") {
		t.Fatalf("Ben's mail: %+v", mailer.sent)
	}
	for d := 1; d < 6; d++ { // the days in between: nothing new
		if _, err := lf.lib.Notices.Run(context.Background(), now.AddDate(0, 0, d)); err != nil {
			t.Fatal(err)
		}
	}
	if n := mailer.to(lf.student2.Email); n != 1 {
		t.Fatalf("during the pickup window Ben got %d mails, want still 1", n)
	}
	dayBefore := expires.AddDate(0, 0, -1)
	lf.clock.Set(dayBefore)
	if _, err := lf.lib.Notices.Run(context.Background(), dayBefore); err != nil {
		t.Fatal(err)
	}
	if n := mailer.to(lf.student2.Email); n != 2 || !containsText(mailer.sent, lf.student2.Email, "its last day") {
		t.Fatalf("the day before the window ends Ben has %d mails (%+v), want the reminder too", n, mailer.sent)
	}
}

func containsText(sent []ports.Message, to, text string) bool {
	for _, m := range sent {
		if m.To == to && strings.Contains(m.Text, text) {
			return true
		}
	}
	return false
}

// An overdue reminder says how many days the book is overdue, not the
// step that sent it: with steps 1, 7 and 14 and the service down from the
// 2nd to the 8th day overdue, the mail of the 9th says 9 days.
func TestOverdueMailSaysTheDaysOverdue(t *testing.T) {
	lf, mailer, _ := noticeFixture(t)
	if _, _, err := lf.lib.Notices.PutSettings(as(lf.librarian), "", library.NoticeSettings{Enabled: true, SendAt: "00:00", OverdueSteps: []int{1, 7, 14}}); err != nil {
		t.Fatal(err)
	}
	due := lf.clock.Now().UTC().AddDate(0, 0, 2) // the fixture's due date
	for _, tt := range []struct{ overdue, want int }{{1, 1}, {9, 9}} {
		at := due.AddDate(0, 0, tt.overdue)
		lf.clock.Set(at)
		if res, err := lf.lib.Notices.Run(context.Background(), at); err != nil || res.Sent != 1 {
			t.Fatalf("%d days overdue: %+v %v, want one notice", tt.overdue, res, err)
		}
		last := mailer.sent[len(mailer.sent)-1].Text
		want := fmt.Sprintf("is %d %s overdue.", tt.want, map[bool]string{true: "day", false: "days"}[tt.want == 1])
		if !strings.Contains(last, want) {
			t.Errorf("%d days overdue, the mail says:\n%s\nwant %q", tt.overdue, last, want)
		}
	}
}
