package webapp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/mux"
	"golang.org/x/net/html"

	"github.com/readinglibrary/service/adapters/coverimage"
	"github.com/readinglibrary/service/adapters/ladonauthz"
	"github.com/readinglibrary/service/adapters/sqliterepo/sqlitetest"
	"github.com/readinglibrary/service/cmd/libraryd/wire"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/collection"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/core/service/students"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/policies"
	"github.com/readinglibrary/service/ports/portfake"
)

// The handlers are tested here on their own, with the real policies and the
// real use cases over the in-memory repositories; the caller is put in the
// context directly (the HTTP edge's cookie, CSRF and route guard are tested
// end to end in test/webapp_test.go).

// Names a school's users can choose: every page must show them as text.
const (
	evilStudent = `<script>alert("s")</script> Eve`
	evilTitle   = `<img src=x onerror=alert(1)> Tales`
)

type fixture struct {
	app                     *App
	identity                *identity.Identity
	mail                    *portfake.Outbox
	router                  *mux.Router
	lib                     *service.Library
	school, other           library.School
	admin, librarian, staff user.Account
	student, evil, otherLib user.Account
	teacher                 user.Account
	evilCode                string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	repos := sqlitetest.NewDB(t).Repositories()
	mail := &portfake.Outbox{}
	idDeps := wire.Identity(repos, portfake.Tokens{}, portfake.Hasher{}, portfake.OpenThrottle{})
	idDeps.Mailer = mail
	ident := identity.NewIdentity(idDeps, identity.IdentityConfig{LinkBase: "https://library.example.org"})
	authz, err := ladonauthz.LoadFS(policies.Files)
	if err != nil {
		t.Fatal(err)
	}
	lib := service.NewLibrary(wire.Library(repos), ident, service.LibraryConfig{CoverImages: coverimage.Normalizer{}, Authz: authz})
	f := &fixture{lib: lib, identity: ident, mail: mail}
	if f.school, err = lib.Schools.Create(ctx, "Maple <b>Grove</b>", "maple.example.org"); err != nil {
		t.Fatal(err)
	}
	if f.other, err = lib.Schools.Create(ctx, "Birch", "birch.example.org"); err != nil {
		t.Fatal(err)
	}
	acct := func(email, name string, role user.Role, school string) user.Account {
		a, err := ident.CreateAccount(ctx, identity.NewAccountInput{Email: email, Password: "long-password-1", Name: name, Role: role, SchoolID: school})
		if err != nil {
			t.Fatalf("account %s: %v", email, err)
		}
		return a
	}
	f.admin = acct("admin@example.org", "Ada", user.RoleAdmin, "")
	f.librarian = acct("lib@maple.example.org", "Lena", user.RoleLibrarian, f.school.ID)
	f.staff = acct("staff@maple.example.org", "Sam", user.RoleStaff, f.school.ID)
	f.student = acct("theo@maple.example.org", "Theo Student", user.RoleStudent, f.school.ID)
	f.teacher = acct("tess@maple.example.org", "Tess Teacher", user.RoleTeacher, f.school.ID)
	f.otherLib = acct("lib@birch.example.org", "Bo", user.RoleLibrarian, f.other.ID)
	asLib := user.WithPrincipal(ctx, user.PrincipalOf(f.librarian))
	if f.evil, err = lib.Students.Create(asLib, "", students.StudentInput{Name: evilStudent, StudentNumber: "E-1"}); err != nil {
		t.Fatal(err)
	}
	b, copies, err := lib.Holdings.AddBook(asLib, "", library.BookDraft{Title: evilTitle, Author: "A <i>uthor</i>", Copies: 2})
	if err != nil {
		t.Fatal(err)
	}
	f.evilCode = copies[0].Code
	if _, err := lib.Circulation.CreateLoan(asLib, circulation.LoanInput{BookID: b.ID, CopyID: copies[0].ID, StudentID: f.evil.ID}); err != nil {
		t.Fatal(err)
	}
	f.app = New(Deps{Library: lib, Identity: ident, Authorizer: authz}, Config{})
	f.router = mux.NewRouter()
	for _, rt := range f.app.Routes() {
		f.router.Handle(rt.Path, rt.Handle).Methods(rt.Method)
	}
	return f
}

