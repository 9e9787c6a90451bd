package test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/mailer/mailpittest"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/service/circulation"
)

// Every mail is written in its reader's language, read back from a real
// SMTP server: a student who chose Spanish gets their reminders in Spanish
// whatever the school's language; a student who chose nothing gets the
// school's (English while the school chose nothing, Arabic once it chose
// Arabic), and so do guardians, who have no account; a homeroom teacher's
// digest is in the teacher's own choice; a password reset follows the
// account's choice. The expected texts come from the catalogues, so the
// test holds when a translation is reworded; a word of each language
// shows the mail is not in English.
func TestI18nMailInTheReadersLanguage(t *testing.T) {
	mp := mailpittest.Start(t)
	a := startService(t, mailEnv(t, mp, nil))
	ctx := context.Background()
	lib := a.login(demoLibrarian, demoPassword).Access
	school, err := a.App.Repos.Schools.GetByDomain(ctx, demoDomain)
	if err != nil {
		t.Fatal(err)
	}
	if school.Settings.Language != "" {
		t.Fatalf("the demo school chose %q; this test needs a school that chose no language", school.Settings.Language)
	}
	if r := a.do(req{Method: http.MethodPut, Path: "/api/library/notices/settings", Token: lib,
		Body: `{"enabled":true,"send_at":"00:00","due_soon_days":2,"overdue_steps":[1,7],"guardian_copies":["overdue"]}`}); r.Status != 200 {
		t.Fatalf("turn reminders on: %d %s", r.Status, r.Body)
	}
	choose := func(tok, code string) {
		t.Helper()
		r := a.do(req{Method: http.MethodPatch, Path: "/v1/users/me", Token: tok, Body: fmt.Sprintf(`{"preferences":{"language":%q}}`, code)})
		if r.Status != 200 {
			t.Fatalf("choose %s: %d %s", code, r.Status, r.Body)
		}
	}
	const password = "Harbour-Lantern-41"
	mkStudent := func(body string) string {
		t.Helper()
		r := a.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: lib, Body: body})
		if r.Status != 201 {
			t.Fatalf("create student %s: %d %s", body, r.Status, r.Body)
		}
		return r.json(t)["student"].(map[string]any)["student_id"].(string)
	}
	// Eva chose Spanish. Tom chose nothing; he is in 4B, whose teacher
	// (the demo teacher) chose Spanish; his guardian Gala has no account.
	const evaMail, tomMail, galaMail = "eva.lang@maplegrove.example.org", "tom.lang@maplegrove.example.org", "gala.lang@example.org"
	eva := mkStudent(fmt.Sprintf(`{"name":"Eva Lind","email":%q,"student_number":"L-1","password":%q}`, evaMail, password))
	tom := mkStudent(fmt.Sprintf(`{"name":"Tom Berg","email":%q,"student_number":"L-2","homeroom":"4B","password":%q,
		"guardians":[{"name":"Gala Berg","email":%q,"relationship":"parent"}]}`, tomMail, password, galaMail))
	choose(a.login(evaMail, password).Access, "es")
	choose(a.login(demoTeacher, demoPassword).Access, "es")

	const title, author = "Salt and Stars", "Tove Rask"
	bookID, copies := addLibraryBook(t, a, lib, fmt.Sprintf(`{"title":%q,"author":%q,"copies":2}`, title, author))
	today := time.Now().UTC()
	due := today.AddDate(0, 0, 2)
	dueDay, err := time.Parse("2006-01-02", due.Format("2006-01-02"))
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range []string{eva, tom} {
		r := a.do(req{Method: http.MethodPost, Path: "/api/library/loans", Token: lib, Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q,"due_at":%q}`,
			bookID, copies[i]["id"], st, due.Format("2006-01-02"))})
		if r.Status != 201 {
			t.Fatalf("lend: %d %s", r.Status, r.Body)
		}
	}
	code := func(i int) string { return copies[i]["code"].(string) }
	run := func(at time.Time) circulation.NoticeRun {
		t.Helper()
		a.App.Library.SetClock(func() time.Time { return at }, nil)
		res, err := a.App.Library.Notices.Run(ctx, at)
		if err != nil {
			t.Fatalf("notices run at %s: %v", at, err)
		}
		return res
	}
	// newest is the mail of msgs that is not first: the later run's.
	newest := func(msgs []mailpittest.Message, first mailpittest.Message) mailpittest.Message {
		t.Helper()
		for _, m := range msgs {
			if m.ID != first.ID {
				return m
			}
		}
		t.Fatalf("no mail after %q", first.Subject)
		return first
	}
	has := func(who string, m mailpittest.Message, texts ...string) {
		t.Helper()
		for _, text := range texts {
			if !strings.Contains(m.Text, text) {
				t.Errorf("%s's mail %q does not say %q:\n%s", who, m.Subject, text, m.Text)
			}
		}
	}

	// Today both books are due soon. Eva's reminder is in Spanish; Tom's in
	// English, the language of a school that chose none.
	if res := run(today); res.Mails < 2 {
		t.Fatalf("today's run: %+v, want Eva's and Tom's reminders", res)
	}
	evas := mp.WaitFor(t, evaMail, 1)
	if want := i18n.Spanish.T("Library reminder from %s", school.Name); evas[0].Subject != want {
		t.Errorf("Eva's subject %q, want %q", evas[0].Subject, want)
	}
	has("Eva", evas[0], i18n.Spanish.T("- %s (%s, copy %s) is due back on %s.", title, author, code(0), i18n.Spanish.Date(dueDay)),
		i18n.Spanish.T("Please bring books back to the library, or ask the librarian to renew them."), "Hola:", "biblioteca")
	toms := mp.WaitFor(t, tomMail, 1)
	if want := "Library reminder from " + school.Name; toms[0].Subject != want {
		t.Errorf("Tom's subject %q, want %q", toms[0].Subject, want)
	}
	has("Tom", toms[0], fmt.Sprintf("- %s (%s, copy %s) is due back on %s.", title, author, code(1), i18n.English.Date(dueDay)), "Hello,")

	// The school chooses Arabic. The next day each book is a day overdue:
	// Eva's choice still wins, Tom and his guardian now read Arabic, and
	// 4B's teacher reads the digest in the Spanish she chose.
	if r := a.do(req{Method: http.MethodPut, Path: "/api/library/settings", Token: lib, Body: settingsWith(`"language":"ar"`)}); r.Status != 200 {
		t.Fatalf("the school chooses Arabic: %d %s", r.Status, r.Body)
	}
	later := due.AddDate(0, 0, 1)
	if res := run(later); res.Mails < 4 {
		t.Fatalf("the overdue run: %+v, want Eva's, Tom's, Gala's and 4B's digest", res)
	}
	eva2 := newest(mp.WaitFor(t, evaMail, 2), evas[0])
	has("Eva", eva2, i18n.Spanish.T("- %s (%s, copy %s) was due on %s and is %s overdue.", title, author, code(0), i18n.Spanish.Date(dueDay), i18n.Spanish.T("1 day")))
	tom2 := newest(mp.WaitFor(t, tomMail, 2), toms[0])
	if want := i18n.Arabic.T("Library reminder from %s", school.Name); tom2.Subject != want {
		t.Errorf("Tom's subject once the school chose Arabic %q, want %q", tom2.Subject, want)
	}
	has("Tom", tom2, i18n.Arabic.T("- %s (%s, copy %s) was due on %s and is %s overdue.", title, author, code(1), i18n.Arabic.Date(dueDay), i18n.Arabic.T("1 day")),
		"مرحبًا")
	galas := mp.WaitFor(t, galaMail, 1)
	if want := i18n.Arabic.T("Library notice from %s", school.Name); galas[0].Subject != want {
		t.Errorf("Gala's subject %q, want %q", galas[0].Subject, want)
	}
	has("Gala", galas[0], i18n.Arabic.T("The school library sends you a copy of the notices it sends to a student in your care, as %s has chosen to:", school.Name),
		i18n.Arabic.T("- %s has %s (%s, copy %s), which was due on %s and is %s overdue.", "Tom Berg", title, author, code(1), i18n.Arabic.Date(dueDay), i18n.Arabic.T("1 day")),
		i18n.Arabic.T("%s library", school.Name), "مكتبة")
	digest := mp.WaitFor(t, demoTeacher, 1)
	if want := i18n.Spanish.T("Overdue library books, %s", i18n.Spanish.Date(school.Today(later))); digest[0].Subject != want {
		t.Errorf("4B's digest subject %q, want %q", digest[0].Subject, want)
	}
	has("4B's teacher", digest[0], i18n.Spanish.T("- %s (%s): %s, copy %s, due %s, %s overdue.", "Tom Berg", "4B", title, code(1), i18n.Spanish.Date(dueDay), i18n.Spanish.T("1 day")))

	// A password reset for an account that chose Arabic is in Arabic.
	choose(a.login(demoReader, demoPassword).Access, "ar")
	if r := a.do(req{Method: http.MethodPost, Path: "/api/auth/password-reset", Body: fmt.Sprintf(`{"email":%q}`, demoReader)}); r.Status != 202 {
		t.Fatalf("password reset: %d %s", r.Status, r.Body)
	}
	flushMail(t, a)
	reset := mp.WaitFor(t, demoReader, 1)
	if want := i18n.Arabic.T("Reset your reading library password"); reset[0].Subject != want {
		t.Errorf("the reset's subject %q, want %q", reset[0].Subject, want)
	}
	has("the reader", reset[0], i18n.Arabic.T("Someone asked to reset the password of the reading library account %s.", demoReader),
		i18n.Arabic.T("To choose a new password, open this link within 30 minutes:"), "كلمة مرور")
	if page, _ := linkToken(t, reset[0].Text); page != a.URL+"/library/reset-password" {
		t.Errorf("the Arabic reset's link opens %s", page)
	}

	// Someone with no account yet signs up asking for Spanish: the
	// confirmation is in the language of their request.
	const newcomer = "nora.lang@example.org"
	if r := a.do(req{Method: http.MethodPost, Path: "/api/auth/signup", Headers: map[string]string{"Accept-Language": "es-ES,es;q=0.9"},
		Body: fmt.Sprintf(`{"email":%q,"password":"tangerine-harbor-41","name":"Nora"}`, newcomer)}); r.Status != 202 {
		t.Fatalf("sign-up: %d %s", r.Status, r.Body)
	}
	flushMail(t, a)
	if confirm := mp.WaitFor(t, newcomer, 1)[0]; confirm.Subject != i18n.Spanish.T("Confirm your reading library account") || confirm.Subject == "Confirm your reading library account" {
		t.Errorf("the confirmation of a sign-up asking for Spanish: %q", confirm.Subject)
	}
}
