package webapp

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/user"
)

// TestOfflineFallbackSpeaksTheDesksLanguage: the page the desk's service
// worker keeps for a desk it has not kept is said as the desk is, in the
// language the browser asks for (Arabic right to left), the school's
// over the browser's and the person's own over the school's; in English
// it says what the worker's own English page says, and the worker fetches
// it from the path the server serves it at.
func TestOfflineFallbackSpeaksTheDesksLanguage(t *testing.T) {
	f := newFixture(t)
	const school = "/library/maple.example.org"
	fallback := func(personal, accept string) *httptest.ResponseRecorder {
		t.Helper()
		r := httptest.NewRequest(http.MethodGet, school+offlineFallbackPath, nil)
		if accept != "" {
			r.Header.Set("Accept-Language", accept)
		}
		acct := f.librarian
		acct.Preferences.Language = personal
		ctx := user.WithPrincipal(r.Context(), user.PrincipalOf(acct))
		r = r.WithContext(user.WithAccount(ctx, acct))
		rec := httptest.NewRecorder()
		f.router.ServeHTTP(rec, r)
		return rec
	}
	check := func(name string, rec *httptest.ResponseRecorder, lang i18n.Lang) {
		t.Helper()
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", name, rec.Code, rec.Body)
		}
		doc := parse(t, rec.Body.String())
		root := all(doc, "html")[0]
		if attr(root, "lang") != string(lang) || attr(root, "dir") != lang.Dir() || rec.Header().Get("Content-Language") != string(lang) {
			t.Errorf("%s: <html lang=%q dir=%q>, Content-Language %q; want %s %s", name, attr(root, "lang"), attr(root, "dir"),
				rec.Header().Get("Content-Language"), lang, lang.Dir())
		}
		want := map[string]string{
			"title": lang.T("Offline") + " · " + lang.T("School library"),
			"h1":    lang.T("The server cannot be reached"),
			"p":     lang.T("This desk has not been opened on this computer while the server answered, so it cannot work offline yet. Try again when the server answers."),
		}
		for tag, text := range want {
			got := ""
			if n := all(doc, tag); len(n) == 1 {
				got = textOf(n[0])
			}
			if got != text {
				t.Errorf("%s: <%s> %q, want one saying %q", name, tag, got, text)
			}
		}
		if lang != i18n.English && strings.Contains(rec.Body.String(), "cannot be reached") {
			t.Errorf("%s: English left in the page: %s", name, rec.Body)
		}
	}

	en := fallback("", "")
	check("no language asked", en, i18n.English)
	check("Spanish asked", fallback("", "es-MX,es;q=0.9"), i18n.Spanish)
	check("Arabic asked", fallback("", "ar"), i18n.Arabic)
	if got := textOf(all(parse(t, fallback("", "es").Body.String()), "h1")[0]); got != "No se puede conectar con el servidor" {
		t.Errorf("the Spanish heading: %q", got)
	}
	if got := textOf(all(parse(t, fallback("", "ar").Body.String()), "h1")[0]); got != "لا يمكن الوصول إلى الخادم" {
		t.Errorf("the Arabic heading: %q", got)
	}

	// The worker's own English page, for a browser that has kept none yet,
	// is the server's English page, and it asks for the page where the
	// server serves it.
	sw, err := staticFiles.ReadFile("static/sw.js")
	if err != nil {
		t.Fatal(err)
	}
	doc := parse(t, en.Body.String())
	for _, text := range []string{textOf(all(doc, "h1")[0]), textOf(all(doc, "title")[0])} {
		if !strings.Contains(string(sw), text) {
			t.Errorf("sw.js's own English page does not say %q", text)
		}
	}
	if !strings.Contains(string(sw), `"`+offlineFallbackPath+`"`) {
		t.Errorf("sw.js does not fetch %s", offlineFallbackPath)
	}

	// The school's language wins over the browser's, the person's own
	// over the school's.
	save := url.Values{"default_loan_days": {"14"}, "max_renewals": {"2"}, "renewal_days": {"7"}, "language": {"ar"}}
	if rec := f.do(&f.librarian, http.MethodPost, school+"/settings", save); rec.Code != http.StatusSeeOther {
		t.Fatalf("the school chooses Arabic: %d", rec.Code)
	}
	check("a school that chose Arabic, a browser asking for Spanish", fallback("", "es"), i18n.Arabic)
	check("a person who chose Spanish at that school", fallback("es", "ar"), i18n.Spanish)

	// Students have no desk to keep, and get no page.
	if rec := f.do(&f.student, http.MethodGet, school+offlineFallbackPath, nil); rec.Code != http.StatusForbidden {
		t.Errorf("a student: %d, want 403", rec.Code)
	}
}