// do serves one request as caller (nil: anonymous).
func (f *fixture) do(caller *user.Account, method, target string, form url.Values) *httptest.ResponseRecorder {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	r := httptest.NewRequest(method, target, body)
	if form != nil {
		r.Header.Set("Content-Type", formMediaType)
	}
	if caller != nil {
		r = r.WithContext(user.WithPrincipal(r.Context(), user.PrincipalOf(*caller)))
	}
	rec := httptest.NewRecorder()
	f.router.ServeHTTP(rec, r)
	return rec
}

func TestEveryPageRendersWithItsHeaders(t *testing.T) {
	f := newFixture(t)
	pages := []struct {
		name   string
		caller *user.Account
		path   string
		want   string // an element id the page must have
	}{
		{"SignIn", nil, "/library", "signin-form"},
		{"AdminSchools", &f.admin, "/library", "school-list"},
		{"Desk", &f.librarian, "/library/maple.example.org", "checkout-form"},
		{"DeskAdmin", &f.admin, "/library/maple.example.org", "checkout-form"},
		{"DeskStaff", &f.staff, "/library/maple.example.org", "read-only-note"},
		{"StudentLoans", &f.student, "/library/maple.example.org", "my-loans-count"},
		{"Books", &f.librarian, "/library/maple.example.org/books", "add-book-form"},
		{"Students", &f.librarian, "/library/maple.example.org/students", "import-form"},
		{"Settings", &f.librarian, "/library/maple.example.org/settings", "settings-form"},
		{"SettingsStudent", &f.student, "/library/maple.example.org/settings", "settings-view"},
		{"Calendar", &f.librarian, "/library/maple.example.org/calendar", "calendar-form"},
		{"CalendarStaff", &f.staff, "/library/maple.example.org/calendar", "calendar-view"},
		{"Reports", &f.librarian, "/library/maple.example.org/reports", "report-loans-per-month"},
		{"ReportsStaff", &f.staff, "/library/maple.example.org/reports", "csv-median-age"},
		{"ReportsAdmin", &f.admin, "/library/maple.example.org/reports", "report-median-age"},
		{"Accounts", &f.admin, "/library/maple.example.org/accounts", "invite-form"},
		{"AccountsStaff", &f.staff, "/library/maple.example.org/accounts", "accounts-table"},
		{"Catalog", nil, "/library/maple.example.org/catalog", "catalog-table"},
		{"ForgotPassword", nil, "/library/forgot-password", "forgot-form"},
		{"ResetPassword", nil, "/library/reset-password?token=abc", "reset-form"},
		{"ResetPasswordNoToken", nil, "/library/reset-password", "reset-no-token"},
		{"VerifyEmail", nil, "/library/verify-email?token=abc", "verify-form"},
	}
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			rec := f.do(p.caller, http.MethodGet, p.path, nil)
			if rec.Code != http.StatusOK {
				t.Fatalf("GET %s: %d\n%s", p.path, rec.Code, rec.Body)
			}
			h := rec.Header()
			if ct := h.Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("Content-Type = %q", ct)
			}
			for _, part := range []string{"default-src 'self'", "form-action 'self'", "frame-ancestors 'none'"} {
				if !strings.Contains(h.Get("Content-Security-Policy"), part) {
					t.Errorf("CSP %q lacks %q", h.Get("Content-Security-Policy"), part)
				}
			}
			// no-referrer would make browsers send "Origin: null" on form posts.
			if got := h.Get("Referrer-Policy"); got != "same-origin" {
				t.Errorf("Referrer-Policy = %q, want same-origin", got)
			}
			doc := parse(t, rec.Body.String())
			if byID(doc, p.want) == nil {
				t.Errorf("no element #%s", p.want)
			}
			checkAccessible(t, doc)
		})
	}
}

