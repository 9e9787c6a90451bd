package webapp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/user"
)

// inLang serves one request as caller with the browser asking for lang
// ("" asks for none).
func (f *fixture) inLang(caller *user.Account, method, target, lang string, form url.Values) *httptest.ResponseRecorder {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	r := httptest.NewRequest(method, target, body)
	if form != nil {
		r.Header.Set("Content-Type", formMediaType)
	}
	if lang != "" {
		r.Header.Set("Accept-Language", lang)
	}
	r = r.WithContext(user.WithPrincipal(r.Context(), user.PrincipalOf(*caller)))
	return f.serve(r)
}

// pageIn is a page as caller reads it in lang.
func (f *fixture) pageIn(t *testing.T, caller *user.Account, target, lang string) *html.Node {
	t.Helper()
	rec := f.inLang(caller, http.MethodGet, target, lang, nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("%s in %q: %d", target, lang, rec.Code)
	}
	return parse(t, rec.Body.String())
}

// flashOf is the message of the flash a form post set.
func flashOf(rec *httptest.ResponseRecorder) *flash {
	for _, c := range rec.Result().Cookies() {
		if c.Name == flashCookie {
			return decodeFlash(c.Value)
		}
	}
	return nil
}

// shortIn writes the day iso (YYYY-MM-DD) as a table in lang shows it,
// spelt out here rather than asked of core/i18n: 16/12/2026 in Spanish,
// ١٦‏/١٢‏/٢٠٢٦ in Arabic (right-to-left marks after the day and month).
func shortIn(t *testing.T, lang, iso string) string {
	t.Helper()
	d, err := time.Parse(time.DateOnly, iso)
	if err != nil {
		t.Fatalf("%q is not a day: %v", iso, err)
	}
	switch lang {
	case "es":
		return fmt.Sprintf("%02d/%02d/%d", d.Day(), int(d.Month()), d.Year())
	case "ar":
		return strings.NewReplacer("0", "٠", "1", "١", "2", "٢", "3", "٣", "4", "٤", "5", "٥", "6", "٦", "7", "٧", "8", "٨", "9", "٩").
			Replace(fmt.Sprintf("%d\u200f/%d\u200f/%d", d.Day(), int(d.Month()), d.Year()))
	}
	return iso
}

// The days in the desk's loans and in a student's own loans are written
// as the page's language writes a date, each in a <time> whose datetime
// keeps the ISO day; English keeps 2026-12-16.
func TestDatesOnThePagesFollowTheLanguage(t *testing.T) {
	f := newFixture(t)
	const school = "/library/maple.example.org"
	heldBook, _ := f.heldBook(t, "Dated Days", f.student)
	for _, lang := range []string{"", "es", "ar"} {
		name := lang
		if name == "" {
			name = "en"
		}
		desk := f.pageIn(t, &f.librarian, school, lang)
		today := byID(desk, "desk-today")
		if today == nil || textOf(today) != shortIn(t, name, attr(today, "datetime")) {
			t.Errorf("%s: the desk's today is %q", name, render(today))
		}
		times := all(byID(desk, "loans-table"), "time")
		if len(times) != 2 {
			t.Fatalf("%s: the desk's loans show %d dates, want the 2 due dates: %s", name, len(times), render(byID(desk, "loans-table")))
		}
		for _, tm := range times {
			iso := attr(tm, "datetime")
			if got, want := textOf(tm), shortIn(t, name, iso); got != want {
				t.Errorf("%s: a due date on the desk reads %q, want %q (datetime %q)", name, got, want, iso)
			}
			if name != "en" && textOf(tm) == iso {
				t.Errorf("%s: a due date on the desk is still ISO: %q", name, iso)
			}
		}
		mine := f.pageIn(t, &f.student, school, lang)
		rows := byTestID(mine, "loan-row")
		if len(rows) == 0 {
			rows = all(mine, "tr")
		}
		found := false
		for _, row := range rows {
			if !strings.Contains(textOf(row), heldBook.Title) {
				continue
			}
			for _, tm := range all(row, "time") {
				found = true
				if got, want := textOf(tm), shortIn(t, name, attr(tm, "datetime")); got != want {
					t.Errorf("%s: the student's due date reads %q, want %q", name, got, want)
				}
			}
		}
		if !found {
			t.Errorf("%s: the student's page shows no due date of %q", name, heldBook.Title)
		}
	}
}

