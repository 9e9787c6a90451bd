package webapp

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/user"
)

// TestAdminPagesSpeakTheBrowsersLanguage: the roster, accounts, kiosks
// and sign-in pages say their headings, labels and the accounts' roles in
// the language the browser asks for, Arabic right to left, and in English
// when it asks for none the service speaks.
func TestAdminPagesSpeakTheBrowsersLanguage(t *testing.T) {
	f := newFixture(t)
	get := func(caller *user.Account, target, accept string) *httptest.ResponseRecorder {
		t.Helper()
		r := httptest.NewRequest(http.MethodGet, target, nil)
		if accept != "" {
			r.Header.Set("Accept-Language", accept)
		}
		if caller != nil {
			r = r.WithContext(user.WithPrincipal(r.Context(), user.PrincipalOf(*caller)))
		}
		rec := httptest.NewRecorder()
		f.router.ServeHTTP(rec, r)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s (%s): %d", target, accept, rec.Code)
		}
		return rec
	}
	const school = "/library/maple.example.org"
	cases := []struct {
		caller                *user.Account
		path, accept          string
		lang, dir             string
		id, text              string // an element and its text in that language
		alsoID, alsoText      string
		contentLanguageHeader string
	}{
		{&f.librarian, school + "/roster", "", "en", "ltr", "leavers-title", "Leavers with books", "sync-check", "Check the roster", "en"},
		{&f.librarian, school + "/roster", "es-MX,es;q=0.9", "es", "ltr", "leavers-title", "Egresados con libros", "sync-check", "Comprobar la lista", "es"},
		{&f.librarian, school + "/roster", "ar", "ar", "rtl", "leavers-title", "مغادرون لديهم كتب", "sync-check", "فحص القائمة", "ar"},
		{&f.librarian, school + "/kiosks", "ar", "ar", "rtl", "kiosk-add-title", "إضافة جهاز خدمة ذاتية", "no-kiosks", "لا توجد أجهزة خدمة ذاتية في هذه المدرسة بعد.", "ar"},
		{&f.librarian, school + "/kiosks", "fr", "en", "ltr", "kiosk-add-title", "Add a kiosk", "no-kiosks", "This school has no kiosks yet.", "en"},
		{&f.admin, school + "/accounts", "es", "es", "ltr", "invite-title", "Invitar a un bibliotecario o a un miembro del personal", "accounts-caption", "Cuentas de bibliotecarios y personal", "es"},
		{nil, "/library", "ar", "ar", "rtl", "signin-submit", "تسجيل الدخول", "forgot-password-link", "هل نسيت كلمة المرور؟", "ar"},
		{nil, "/library", "es", "es", "ltr", "signin-submit", "Iniciar sesión", "forgot-password-link", "¿Olvidaste tu contraseña?", "es"},
	}
	for _, c := range cases {
		rec := get(c.caller, c.path, c.accept)
		doc := parse(t, rec.Body.String())
		root := all(doc, "html")
		if len(root) != 1 || attr(root[0], "lang") != c.lang || attr(root[0], "dir") != c.dir {
			t.Errorf("%s (%s): want <html lang=%q dir=%q>, got %s", c.path, c.accept, c.lang, c.dir, render(root[0])[:60])
		}
		if got := rec.Header().Get("Content-Language"); got != c.contentLanguageHeader {
			t.Errorf("%s (%s): Content-Language %q", c.path, c.accept, got)
		}
		for id, want := range map[string]string{c.id: c.text, c.alsoID: c.alsoText} {
			if got := textOf(byID(doc, id)); got != want {
				t.Errorf("%s (%s): #%s says %q, want %q", c.path, c.accept, id, got, want)
			}
		}
	}

	// The page's title is said in the language too, and the accounts' roles
	// by their names in it.
	doc := parse(t, get(&f.admin, school+"/accounts", "es").Body.String())
	if h := all(doc, "h1"); len(h) != 1 || textOf(h[0]) != "Cuentas del personal" {
		t.Errorf("accounts heading in Spanish: %v", h)
	}
	roles := map[string]bool{}
	for _, row := range byTestID(doc, "account-row") {
		if tds := all(row, "td"); len(tds) > 0 {
			roles[textOf(tds[0])] = true
		}
	}
	if !roles["bibliotecario"] || roles["librarian"] {
		t.Errorf("roles on the Spanish accounts page: %v", roles)
	}
	if title := all(doc, "title"); len(title) != 1 || !strings.HasPrefix(textOf(title[0]), "Cuentas · ") {
		t.Errorf("accounts title in Spanish: %v", title)
	}
}