func TestUserTextIsEscaped(t *testing.T) {
	f := newFixture(t)
	for _, p := range []struct {
		caller *user.Account
		path   string
	}{
		{&f.librarian, "/library/maple.example.org"},
		{&f.librarian, "/library/maple.example.org/books"},
		{&f.librarian, "/library/maple.example.org/students"},
		{nil, "/library/maple.example.org/catalog"},
	} {
		rec := f.do(p.caller, http.MethodGet, p.path, nil)
		body := rec.Body.String()
		for _, raw := range []string{"<script>alert", "<img src=x", "<b>Grove", "<i>uthor"} {
			if strings.Contains(body, raw) {
				t.Errorf("%s contains unescaped %q", p.path, raw)
			}
		}
		// The text is there, escaped: nothing is silently dropped.
		doc := parse(t, body)
		text := textOf(doc)
		if !strings.Contains(text, "Maple <b>Grove</b>") {
			t.Errorf("%s does not show the school name as text", p.path)
		}
		if p.path != "/library/maple.example.org/students" && !strings.Contains(text, evilTitle) {
			t.Errorf("%s does not show the book title as text", p.path)
		}
		if p.path == "/library/maple.example.org" && !strings.Contains(text, evilStudent) {
			t.Errorf("the desk does not show the student's name as text")
		}
		for _, n := range all(doc, "script") {
			// The one script without src is the script's texts, data the
			// browser never runs (pagetexts.go).
			if attr(n, "src") == "" && (attr(n, "type") != "application/json" || attr(n, "id") != "page-texts") {
				t.Errorf("%s has an inline script", p.path)
			}
		}
	}
}

func TestFlashMessageIsEscapedAndForgedKindsIgnored(t *testing.T) {
	f := newFixture(t)
	rec := httptest.NewRecorder()
	f.app.setFlash(rec, flash{Kind: "error", Message: `<script>x()</script>`, Focus: "return"})
	cookie := rec.Result().Cookies()[0]
	if cookie.Path != "/library/" || !cookie.HttpOnly || cookie.MaxAge <= 0 {
		t.Fatalf("flash cookie = %+v", cookie)
	}
	r := httptest.NewRequest(http.MethodGet, "/library/maple.example.org", nil)
	r.AddCookie(cookie)
	r = r.WithContext(user.WithPrincipal(r.Context(), user.PrincipalOf(f.librarian)))
	out := httptest.NewRecorder()
	f.router.ServeHTTP(out, r)
	doc := parse(t, out.Body.String())
	flashEl := byID(doc, "flash")
	if flashEl == nil || attr(flashEl, "role") != "alert" || textOf(flashEl) != `<script>x()</script>` {
		t.Fatalf("flash element = %v", render(flashEl))
	}
	if strings.Contains(out.Body.String(), "<script>x()") {
		t.Fatal("flash message rendered unescaped")
	}
	if code := byID(doc, "return-code"); code == nil || !hasAttr(code, "autofocus") {
		t.Error("focus is not back on the return form's code field")
	}
	// Reading the flash clears it.
	if c := out.Result().Cookies(); len(c) != 1 || c[0].Name != flashCookie || c[0].MaxAge >= 0 {
		t.Errorf("flash not cleared: %+v", c)
	}
	for _, v := range []string{"", "!!", "e30", encodeFlash(t, flash{Kind: "script", Message: "x"}), encodeFlash(t, flash{Kind: "info"})} {
		if got := decodeFlash(v); got != nil {
			t.Errorf("decodeFlash(%q) = %+v, want nil", v, got)
		}
	}
}

func encodeFlash(t *testing.T, fl flash) string {
	rec := httptest.NewRecorder()
	(&App{}).setFlash(rec, fl)
	return rec.Result().Cookies()[0].Value
}