// The sentences the core builds from parts are said whole in the page's
// language: a borrowing block's reason, a ready hold's state with the day
// to collect it by, and the class reading chart's summary.
func TestSentencesBuiltFromPartsAreTranslated(t *testing.T) {
	f := newFixture(t)
	const school = "/library/maple.example.org"
	asLib := user.WithPrincipal(context.Background(), user.PrincipalOf(f.librarian))
	// A loan made six weeks ago is overdue now; one overdue loan blocks.
	f.lib.SetClock(func() time.Time { return time.Now().AddDate(0, 0, -42) }, nil)
	late, lateCopy := f.heldBook(t, "Late Lemur", f.evil)
	f.lib.SetClock(time.Now, nil)
	one := 1
	if _, err := f.lib.Schools.ChangeSettings(asLib, "", library.SettingsChange{BlockOverdueItems: &one}); err != nil {
		t.Fatal(err)
	}
	_, free, err := f.lib.Holdings.AddBook(asLib, "", library.BookDraft{Title: "Free Falcon", Author: "O. Pen", Copies: 1})
	if err != nil {
		t.Fatal(err)
	}
	for lang, want := range map[string]string{
		"":   "The student may not borrow: 1 overdue items (the limit is 1).",
		"es": "El estudiante no puede tomar libros en préstamo: 1 préstamo vencido (el límite es 1).",
		"ar": "لا يُسمح للطالب بالاستعارة: إعارة متأخرة واحدة (الحد ١).",
	} {
		rec := f.inLang(&f.librarian, http.MethodPost, school+"/checkout", lang, url.Values{"code": {free[0].Code}, "student": {"E-1"}})
		if fl := flashOf(rec); rec.Code != http.StatusSeeOther || fl == nil || fl.Kind != "error" || fl.Message != want {
			t.Errorf("%q: a blocked check-out: %d, flash %+v, want %q", lang, rec.Code, fl, want)
		}
	}

	// The student's hold on the late book is ready once it comes back.
	if _, err := f.lib.Holds.Place(asLib, circulation.HoldInput{BookID: late.ID, StudentID: f.student.ID}); err != nil {
		t.Fatal(err)
	}
	if rec := f.do(&f.librarian, http.MethodPost, school+"/return", url.Values{"code": {lateCopy.Code}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("return the held copy: %d", rec.Code)
	}
	holds, err := f.lib.Holds.StudentHolds(user.WithPrincipal(context.Background(), user.PrincipalOf(f.student)))
	if err != nil || len(holds) != 1 || holds[0].Trap == nil {
		t.Fatalf("the student's holds: %+v, %v", holds, err)
	}
	until := holds[0].Trap.ExpiresAt.UTC().Format(time.DateOnly)
	for lang, want := range map[string]string{
		"":   "Ready to collect, collect by " + until,
		"es": "Lista para recoger, recógelo antes del " + shortIn(t, "es", until),
		"ar": "جاهز للاستلام، استلمه قبل " + shortIn(t, "ar", until),
	} {
		catalog := f.pageIn(t, &f.student, school+"/catalog?search=Late+Lemur", lang)
		if mine := byTestID(catalog, "catalog-my-hold"); len(mine) != 1 || strings.TrimSpace(textOf(mine[0])) != want {
			t.Errorf("%q: the catalogue says of the ready hold %q, want %q", lang, textOf(mine[0]), want)
		}
	}

	// The class reading chart's summary, in a class with one reader.
	f.classes(t)
	for lang, want := range map[string]string{"": "One bar: ", "es": "Una barra: ", "ar": "عمود واحد: "} {
		page := f.pageIn(t, &f.teacher, readingPath+"?homeroom=4B", lang)
		if desc := byID(page, "chart-class-reading-desc"); desc == nil || !strings.HasPrefix(textOf(desc), want) {
			t.Errorf("%q: the chart's summary is %q, want it to start %q", lang, textOf(desc), want)
		}
		from := byID(page, "reading-from")
		if name := map[string]string{"": "en"}[lang] + lang; from == nil || textOf(from) != shortIn(t, name, attr(from, "datetime")) {
			t.Errorf("%q: the term's first day reads %q", lang, render(from))
		}
	}
}
