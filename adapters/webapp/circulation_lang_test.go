package webapp

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/readinglibrary/service/core/user"
)

// TestCirculationPagesSpeakTheReadersLanguage: the desk, the students list,
// a student's own loans and the calendar answer in the language the
// browser asks for (Arabic right to left), with the texts their Go code
// makes (a loan's status, the weekdays, a desk's refusal) in it too; with
// no language asked they stay in English.
func TestCirculationPagesSpeakTheReadersLanguage(t *testing.T) {
	f := newFixture(t)
	serve := f.inLang
	page := func(caller *user.Account, target, lang string) *html.Node {
		t.Helper()
		rec := serve(caller, http.MethodGet, target, lang, nil)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s in %q: %d", target, lang, rec.Code)
		}
		// A translation that lost or changed a verb prints %!.
		if body := rec.Body.String(); strings.Contains(body, "%!") {
			t.Errorf("%s in %q has a bad verb: %s", target, lang, body)
		}
		return parse(t, rec.Body.String())
	}
	const school = "/library/maple.example.org"
	// Every page of the part says itself in the language asked for.
	for _, lang := range []string{"es", "ar"} {
		for _, p := range []struct {
			caller *user.Account
			path   string
		}{
			{&f.librarian, "/holds"}, {&f.librarian, "/charges"}, {&f.librarian, "/offline"},
			{&f.librarian, "/students/guardians?student_id=" + url.QueryEscape(f.evil.ID)},
			{&f.student, "/my-history"}, {&f.student, "/recommended"},
		} {
			if got := attr(all(page(p.caller, school+p.path, lang), "html")[0], "lang"); got != lang {
				t.Errorf("%s in %s: <html lang=%q>", p.path, lang, got)
			}
		}
	}
	for _, tc := range []struct {
		accept, lang, dir string
		desk, onLoan      string // the desk's heading, the loan's status
		students          string // the students page's heading
		mine, noLoans     string // the student's heading, and their empty list
		calendar, monday  string // the calendar's heading, its first weekday
		refusal           string // a check-out with no code
	}{
		{"", "en", "ltr", "Today's desk", "On loan", "Students", "My loans", "You have no books out.", "Calendar", "Monday",
			"Scan or type the copy code."},
		{"es-MX,es;q=0.9", "es", "ltr", "Mostrador de hoy", "En préstamo", "Estudiantes", "Mis préstamos", "No tienes libros prestados.",
			"Calendario", "Lunes", "Escanea o escribe el código del ejemplar."},
		{"ar", "ar", "rtl", "مكتب الإعارة اليوم", "مُعار", "الطلاب", "إعاراتي", "ليس لديك كتب مُعارة.", "التقويم", "الاثنين",
			"امسح رمز النسخة أو اكتبه."},
	} {
		desk := page(&f.librarian, school, tc.accept)
		root := all(desk, "html")[0]
		if attr(root, "lang") != tc.lang || attr(root, "dir") != tc.dir {
			t.Errorf("%s: the desk is <html lang=%q dir=%q>, want %s %s", tc.lang, attr(root, "lang"), attr(root, "dir"), tc.lang, tc.dir)
		}
		if got := textOf(all(desk, "h1")[0]); got != tc.desk {
			t.Errorf("%s: the desk's heading is %q, want %q", tc.lang, got, tc.desk)
		}
		rows := byTestID(desk, "loan-row")
		if len(rows) != 1 || !strings.Contains(textOf(rows[0]), tc.onLoan) {
			t.Errorf("%s: the loan does not say %q: %s", tc.lang, tc.onLoan, render(byID(desk, "loans-table")))
		}
		if got := textOf(all(page(&f.librarian, school+"/students", tc.accept), "h1")[0]); got != tc.students {
			t.Errorf("%s: the students page's heading is %q, want %q", tc.lang, got, tc.students)
		}
		mine := page(&f.student, school, tc.accept)
		if got := textOf(all(mine, "h1")[0]); got != tc.mine {
			t.Errorf("%s: the student's heading is %q, want %q", tc.lang, got, tc.mine)
		}
		if got := textOf(byID(mine, "no-loans")); got != tc.noLoans {
			t.Errorf("%s: the student's empty list says %q, want %q", tc.lang, got, tc.noLoans)
		}
		cal := page(&f.librarian, school+"/calendar", tc.accept)
		if got := textOf(all(cal, "h1")[0]); got != tc.calendar {
			t.Errorf("%s: the calendar's heading is %q, want %q", tc.lang, got, tc.calendar)
		}
		if label := all(byID(cal, "calendar-form"), "label"); len(label) == 0 || textOf(label[0]) != tc.monday {
			t.Errorf("%s: the first weekday is not %q: %s", tc.lang, tc.monday, render(byID(cal, "calendar-form")))
		}
		rec := serve(&f.librarian, http.MethodPost, school+"/checkout", tc.accept, url.Values{"code": {""}, "student": {"E-1"}})
		var fl *flash
		for _, c := range rec.Result().Cookies() {
			if c.Name == flashCookie {
				fl = decodeFlash(c.Value)
			}
		}
		if rec.Code != http.StatusSeeOther || fl == nil || fl.Kind != "error" || fl.Message != tc.refusal {
			t.Errorf("%s: a check-out with no code: %d, flash %+v, want the error %q", tc.lang, rec.Code, fl, tc.refusal)
		}
	}
}