func TestSchoolPagesRefuseStrangers(t *testing.T) {
	f := newFixture(t)
	// Anonymous visitors are sent to sign in, whatever the domain.
	for _, path := range []string{"/library/maple.example.org", "/library/unknown.example.org/books"} {
		rec := f.do(nil, http.MethodGet, path, nil)
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/library" {
			t.Errorf("anonymous GET %s: %d %s", path, rec.Code, rec.Header().Get("Location"))
		}
	}
	// Another school's page and an unknown school's page look the same.
	other := f.do(&f.otherLib, http.MethodGet, "/library/maple.example.org", nil)
	unknown := f.do(&f.otherLib, http.MethodGet, "/library/unknown.example.org", nil)
	if other.Code != http.StatusNotFound || unknown.Code != http.StatusNotFound {
		t.Fatalf("other school %d, unknown %d; want 404 for both", other.Code, unknown.Code)
	}
	if textOf(byID(parse(t, other.Body.String()), "main")) != textOf(byID(parse(t, unknown.Body.String()), "main")) {
		t.Error("another school's page differs from an unknown school's page")
	}
	// A student cannot open the staff pages of their own school.
	for _, path := range []string{"/library/maple.example.org/books", "/library/maple.example.org/students", "/library/maple.example.org/accounts"} {
		if rec := f.do(&f.student, http.MethodGet, path, nil); rec.Code != http.StatusForbidden {
			t.Errorf("student GET %s: %d, want 403", path, rec.Code)
		}
	}
	// Staff is read-only: a check-out form post is refused and lends nothing.
	rec := f.do(&f.staff, http.MethodPost, "/library/maple.example.org/checkout", url.Values{"code": {f.evilCode}, "student": {"E-1"}})
	if rec.Code != http.StatusForbidden {
		t.Errorf("staff check-out: %d, want 403", rec.Code)
	}
}

func TestStudentSeesOnlyOwnLoans(t *testing.T) {
	f := newFixture(t)
	rec := f.do(&f.student, http.MethodGet, "/library/maple.example.org", nil)
	doc := parse(t, rec.Body.String())
	if rows := byTestID(doc, "my-loan-row"); len(rows) != 0 {
		t.Fatalf("student sees %d loans, want 0 (the only loan is another student's)", len(rows))
	}
	if strings.Contains(textOf(doc), "Tales") {
		t.Fatal("student sees another student's loan")
	}
	if byID(doc, "checkout-form") != nil {
		t.Fatal("student sees the check-out form")
	}
}

func TestCheckoutAsksWhichStudent(t *testing.T) {
	f := newFixture(t)
	ctx := user.WithPrincipal(context.Background(), user.PrincipalOf(f.librarian))
	for _, n := range []string{"Mia Stone", "Mia Brook"} {
		if _, err := f.lib.Students.Create(ctx, "", students.StudentInput{Name: n}); err != nil {
			t.Fatal(err)
		}
	}
	page, _ := f.lib.Holdings.Books(ctx, "", usecase.ListQuery{Page: 1, Limit: 10})
	free := ""
	for _, c := range mustCopies(t, f, ctx, page.Entries[0].Book.ID) {
		free = c
	}
	rec := f.do(&f.librarian, http.MethodPost, "/library/maple.example.org/checkout", url.Values{"code": {free}, "student": {"mia"}})
	if rec.Code != http.StatusOK {
		t.Fatalf("ambiguous name: %d, want the choice page", rec.Code)
	}
	doc := parse(t, rec.Body.String())
	options := byTestID(doc, "student-choice-option")
	if len(options) != 2 {
		t.Fatalf("choice lists %d students, want 2", len(options))
	}
	if loans, _ := f.lib.Circulation.Loans(ctx, "", circulation.LoanFilter{}); len(loans) != 1 {
		t.Fatalf("%d loans after an ambiguous name, want the 1 from before", len(loans))
	}
	radios := all(byID(doc, "student-choice"), "input")
	rec = f.do(&f.librarian, http.MethodPost, "/library/maple.example.org/checkout",
		url.Values{"code": {free}, "student": {"mia"}, "student_id": {attr(radios[1], "value")}})
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("chosen student: %d %s", rec.Code, rec.Body)
	}
	if loans, _ := f.lib.Circulation.Loans(ctx, "", circulation.LoanFilter{}); len(loans) != 2 {
		t.Fatalf("%d loans after choosing, want 2", len(loans))
	}
}

