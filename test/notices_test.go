package test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/mailer/mailpittest"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/usecase"
)

// Reminder mail end to end, read back from a real SMTP server: a school
// turns reminders on; a student with an address gets "due soon" before the
// due date and an overdue notice at the step reached; the homeroom's
// teacher gets the day's list of the class's overdue books; nothing goes
// twice however often the runs repeat, on one replica or two at once; a
// librarian sees each loan's log; students cannot read or change any of it.
func TestNoticesGoOnceToStudentsAndTeachers(t *testing.T) {
	mp := mailpittest.Start(t)
	env := mailEnv(t, mp, nil)
	a := startService(t, env)
	b := a
	if testStore() == "mongo" {
		b = startService(t, env) // a second replica on the same database
	}
	lib := a.login(demoLibrarian, demoPassword).Access
	student := a.login(demoStudent, demoPassword).Access
	put := func(tok, path, body string) response {
		return a.do(req{Method: http.MethodPut, Path: path, Token: tok, Body: body})
	}

	if got := a.do(req{Path: "/api/library/notices/settings", Token: lib}).json(t); got["enabled"] != false {
		t.Fatalf("a school's reminders start off: %v", got)
	}
	for _, bad := range []string{
		`{"enabled":true,"send_at":"25:00","due_soon_days":2,"overdue_steps":[1,7]}`,
		`{"enabled":true,"send_at":"07:30","due_soon_days":15,"overdue_steps":[1,7]}`,
		`{"enabled":true,"send_at":"07:30","due_soon_days":2,"overdue_steps":[7,1]}`,
		`{"enabled":true,"send_at":"07:30","due_soon_days":2}`,
	} {
		if r := put(lib, "/api/library/notices/settings", bad); r.Status != 422 {
			t.Fatalf("PUT notice settings %s: %d %s, want 422", bad, r.Status, r.Body)
		}
	}
	if got := a.do(req{Path: "/api/library/notices/settings", Token: lib}).json(t); got["enabled"] != false {
		t.Fatalf("a refused PUT changed the notice settings: %v", got)
	}
	for _, r := range []response{
		put(student, "/api/library/notices/settings", `{"enabled":true,"send_at":"00:00","due_soon_days":2,"overdue_steps":[1,7]}`),
		a.do(req{Path: "/api/library/notices/settings", Token: student}),
		put(student, "/api/library/homerooms", `{"homerooms":[]}`),
	} {
		if r.Status != 403 {
			t.Fatalf("a student on the notice routes: %d %s, want 403", r.Status, r.Body)
		}
	}
	if r := a.do(req{Path: "/api/library/homerooms"}); r.Status != 401 {
		t.Fatalf("anonymous homerooms: %d, want 401", r.Status)
	}
	if r := put(lib, "/api/library/notices/settings", `{"enabled":true,"send_at":"00:00","due_soon_days":2,"overdue_steps":[1,7]}`); r.Status != 200 {
		t.Fatalf("turn reminders on: %d %s", r.Status, r.Body)
	}
	if r := put(lib, "/api/library/homerooms", `{"homerooms":[{"name":"7B","teacher_name":"Ms Ito","teacher_email":"ito@maplegrove.example.org"},{"name":"7b","teacher_email":"x@maplegrove.example.org"}]}`); r.Status != 422 {
		t.Fatalf("two homerooms differing in case: %d %s, want 422", r.Status, r.Body)
	}
	if r := put(lib, "/api/library/homerooms", `{"homerooms":[{"name":"7B","teacher_name":"Ms Ito","teacher_email":"ito@maplegrove.example.org"}]}`); r.Status != 200 {
		t.Fatalf("homerooms: %d %s", r.Status, r.Body)
	}

	mkStudent := func(name, email, number, homeroom string) string {
		r := a.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: lib,
			Body: fmt.Sprintf(`{"name":%q,"email":%q,"student_number":%q,"homeroom":%q,"password":"Harbour-Lantern-41"}`, name, email, number, homeroom)})
		if r.Status != 201 {
			t.Fatalf("create student %s: %d %s", name, r.Status, r.Body)
		}
		return r.json(t)["student"].(map[string]any)["student_id"].(string)
	}
	mira := mkStudent("Mira Okafor", "mira@maplegrove.example.org", "N-1", "7b")
	noMail := mkStudent("Pia Lund", "", "N-2", "7B")
	bookID, copies := addLibraryBook(t, a, lib, `{"title":"Salt and Stars","author":"Tove Rask","copies":2}`)
	today := time.Now().UTC()
	lend := func(copy int, studentID string) string {
		r := a.do(req{Method: http.MethodPost, Path: "/api/library/loans", Token: lib, Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q,"due_at":%q}`,
			bookID, copies[copy]["id"], studentID, today.AddDate(0, 0, 2).Format("2006-01-02"))})
		if r.Status != 201 {
			t.Fatalf("lend: %d %s", r.Status, r.Body)
		}
		return r.json(t)["loan"].(map[string]any)["id"].(string)
	}
	miraLoan, piaLoan := lend(0, mira), lend(1, noMail)

	run := func(s *service, at time.Time) circulation.NoticeRun {
		t.Helper()
		s.App.Library.SetClock(func() time.Time { return at }, nil)
		res, err := s.App.Library.Notices.Run(context.Background(), at)
		if err != nil {
			t.Fatalf("notices run at %s: %v", at, err)
		}
		return res
	}
	// Today: the loans are due in two days, so Mira gets "due soon"; Pia
	// has no address.
	if res := run(a, today); res.Sent != 1 || res.Mails != 1 {
		t.Fatalf("today's run: %+v, want one due-soon notice to Mira", res)
	}
	if res := run(a, today.Add(time.Minute)); res.Schools != 0 || res.Sent != 0 {
		t.Fatalf("the same day again: %+v, want nothing (the day is done)", res)
	}
	mails := mp.WaitFor(t, "mira@maplegrove.example.org", 1)
	if !strings.Contains(mails[0].Text, "Salt and Stars") || !strings.Contains(mails[0].Text, "is due back on") {
		t.Fatalf("due-soon mail: %q", mails[0].Text)
	}

	// Nine days on both loans are seven days overdue: Mira gets the
	// seven-day notice (the one-day step, missed, is not sent late), and
	// Ms Ito gets 7B's list with both. Both replicas sweep the same slot
	// at once; the slot's claim lets one of them send.
	later := today.AddDate(0, 0, 9)
	var wg sync.WaitGroup
	results := make([]usecase.SweepResult, 2)
	// Both clocks are set before either sweep starts: on the embedded
	// store a and b are one service, whose clock a running sweep reads.
	for _, s := range []*service{a, b} {
		s.App.Library.SetClock(func() time.Time { return later }, nil)
	}
	for i, s := range []*service{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := s.App.Sweeper.Sweep(context.Background(), later)
			if err != nil {
				t.Errorf("replica %d: %v", i, err)
			}
			results[i] = res
		}()
	}
	wg.Wait()
	if sent := results[0].Deleted["notices_sent"] + results[1].Deleted["notices_sent"]; sent != 3 {
		t.Fatalf("the sweeps sent %d notices between them (%+v), want 3: Mira's, and two lines of the digest", sent, results)
	}
	// Run directly, as a replica whose sweep overlapped would: nothing
	// is left to send.
	if res := run(b, later.Add(time.Minute)); res.Sent != 0 {
		t.Fatalf("a run after the sweep sent %+v", res)
	}
	miras := mp.WaitFor(t, "mira@maplegrove.example.org", 2)
	digest := mp.WaitFor(t, "ito@maplegrove.example.org", 1)
	if len(miras) != 2 || len(digest) != 1 {
		t.Fatalf("mail: %d to Mira, %d to Ms Ito; want 2 and 1", len(miras), len(digest))
	}
	if !strings.Contains(miras[1].Text+miras[0].Text, "7 days overdue") {
		t.Fatalf("Mira's overdue mail: %q / %q", miras[0].Text, miras[1].Text)
	}
	for _, name := range []string{"Mira Okafor", "Pia Lund"} {
		if !strings.Contains(digest[0].Text, name) {
			t.Fatalf("7B's digest does not name %s: %q", name, digest[0].Text)
		}
	}

	// The loan's log at the desk.
	var log struct {
		Notices []map[string]any `json:"notices"`
	}
	r := a.do(req{Path: "/api/library/loans/" + miraLoan + "/notices", Token: lib})
	_ = json.Unmarshal(r.Body, &log)
	if r.Status != 200 || len(log.Notices) != 3 {
		t.Fatalf("Mira's loan log: %d %s, want 3 notices", r.Status, r.Body)
	}
	kinds := map[string]bool{}
	for _, n := range log.Notices {
		if n["status"] != "sent" {
			t.Fatalf("a logged notice not sent: %v", n)
		}
		kinds[fmt.Sprint(n["kind"], n["step"])] = true
	}
	if !kinds["due_soon0"] || !kinds["overdue7"] || !kinds["homeroom_digest0"] {
		t.Fatalf("Mira's loan log kinds: %v", kinds)
	}
	if r := a.do(req{Path: "/api/library/loans/" + piaLoan + "/notices", Token: student}); r.Status != 403 {
		t.Fatalf("a student reading a loan's notices: %d, want 403", r.Status)
	}
	if r := a.do(req{Path: "/api/library/loans/not-a-loan/notices", Token: lib}); r.Status != 404 {
		t.Fatalf("notices of an unknown loan: %d, want 404", r.Status)
	}
}