// mustCopies returns the codes of a book's new copies (made for the test).
func mustCopies(t *testing.T, f *fixture, ctx context.Context, bookID string) []string {
	t.Helper()
	_, copies, err := f.lib.Holdings.AddCopies(ctx, "", bookID, 1)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range copies {
		out = append(out, c.Code)
	}
	return out
}

func TestPickStudent(t *testing.T) {
	ann := user.Account{ID: "1", Name: "Ann Lee", StudentNumber: "A-1"}
	ann2 := user.Account{ID: "2", Name: "Ann Park", StudentNumber: "A-10"}
	tests := []struct {
		name    string
		matches []user.Account
		query   string
		want    string
	}{
		{"ExactNumberAmongPrefixes", []user.Account{ann, ann2}, "a-1", "1"},
		{"OnlyMatch", []user.Account{ann2}, "park", "2"},
		{"Ambiguous", []user.Account{ann, ann2}, "ann", ""},
		{"None", nil, "zed", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := pickStudent(tt.matches, tt.query)
			if (got == nil && tt.want != "") || (got != nil && got.ID != tt.want) {
				t.Fatalf("pickStudent(%q) = %v, want %q", tt.query, got, tt.want)
			}
		})
	}
}

func TestAssetsAreVersioned(t *testing.T) {
	f := newFixture(t)
	rec := f.do(nil, http.MethodGet, f.app.urls.CSS, nil)
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/css") || !strings.Contains(rec.Header().Get("Cache-Control"), "immutable") {
		t.Fatalf("CSS: %d %v", rec.Code, rec.Header())
	}
	if !strings.Contains(rec.Body.String(), ":focus-visible") {
		t.Error("the stylesheet has no visible focus style")
	}
	if rec := f.do(nil, http.MethodGet, "/library/assets/nothing.js", nil); rec.Code != http.StatusNotFound {
		t.Errorf("unknown asset: %d", rec.Code)
	}
}

// ----- HTML helpers -----

func parse(t *testing.T, s string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func walk(n *html.Node, fn func(*html.Node)) {
	if n == nil {
		return
	}
	fn(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, fn)
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

func byID(doc *html.Node, id string) *html.Node {
	var found *html.Node
	walk(doc, func(n *html.Node) {
		if found == nil && n.Type == html.ElementNode && attr(n, "id") == id {
			found = n
		}
	})
	return found
}

func byTestID(doc *html.Node, id string) []*html.Node {
	var out []*html.Node
	walk(doc, func(n *html.Node) {
		if n.Type == html.ElementNode && attr(n, "data-testid") == id {
			out = append(out, n)
		}
	})
	return out
}

func all(doc *html.Node, tag string) []*html.Node {
	var out []*html.Node
	walk(doc, func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == tag {
			out = append(out, n)
		}
	})
	return out
}

func textOf(n *html.Node) string {
	var b strings.Builder
	walk(n, func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
	})
	return strings.Join(strings.Fields(b.String()), " ")
}

func render(n *html.Node) string {
	if n == nil {
		return "<nil>"
	}
	var b strings.Builder
	_ = html.Render(&b, n)
	return b.String()
}

// checkAccessible checks what can be checked without a browser: one h1,
// the skip link target, a label for every form control, th scope in
// tables, unique ids, and autofocus at most once.
func checkAccessible(t *testing.T, doc *html.Node) {
	t.Helper()
	if n := len(all(doc, "h1")); n != 1 {
		t.Errorf("%d h1 elements, want 1", n)
	}
	if byID(doc, "skip-link") == nil || byID(doc, "main") == nil {
		t.Error("no skip link to #main")
	}
	labels := map[string]bool{}
	for _, l := range all(doc, "label") {
		labels[attr(l, "for")] = true
	}
	ids := map[string]bool{}
	autofocus := 0
	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		if id := attr(n, "id"); id != "" {
			if ids[id] {
				t.Errorf("duplicate id %q", id)
			}
			ids[id] = true
		}
		if hasAttr(n, "autofocus") {
			autofocus++
		}
		switch n.Data {
		case "input", "select", "textarea":
			if typ := attr(n, "type"); typ == "hidden" || typ == "submit" {
				return
			}
			if id := attr(n, "id"); id == "" || !labels[id] {
				t.Errorf("form control without a label: %s", render(n))
			}
		case "th":
			if attr(n, "scope") == "" {
				t.Errorf("th without scope: %s", render(n))
			}
		}
	})
	if autofocus > 1 {
		t.Errorf("%d elements have autofocus, want at most 1", autofocus)
	}
}

// TestSettingsFormSetsCopyCaps saves the copy caps from the settings page,
// keeps them when the form leaves them blank, and shows a refused cap on
// the form with nothing saved.
func TestSettingsFormSetsCopyCaps(t *testing.T) {
	f := newFixture(t)
	ctx := user.WithPrincipal(context.Background(), user.PrincipalOf(f.librarian))
	form := func(book, school string) url.Values {
		return url.Values{"default_loan_days": {"14"}, "max_renewals": {"2"}, "renewal_days": {"7"},
			"max_copies_per_book": {book}, "max_copies_per_school": {school}}
	}
	caps := func() (int, int) {
		s, err := f.lib.Schools.Settings(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		return s.Settings.MaxCopiesPerBook, s.Settings.MaxCopiesPerSchool
	}
	if rec := f.do(&f.librarian, http.MethodPost, "/library/maple.example.org/settings", form("40", "900")); rec.Code != http.StatusSeeOther {
		t.Fatalf("save the caps: %d %s", rec.Code, rec.Body)
	}
	if b, s := caps(); b != 40 || s != 900 {
		t.Fatalf("caps after saving = %d, %d; want 40, 900", b, s)
	}
	if rec := f.do(&f.librarian, http.MethodPost, "/library/maple.example.org/settings", form("", "")); rec.Code != http.StatusSeeOther {
		t.Fatalf("save without caps: %d %s", rec.Code, rec.Body)
	}
	if b, s := caps(); b != 40 || s != 900 {
		t.Fatalf("caps after a form without them = %d, %d; want them kept", b, s)
	}
	for _, tc := range []struct{ book, school, invalid string }{
		{"5001", "", "settings-max-copies-book"},
		{"", "0", "settings-max-copies-school"},
		{"", "1000001", "settings-max-copies-school"},
	} {
		rec := f.do(&f.librarian, http.MethodPost, "/library/maple.example.org/settings", form(tc.book, tc.school))
		if rec.Code != http.StatusUnprocessableEntity {
			t.Fatalf("caps %q, %q: %d, want 422", tc.book, tc.school, rec.Code)
		}
		if attr(byID(parse(t, rec.Body.String()), tc.invalid), "aria-invalid") != "true" {
			t.Errorf("caps %q, %q: %s is not marked invalid", tc.book, tc.school, tc.invalid)
		}
	}
	if b, s := caps(); b != 40 || s != 900 {
		t.Fatalf("caps after a refused form = %d, %d; want them unchanged", b, s)
	}
}

// TestCalendarFormSavesAndRefuses saves a school's calendar from its page
// (closed weekdays ticked, closures one a line, term ends in a list), shows
// a refused one with the problem under the box and the line it is on, and
// saves nothing then; students cannot open the page.
func TestCalendarFormSavesAndRefuses(t *testing.T) {
	f := newFixture(t)
	ctx := user.WithPrincipal(context.Background(), user.PrincipalOf(f.librarian))
	const path = "/library/maple.example.org/calendar"
	calendar := func() library.Calendar {
		s, err := f.lib.Schools.Calendar(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		return s.Calendar
	}
	rec := f.do(&f.librarian, http.MethodPost, path, url.Values{
		"closed_weekdays": {"sunday", "saturday"},
		"closures":        {"2026-12-21 2027-01-03 Winter break\r\n\r\n2027-02-15 Staff day\n2027-04-01 to 2027-04-05"},
		"term_ends":       {"2027-03-26, 2026-12-18"},
	})
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("save the calendar: %d %s", rec.Code, rec.Body)
	}
	want := library.Calendar{
		ClosedWeekdays: []time.Weekday{time.Saturday, time.Sunday},
		Closures: []library.Closure{{From: "2026-12-21", To: "2027-01-03", Name: "Winter break"}, {From: "2027-02-15", To: "2027-02-15", Name: "Staff day"},
			{From: "2027-04-01", To: "2027-04-05"}},
		TermEnds: []string{"2026-12-18", "2027-03-26"},
	}
	if got := calendar(); !reflect.DeepEqual(got, want) {
		t.Fatalf("saved calendar = %+v, want %+v", got, want)
	}
	// The page shows it back as it reads it.
	doc := parse(t, f.do(&f.librarian, http.MethodGet, path, nil).Body.String())
	if !hasAttr(byID(doc, "calendar-closed-saturday"), "checked") || hasAttr(byID(doc, "calendar-closed-friday"), "checked") {
		t.Errorf("the closed days are not the ones ticked")
	}
	if got := textOf(byID(doc, "calendar-closures")); !strings.Contains(got, "2027-02-15 2027-02-15 Staff day") {
		t.Errorf("closures box = %q", got)
	}

	for _, tc := range []struct {
		name    string
		form    url.Values
		invalid string
		says    string
	}{
		{"a closure ending before it starts", url.Values{"closures": {"2026-12-21 2027-01-03\n2027-02-15 2027-02-10 Oops"}}, "calendar-closures", "line 2"},
		{"a term end that is no date", url.Values{"term_ends": {"2026-12-18 18.12.2026"}}, "calendar-term-ends", "18.12.2026"},
		{"every day closed", url.Values{"closed_weekdays": library.WeekdayNames()}, "calendar-weekdays-error", "open"},
	} {
		rec := f.do(&f.librarian, http.MethodPost, path, tc.form)
		if rec.Code != http.StatusUnprocessableEntity {
			t.Fatalf("%s: %d, want 422", tc.name, rec.Code)
		}
		doc := parse(t, rec.Body.String())
		el := byID(doc, tc.invalid)
		if el == nil || (attr(el, "aria-invalid") != "true" && !strings.HasSuffix(tc.invalid, "-error")) {
			t.Errorf("%s: #%s is not marked invalid", tc.name, tc.invalid)
		}
		if !strings.Contains(rec.Body.String(), tc.says) {
			t.Errorf("%s: the page does not say %q", tc.name, tc.says)
		}
		if got := calendar(); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: a refused form changed the calendar: %+v", tc.name, got)
		}
	}
	if rec := f.do(&f.student, http.MethodGet, path, nil); rec.Code != http.StatusForbidden {
		t.Errorf("a student opening the calendar: %d, want 403", rec.Code)
	}
	if rec := f.do(&f.staff, http.MethodPost, path, url.Values{"term_ends": {""}}); rec.Code != http.StatusForbidden {
		t.Errorf("staff saving the calendar: %d, want 403", rec.Code)
	}
	if got := calendar(); !reflect.DeepEqual(got, want) {
		t.Fatalf("refused callers changed the calendar: %+v", got)
	}
}

// TestSettingsFormSetsTimezone saves the school's time zone from the
// settings page and refuses an unknown one on the form.
func TestSettingsFormSetsTimezone(t *testing.T) {
	f := newFixture(t)
	ctx := user.WithPrincipal(context.Background(), user.PrincipalOf(f.librarian))
	const path = "/library/maple.example.org/settings"
	form := func(tz string) url.Values {
		return url.Values{"default_loan_days": {"14"}, "max_renewals": {"2"}, "renewal_days": {"7"}, "timezone": {tz}}
	}
	zone := func() string {
		s, err := f.lib.Schools.Settings(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		return s.Settings.Zone()
	}
	if got := attr(byID(parse(t, f.do(&f.librarian, http.MethodGet, path, nil).Body.String()), "settings-timezone"), "value"); got != "UTC" {
		t.Fatalf("the time zone field shows %q, want UTC", got)
	}
	if rec := f.do(&f.librarian, http.MethodPost, path, form("Asia/Tokyo")); rec.Code != http.StatusSeeOther || zone() != "Asia/Tokyo" {
		t.Fatalf("save Asia/Tokyo: %d, zone %s", rec.Code, zone())
	}
	rec := f.do(&f.librarian, http.MethodPost, path, form("Mars/Olympus_Mons"))
	if rec.Code != http.StatusUnprocessableEntity || attr(byID(parse(t, rec.Body.String()), "settings-timezone"), "aria-invalid") != "true" {
		t.Fatalf("an unknown zone: %d, want 422 with the field marked", rec.Code)
	}
	if zone() != "Asia/Tokyo" {
		t.Fatalf("a refused zone changed it to %s", zone())
	}
	if rec := f.do(&f.librarian, http.MethodPost, path, form("")); rec.Code != http.StatusSeeOther || zone() != "Asia/Tokyo" {
		t.Fatalf("a blank zone: %d, zone %s; want it kept", rec.Code, zone())
	}
}

// TestBooksPageLinksEveryLabelPage checks that a book with more copies than
// one label PDF holds gets a link per page.
func TestBooksPageLinksEveryLabelPage(t *testing.T) {
	f := newFixture(t)
	ctx := user.WithPrincipal(context.Background(), user.PrincipalOf(f.librarian))
	b, _, err := f.lib.Holdings.AddBook(ctx, "", library.BookDraft{Title: "Zebra Many Copies", Author: "Ann Author", Copies: collection.DefaultLabelsPerPage + 5})
	if err != nil {
		t.Fatal(err)
	}
	rec := f.do(&f.librarian, http.MethodGet, "/library/maple.example.org/books?search=zebra", nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("books page: %d", rec.Code)
	}
	links := byTestID(parse(t, rec.Body.String()), "labels-link")
	if len(links) != 2 {
		t.Fatalf("%d label links, want 2", len(links))
	}
	if href := attr(links[1], "href"); href != "/api/library/copies/labels?book_id="+b.ID+"&page=2" {
		t.Fatalf("second link %q", href)
	}
}

// renderStreaming writes what content writes where the marker stands, and
// a page without the marker once is a plain 500, with nothing streamed.
func TestRenderStreaming(t *testing.T) {
	f := newFixture(t)
	v := holdingsView{Format: "csv", Report: &library.ImportReport{}, Content: "markerabc123", CanImport: true}
	v.base = base{Title: "Holdings"}
	streamed := func(w io.Writer) error { _, err := io.WriteString(w, "U0VDUkVU+/="); return err }
	rec := httptest.NewRecorder()
	f.app.renderStreaming(rec, httptest.NewRequest(http.MethodGet, "/", nil), http.StatusOK, "holdings", v, "markerabc123", streamed)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `name="content" value="U0VDUkVU+/="`) || strings.Contains(rec.Body.String(), "markerabc123") {
		t.Fatalf("streamed page: %d\n%s", rec.Code, rec.Body.String())
	}
	rec = httptest.NewRecorder()
	f.app.renderStreaming(rec, httptest.NewRequest(http.MethodGet, "/", nil), http.StatusOK, "holdings", v, "notinthepage", streamed)
	if rec.Code != 500 || strings.Contains(rec.Body.String(), "U0VDUkVU") {
		t.Fatalf("a page without its marker: %d\n%s", rec.Code, rec.Body.String())
	}
}
