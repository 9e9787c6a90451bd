package test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// The librarian's web app, end to end: a browser is played by an
// http.Client with a cookie jar that does not follow redirects (so each
// 303 is seen), sending the Origin a browser sends with a form post.

const demoDomain = "maplegrove.example.org"

type browser struct {
	t      *testing.T
	base   string
	client *http.Client
}

func newBrowser(t *testing.T, s *service) *browser {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &browser{t: t, base: s.URL, client: &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// page is one answer of the service to the browser.
type page struct {
	Status   int
	Location string
	Body     string
	Header   http.Header
	doc      *html.Node
}

func (b *browser) do(method, path string, form url.Values, headers map[string]string) page {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.base+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	p := page{Status: resp.StatusCode, Location: resp.Header.Get("Location"), Body: string(raw), Header: resp.Header}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		if p.doc, err = html.Parse(strings.NewReader(p.Body)); err != nil {
			b.t.Fatal(err)
		}
	}
	return p
}

func (b *browser) get(path string) page {
	b.t.Helper()
	return b.do(http.MethodGet, path, nil, nil)
}

// submit posts a form the way a browser does from one of the service's own
// pages: with the service's origin.
func (b *browser) submit(path string, form url.Values) page {
	b.t.Helper()
	return b.do(http.MethodPost, path, form, map[string]string{"Origin": b.base})
}

// follow posts a form and loads the page it redirects to (Post/Redirect/Get).
func (b *browser) follow(path string, form url.Values) page {
	b.t.Helper()
	p := b.submit(path, form)
	if p.Status != http.StatusSeeOther {
		b.t.Fatalf("POST %s: %d, want 303\n%s", path, p.Status, p.Body)
	}
	return b.get(p.Location)
}

func (b *browser) signIn(email, password string) page {
	b.t.Helper()
	return b.submit("/api/auth/login", url.Values{"email": {email}, "password": {password}})
}

// apiJSON reads a JSON route with the browser's cookie session.
func (b *browser) apiJSON(path string, v any) int {
	b.t.Helper()
	p := b.do(http.MethodGet, path, nil, map[string]string{"Accept": "application/json"})
	if p.Status == 200 {
		if err := json.Unmarshal([]byte(p.Body), v); err != nil {
			b.t.Fatalf("%s: %v: %s", path, err, p.Body)
		}
	}
	return p.Status
}

// ----- reading pages -----

func (p page) byID(id string) *html.Node {
	var found *html.Node
	walkHTML(p.doc, func(n *html.Node) {
		if found == nil && n.Type == html.ElementNode && htmlAttr(n, "id") == id {
			found = n
		}
	})
	return found
}

func (p page) byTestID(id string) []*html.Node {
	var out []*html.Node
	walkHTML(p.doc, func(n *html.Node) {
		if n.Type == html.ElementNode && htmlAttr(n, "data-testid") == id {
			out = append(out, n)
		}
	})
	return out
}

// text is the visible text of the element with id, or "" without one.
func (p page) text(id string) string { return htmlText(p.byID(id)) }

func walkHTML(n *html.Node, fn func(*html.Node)) {
	if n == nil {
		return
	}
	fn(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walkHTML(c, fn)
	}
}

func htmlAttr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func htmlText(n *html.Node) string {
	var b strings.Builder
	walkHTML(n, func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data + " ")
		}
	})
	return strings.Join(strings.Fields(b.String()), " ")
}

// loanRows maps the desk's loan rows by copy code to their status.
func (p page) loanRows(testID string) map[string]string {
	out := map[string]string{}
	for _, n := range p.byTestID(testID) {
		out[htmlAttr(n, "data-copy-code")] = htmlAttr(n, "data-status")
	}
	return out
}

var copyCodePattern = regexp.MustCompile(`\b[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]\b`)

type apiLoans struct {
	Loans []struct {
		ID       string `json:"id"`
		CopyCode string `json:"copy_code"`
		Renewals int    `json:"renewals"`
		Status   string `json:"status"`
	} `json:"loans"`
}

func (l apiLoans) byCode(code string) (int, bool) {
	for i, x := range l.Loans {
		if x.CopyCode == code {
			return i, true
		}
	}
	return 0, false
}

// ----- tests -----

func TestWebDeskCheckOutRenewReturn(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	b := newBrowser(t, s)
	desk := "/library/" + demoDomain

	// Anonymous: the school's page sends the browser to the sign-in form.
	if p := b.get(desk); p.Status != http.StatusSeeOther || p.Location != "/library" {
		t.Fatalf("anonymous desk: %d %q, want 303 to /library", p.Status, p.Location)
	}
	signin := b.get("/library")
	if signin.Status != 200 || signin.byID("signin-form") == nil || htmlAttr(signin.byID("signin-form"), "action") != "/api/auth/login" {
		t.Fatalf("sign-in page: %d\n%s", signin.Status, signin.Body)
	}
	// Form posts must carry the origin: no-referrer would make browsers send "Origin: null".
	if rp := signin.Header.Get("Referrer-Policy"); rp != "same-origin" {
		t.Errorf("sign-in page Referrer-Policy = %q, want same-origin", rp)
	}
	if csp := signin.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("sign-in page CSP = %q", csp)
	}

	// Sign in through the form: 303 to the school's page, with the cookies.
	p := b.signIn(demoLibrarian, demoPassword)
	if p.Status != http.StatusSeeOther || p.Location != desk {
		t.Fatalf("form sign-in: %d %q, want 303 to %s\n%s", p.Status, p.Location, desk, p.Body)
	}
	if p := b.get("/library"); p.Status != http.StatusSeeOther || p.Location != desk {
		t.Fatalf("signed-in /library: %d %q, want 303 to %s", p.Status, p.Location, desk)
	}
	home := b.get(desk)
	if home.Status != 200 || home.byID("checkout-form") == nil {
		t.Fatalf("desk: %d\n%s", home.Status, home.Body)
	}
	var before apiLoans
	if st := b.apiJSON("/api/library/loans", &before); st != 200 || len(before.Loans) != 1 {
		t.Fatalf("GET /api/library/loans with the cookie: %d %+v", st, before)
	}
	demoCode := before.Loans[0].CopyCode
	if rows := home.loanRows("loan-row"); len(rows) != 1 || rows[demoCode] != "active" {
		t.Fatalf("desk loan rows = %v, want the demo loan %s", rows, demoCode)
	}
	if !strings.Contains(home.text("loans-table"), "The Ember Egg") || !strings.Contains(home.text("loans-table"), "Theo Student") {
		t.Fatalf("desk table lacks the demo loan's book or student: %q", home.text("loans-table"))
	}
	if home.text("count-active") != "1" || home.text("count-overdue") != "0" {
		t.Fatalf("counts: active %q overdue %q", home.text("count-active"), home.text("count-overdue"))
	}
	if htmlAttr(home.byID("checkout-due"), "value") == "" {
		t.Fatal("due date not prefilled from the settings")
	}

	// A new book with two copies, through the books page.
	books := b.follow(desk+"/books", url.Values{"title": {"Web Desk Atlas"}, "author": {"Ana Map"}, "copies": {"2"}})
	codes := copyCodePattern.FindAllString(books.text("flash"), -1)
	if len(codes) != 2 {
		t.Fatalf("add-book flash %q, want two copy codes", books.text("flash"))
	}
	code := codes[0]

	// Check out by code to the student typed by name: 303, then the desk.
	p = b.submit(desk+"/checkout", url.Values{"code": {strings.ToLower(code)}, "student": {"theo"}, "due_at": {htmlAttr(home.byID("checkout-due"), "value")}})
	if p.Status != http.StatusSeeOther || p.Location != desk {
		t.Fatalf("check-out: %d %q\n%s", p.Status, p.Location, p.Body)
	}
	home = b.get(desk)
	if kind := htmlAttr(home.byID("flash"), "data-kind"); kind != "success" || !strings.Contains(home.text("flash"), "Checked out") {
		t.Fatalf("after check-out flash = %s %q", kind, home.text("flash"))
	}
	if _, ok := home.byTestIDAttr("loan-row", "data-copy-code", code); !ok {
		t.Fatalf("the new loan of %s is not on the desk: %v", code, home.loanRows("loan-row"))
	}
	if !hasHTMLAttr(home.byID("checkout-code"), "autofocus") {
		t.Error("focus is not back on the check-out code field")
	}
	var after apiLoans
	b.apiJSON("/api/library/loans", &after)
	if _, ok := after.byCode(code); !ok {
		t.Fatalf("GET /api/library/loans lacks the new loan of %s: %+v", code, after)
	}
	// The flash is shown once.
	if again := b.get(desk); again.byID("flash") != nil {
		t.Fatalf("flash shown twice: %q", again.text("flash"))
	}

	// Lending the same copy again is refused with a message, nothing changes.
	home = b.follow(desk+"/checkout", url.Values{"code": {code}, "student": {"theo"}})
	if htmlAttr(home.byID("flash"), "role") != "alert" || !strings.Contains(home.text("flash"), "already on loan") {
		t.Fatalf("second check-out flash: %q", home.text("flash"))
	}
	if htmlAttr(home.byID("checkout-code"), "value") != code {
		t.Error("the refused check-out's code is not kept in the form")
	}

	// Cross-site form posts (no Origin, a foreign Origin) are refused and change nothing.
	for _, headers := range []map[string]string{nil, {"Origin": "https://evil.example"}, {"Origin": "null"}, {"Referer": "https://evil.example/page"}} {
		p := b.do(http.MethodPost, desk+"/return", url.Values{"code": {code}}, headers)
		if p.Status != http.StatusForbidden {
			t.Fatalf("return with %v: %d, want 403\n%s", headers, p.Status, p.Body)
		}
		if p.byID("error-title") == nil {
			t.Errorf("CSRF refusal is not an HTML page: %s", p.Body)
		}
	}
	var still apiLoans
	b.apiJSON("/api/library/loans", &still)
	if _, ok := still.byCode(code); !ok {
		t.Fatal("a refused cross-site return ended the loan")
	}

	// Renew by scanning the code.
	home = b.follow(desk+"/renew", url.Values{"code": {code}})
	if !strings.Contains(home.text("flash"), "Renewed") || !hasHTMLAttr(home.byID("renew-code"), "autofocus") {
		t.Fatalf("renew flash %q", home.text("flash"))
	}
	var renewed apiLoans
	b.apiJSON("/api/library/loans", &renewed)
	if i, ok := renewed.byCode(code); !ok || renewed.Loans[i].Renewals != 1 {
		t.Fatalf("after renew: %+v", renewed)
	}

	// Return by scanning the code: the copy is available again.
	home = b.follow(desk+"/return", url.Values{"code": {code}})
	if !strings.Contains(home.text("flash"), "Returned") || !hasHTMLAttr(home.byID("return-code"), "autofocus") {
		t.Fatalf("return flash %q", home.text("flash"))
	}
	if _, ok := home.byTestIDAttr("loan-row", "data-copy-code", code); ok {
		t.Fatal("the returned loan is still on the desk")
	}
	var returned apiLoans
	b.apiJSON("/api/library/loans", &returned)
	if _, ok := returned.byCode(code); ok {
		t.Fatal("GET /api/library/loans still lists the returned loan")
	}
	cat := b.get(desk + "/catalog?search=web+desk")
	if rows := cat.byTestID("catalog-row"); len(rows) != 1 || htmlAttr(rows[0], "data-available") != "2" || htmlAttr(rows[0], "data-total") != "2" {
		t.Fatalf("catalog after return: %s", cat.text("catalog-table"))
	}
	// A second scan of the returned copy is harmless and says so.
	home = b.follow(desk+"/return", url.Values{"code": {code}})
	if htmlAttr(home.byID("flash"), "data-kind") != "info" || !strings.Contains(home.text("flash"), "not on loan") {
		t.Fatalf("double return flash: %q", home.text("flash"))
	}
	// An unknown code is an error at the desk, with the focus back on the field.
	home = b.follow(desk+"/checkout", url.Values{"code": {"0000-0000-0"}, "student": {"theo"}})
	if htmlAttr(home.byID("flash"), "role") != "alert" {
		t.Fatalf("unknown code flash: %q", home.text("flash"))
	}

	// Another school's domain and an unknown domain: the same 404 page.
	admin := s.login(demoAdmin, demoPassword).Access
	if r := s.do(req{Method: http.MethodPost, Path: "/api/admin/schools", Token: admin, Body: `{"name":"Riverside School","domain":"riverside.example.org"}`}); r.Status != 201 {
		t.Fatalf("create school B: %d %s", r.Status, r.Body)
	}
	other, unknown := b.get("/library/riverside.example.org"), b.get("/library/nowhere.example.org")
	if other.Status != 404 || unknown.Status != 404 {
		t.Fatalf("other school %d, unknown school %d; want 404 for both", other.Status, unknown.Status)
	}
	if other.text("main") != unknown.text("main") {
		t.Fatalf("other school's page %q differs from unknown %q", other.text("main"), unknown.text("main"))
	}
	if p := b.get("/library/riverside.example.org/books"); p.Status != 404 {
		t.Fatalf("other school's books: %d", p.Status)
	}

	// Signing out ends on the sign-in page; the desk is closed afterwards.
	p = b.submit("/api/auth/logout", url.Values{"signout": {"1"}})
	if p.Status != http.StatusSeeOther || p.Location != "/library" {
		t.Fatalf("sign-out: %d %q", p.Status, p.Location)
	}
	if p := b.get(desk); p.Status != http.StatusSeeOther || p.Location != "/library" {
		t.Fatalf("desk after sign-out: %d %q", p.Status, p.Location)
	}
}

func (p page) byTestIDAttr(testID, key, value string) (*html.Node, bool) {
	for _, n := range p.byTestID(testID) {
		if htmlAttr(n, key) == value {
			return n, true
		}
	}
	return nil, false
}

func hasHTMLAttr(n *html.Node, key string) bool {
	if n == nil {
		return false
	}
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

func TestWebSignInFailuresAndStudent(t *testing.T) {
	s := startService(t, testEnv(t, nil))

	// An unknown email and a wrong password end the same way: no oracle.
	var outcomes []string
	for _, creds := range [][2]string{{"nobody@maplegrove.example.org", demoPassword}, {demoLibrarian, "wrong-password-1"}} {
		b := newBrowser(t, s)
		p := b.signIn(creds[0], creds[1])
		if p.Status != http.StatusSeeOther || p.Location != "/library?failed=1" {
			t.Fatalf("failed sign-in %s: %d %q, want 303 to /library?failed=1", creds[0], p.Status, p.Location)
		}
		if c := p.Header.Values("Set-Cookie"); len(c) != 0 {
			t.Fatalf("failed sign-in set %d cookies", len(c))
		}
		shown := b.get(p.Location)
		if htmlAttr(shown.byID("signin-error"), "role") != "alert" {
			t.Fatalf("failure not announced: %s", shown.Body)
		}
		outcomes = append(outcomes, p.Location+" "+shown.text("main"))
	}
	if outcomes[0] != outcomes[1] {
		t.Fatalf("unknown email and wrong password differ:\n%s\n%s", outcomes[0], outcomes[1])
	}
	// Login CSRF: a form sign-in from another site (or without an origin) is refused.
	b := newBrowser(t, s)
	for _, headers := range []map[string]string{nil, {"Origin": "https://evil.example"}} {
		p := b.do(http.MethodPost, "/api/auth/login", url.Values{"email": {demoLibrarian}, "password": {demoPassword}}, headers)
		if p.Status != http.StatusForbidden || len(p.Header.Values("Set-Cookie")) != 0 {
			t.Fatalf("cross-site form sign-in with %v: %d with %d cookies, want 403 and none", headers, p.Status, len(p.Header.Values("Set-Cookie")))
		}
	}
	// The JSON sign-in still answers JSON.
	if sess := s.login(demoLibrarian, demoPassword); sess.Access == "" {
		t.Fatal("JSON sign-in gave no token")
	}

	// A second student of the school borrows a book; the demo student must not see it.
	lib := s.login(demoLibrarian, demoPassword).Access
	r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: lib, Body: `{"name":"Other Pupil","student_number":"OP-1"}`})
	if r.Status != 201 {
		t.Fatalf("add student: %d %s", r.Status, r.Body)
	}
	otherID := r.json(t)["student"].(map[string]any)["student_id"].(string)
	r = s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: lib, Body: `{"title":"Secret Diary","author":"X","copies":1}`})
	if r.Status != 201 {
		t.Fatalf("add book: %d %s", r.Status, r.Body)
	}
	bk := r.json(t)
	bookID := bk["book"].(map[string]any)["id"].(string)
	copy0 := bk["copies"].([]any)[0].(map[string]any)
	r = s.do(req{Method: http.MethodPost, Path: "/api/library/loans", Token: lib,
		Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q}`, bookID, copy0["id"], otherID)})
	if r.Status != 201 {
		t.Fatalf("loan to the other student: %d %s", r.Status, r.Body)
	}

	student := newBrowser(t, s)
	p := student.signIn(demoStudent, demoPassword)
	desk := "/library/" + demoDomain
	if p.Status != http.StatusSeeOther || p.Location != desk {
		t.Fatalf("student sign-in: %d %q", p.Status, p.Location)
	}
	mine := student.get(desk)
	rows := mine.loanRows("my-loan-row")
	if mine.Status != 200 || len(rows) != 1 || rows[copy0["code"].(string)] != "" {
		t.Fatalf("student's loans = %v, want only the demo loan", rows)
	}
	if strings.Contains(mine.Body, "Secret Diary") || strings.Contains(mine.Body, "Other Pupil") {
		t.Fatal("the student sees another student's loan")
	}
	if !strings.Contains(mine.text("my-loans-table"), "The Ember Egg") || mine.byID("checkout-form") != nil {
		t.Fatalf("student page: %q", mine.text("main"))
	}
	// The staff pages and forms are closed to students, and change nothing.
	if p := student.get(desk + "/students"); p.Status != http.StatusForbidden {
		t.Fatalf("student opens the students page: %d", p.Status)
	}
	if p := student.submit(desk+"/return", url.Values{"code": {copy0["code"].(string)}}); p.Status != http.StatusForbidden {
		t.Fatalf("student posts a return: %d", p.Status)
	}
	var open apiLoans
	if r := s.do(req{Path: "/api/library/loans", Token: lib}); r.Status == 200 {
		_ = json.Unmarshal(r.Body, &open)
	}
	if _, ok := open.byCode(copy0["code"].(string)); !ok {
		t.Fatal("a student's refused return ended the loan")
	}
}

func TestWebCatalogAndStudentImport(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	anon := newBrowser(t, s)
	desk := "/library/" + demoDomain

	// The public catalog: no sign-in, availability counts per title.
	cat := anon.get(desk + "/catalog")
	if cat.Status != 200 {
		t.Fatalf("public catalog: %d", cat.Status)
	}
	if len(cat.byTestID("catalog-row")) != 3 {
		t.Fatalf("catalog table: %q", cat.text("catalog-table"))
	}
	// The demo school: three titles, one copy of The Ember Egg on loan.
	want := map[string]string{"The Ember Egg": "2 of 3 available", "Where Is Nibbles?": "2 of 2 available", "The Amazing Journey of a Water Drop": "4 of 4 available"}
	// Each of them is in the demo reading app too, by its ISBN.
	for _, row := range cat.byTestID("catalog-row") {
		var title, availability, inApp string
		walkHTML(row, func(n *html.Node) {
			switch htmlAttr(n, "data-testid") {
			case "catalog-title":
				title = htmlText(n)
			case "catalog-availability":
				availability = htmlText(n)
			case "catalog-in-app":
				inApp = htmlText(n)
			}
		})
		if want[title] != availability || inApp != "Also readable in the reading app" {
			t.Errorf("%q: %q and %q, want %q and the app", title, availability, inApp, want[title])
		}
	}
	search := anon.get(desk + "/catalog?search=nibb")
	if rows := search.byTestID("catalog-row"); len(rows) != 1 || !strings.Contains(htmlText(rows[0]), "Where Is Nibbles?") {
		t.Fatalf("search nibb: %q", search.text("catalog-table"))
	}
	if p := anon.get("/library/nowhere.example.org/catalog"); p.Status != 404 || p.byID("error-title") == nil {
		t.Fatalf("unknown school's catalog: %d", p.Status)
	}

	// CSV import: a file with bad lines is refused whole, every line named.
	b := newBrowser(t, s)
	if p := b.signIn(demoLibrarian, demoPassword); p.Status != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", p.Status)
	}
	var before struct {
		Students []map[string]any `json:"students"`
	}
	b.apiJSON("/api/library/students", &before)
	bad := "name,email,student_number\nAda Pupil,ada@example.org,P-1\n,nobody@example.org,P-2\nBen Pupil,not-an-email,P-3\n"
	p := b.submit(desk+"/students/import", url.Values{"csv": {bad}})
	if p.Status != http.StatusUnprocessableEntity {
		t.Fatalf("bad CSV: %d, want 422\n%s", p.Status, p.Body)
	}
	if htmlAttr(p.byID("import-errors"), "role") != "alert" {
		t.Fatal("the import errors are not announced")
	}
	lines := map[string]string{}
	for _, n := range p.byTestID("import-error") {
		lines[htmlAttr(n, "data-line")] = htmlText(n)
	}
	if len(lines) != 2 || !strings.Contains(lines["3"], "name") || !strings.Contains(lines["4"], "email") {
		t.Fatalf("import errors by line = %v, want lines 3 (name) and 4 (email)", lines)
	}
	if got := htmlText(p.byID("import-csv")); !strings.Contains(got, "Ben Pupil") {
		t.Fatalf("the refused CSV is not kept in the box: %q", got)
	}
	var after struct {
		Students []map[string]any `json:"students"`
	}
	b.apiJSON("/api/library/students", &after)
	if len(after.Students) != len(before.Students) {
		t.Fatalf("a refused import added students: %d -> %d", len(before.Students), len(after.Students))
	}
	// The same file, fixed, imports every student.
	good := "name,email,student_number\nAda Pupil,ada@example.org,P-1\nBen Pupil,ben@example.org,P-3\n"
	listed := b.follow(desk+"/students/import", url.Values{"csv": {good}})
	if !strings.Contains(listed.text("flash"), "Imported 2 students") {
		t.Fatalf("import flash: %q", listed.text("flash"))
	}
	if !strings.Contains(listed.text("students-table"), "Ada Pupil") {
		t.Fatal("imported student not listed")
	}
	// A student number picks the student at once at the desk.
	r := s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: s.login(demoLibrarian, demoPassword).Access, Body: `{"title":"Import Check","author":"Y","copies":1}`})
	code := r.json(t)["copies"].([]any)[0].(map[string]any)["code"].(string)
	home := b.follow(desk+"/checkout", url.Values{"code": {code}, "student": {"p-3"}})
	if !strings.Contains(home.text("flash"), "to Ben Pupil") {
		t.Fatalf("check-out by student number: %q", home.text("flash"))
	}
}

// An invited staff member sets a password on /library/invite and signs in.
// The code is checked by the same use case as POST /api/auth/accept-invite,
// is never written back into the page, and works once.
func TestWebAcceptInvite(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	admin := s.login(demoAdmin, demoPassword).Access
	school := s.do(req{Path: "/api/library/catalog/maplegrove.example.org?limit=1"}).json(t)["school"].(map[string]any)["id"].(string)
	r := s.do(req{Method: http.MethodPost, Path: "/api/library/invite", Token: admin,
		Body: fmt.Sprintf(`{"email":"desk.helper@maplegrove.example.org","school_id":%q,"role":"staff"}`, school)})
	if r.Status != 201 {
		t.Fatalf("invite: %d %s", r.Status, r.Body)
	}
	token := r.json(t)["invite_token"].(string)

	b := newBrowser(t, s)
	if p := b.get("/library/invite"); p.Status != 200 || p.byID("invite-accept-token") == nil || p.byID("invite-accept-password") == nil {
		t.Fatalf("GET /library/invite: %d", p.Status)
	}
	if p := b.get("/library"); p.byID("invite-accept-link") == nil {
		t.Fatal("the sign-in page does not link to the invitation page")
	}
	const password = "tidy-shelves-and-ink"
	// Passwords that differ: refused, nothing redeemed, the code not echoed.
	p := b.submit("/library/invite", url.Values{"token": {token}, "password": {password}, "password_again": {password + "x"}})
	if p.Status != 422 || p.byID("invite-accept-again-error") == nil || strings.Contains(p.Body, token) {
		t.Fatalf("different passwords: %d, again-error %v, code echoed %v", p.Status, p.byID("invite-accept-again-error") != nil, strings.Contains(p.Body, token))
	}
	// A wrong code: refused with the code field marked.
	p = b.submit("/library/invite", url.Values{"token": {"not-a-real-invitation-code"}, "password": {password}, "password_again": {password}})
	if p.Status < 400 || p.byID("invite-accept-token-error") == nil {
		t.Fatalf("wrong code: %d %s", p.Status, p.text("invite-accept-error"))
	}
	// From another origin: the CSRF rule refuses it and the code stays unused.
	if p := b.do(http.MethodPost, "/library/invite", url.Values{"token": {token}, "password": {password}, "password_again": {password}},
		map[string]string{"Origin": "https://evil.example"}); p.Status != 403 {
		t.Fatalf("cross-origin accept: %d, want 403", p.Status)
	}
	// The right code: 303 to sign-in, which says the password is set.
	p = b.submit("/library/invite", url.Values{"token": {token}, "password": {password}, "password_again": {password}})
	if p.Status != http.StatusSeeOther || p.Location != "/library?accepted=1" {
		t.Fatalf("accept: %d Location %q\n%s", p.Status, p.Location, p.text("invite-accept-error"))
	}
	if notice := b.get(p.Location).text("signin-notice"); !strings.Contains(notice, "password is set") {
		t.Fatalf("sign-in notice: %q", notice)
	}
	if p := b.signIn("desk.helper@maplegrove.example.org", password); p.Status != http.StatusSeeOther || p.Location != "/library/maplegrove.example.org" {
		t.Fatalf("sign in with the new password: %d %q", p.Status, p.Location)
	}
	// A second use of the code is refused.
	p = newBrowser(t, s).submit("/library/invite", url.Values{"token": {token}, "password": {"another-pass-123"}, "password_again": {"another-pass-123"}})
	if p.Status < 400 || p.byID("invite-accept-token-error") == nil {
		t.Fatalf("second use of the code: %d", p.Status)
	}
}

// The staff's books and students pages come 50 at a time, with a search
// (every word begins a word of the title or author, or of the student's
// name, email or number) and links to the pages before and after.
func TestWebBooksAndStudentsArePaged(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	b := newBrowser(t, s)
	if p := b.signIn(demoLibrarian, demoPassword); p.Status != http.StatusSeeOther {
		t.Fatalf("sign in: %d", p.Status)
	}
	lib := s.login(demoLibrarian, demoPassword).Access
	for i := range 60 {
		if r := s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: lib,
			Body: fmt.Sprintf(`{"title":"Shelf Filler %02d","author":"Émile Pager","copies":0}`, i)}); r.Status != 201 {
			t.Fatalf("book %d: %d %s", i, r.Status, r.Body)
		}
		if r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: lib,
			Body: fmt.Sprintf(`{"name":"Paged Pupil %02d","student_number":"PG-%02d"}`, i, i)}); r.Status != 201 {
			t.Fatalf("student %d: %d %s", i, r.Status, r.Body)
		}
	}
	desk := "/library/" + demoDomain
	books := b.get(desk + "/books")
	total := 60 + 3 // the demo school's three titles
	if rows := books.byTestID("book-row"); books.Status != 200 || len(rows) != 50 || books.byID("books-next") == nil || books.byID("books-prev") != nil {
		t.Fatalf("books page 1: %d, %d rows, want 50 and a link to page 2 only", books.Status, len(rows))
	}
	if !strings.Contains(books.text("books-count"), fmt.Sprintf("%d books", total)) {
		t.Errorf("books count: %q, want %d books", books.text("books-count"), total)
	}
	next := htmlAttr(books.byID("books-next"), "href")
	page2 := b.get(next)
	if rows := page2.byTestID("book-row"); len(rows) != total-50 || page2.byID("books-prev") == nil || page2.byID("books-next") != nil {
		t.Fatalf("books page 2 (%s): %d rows, want %d and a link back only", next, len(rows), total-50)
	}
	found := b.get(desk + "/books?search=" + url.QueryEscape("emile filler 0"))
	if rows := found.byTestID("book-row"); len(rows) != 10 || !strings.Contains(found.text("books-count"), "10 books match") {
		t.Fatalf("books search 'emile filler 0': %d rows, %q; want Shelf Filler 00..09", len(rows), found.text("books-count"))
	}

	students := b.get(desk + "/students")
	if rows := students.byTestID("student-row"); len(rows) != 50 || students.byID("students-next") == nil {
		t.Fatalf("students page 1: %d rows, want 50 and a next link", len(rows))
	}
	pg := b.get(desk + "/students?search=" + url.QueryEscape("PG-1"))
	if rows := pg.byTestID("student-row"); len(rows) != 10 || pg.byID("students-next") != nil {
		t.Fatalf("students search PG-1: %d rows, want PG-10..PG-19", len(rows))
	}
}

// The students page's "Unlock sign-in" form lifts a student's sign-in lock
// for a librarian. Staff see no such button and are refused if they post
// the form; a cross-site post is refused by the CSRF rule; neither unlocks.
func TestWebUnlockSignIn(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	student, err := s.App.Repos.Accounts.GetByEmail(context.Background(), demoStudent)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if r := s.do(req{Method: http.MethodPost, Path: "/api/auth/login", Body: loginBody(demoStudent, "wrong-password-1")}); r.Status != 401 {
			t.Fatalf("wrong password %d: %d %s", i+1, r.Status, r.Body)
		}
	}
	stillLocked := func(step string) {
		t.Helper()
		wantThrottled(t, step, s.do(req{Method: http.MethodPost, Path: "/api/auth/login", Body: loginBody(demoStudent, demoPassword)}))
	}
	stillLocked("the right password while locked")
	students := "/library/" + demoDomain + "/students"
	unlockPath := "/library/" + demoDomain + "/accounts/unlock"
	form := url.Values{"account_id": {student.ID}, "from": {"students"}, "search": {"Theo"}}

	staff := newBrowser(t, s)
	if p := staff.signIn("staff@maplegrove.example.org", demoPassword); p.Status != http.StatusSeeOther {
		t.Fatalf("staff sign-in: %d", p.Status)
	}
	if p := staff.get(students); p.Status != 200 || len(p.byTestID("unlock-button")) != 0 {
		t.Fatalf("the students page for staff: %d with %d unlock buttons, want 200 and none", p.Status, len(p.byTestID("unlock-button")))
	}
	if p := staff.submit(unlockPath, form); p.Status != http.StatusForbidden {
		t.Fatalf("staff posting the unlock form: %d, want 403", p.Status)
	}
	stillLocked("after the staff member's post")

	lib := newBrowser(t, s)
	if p := lib.signIn(demoLibrarian, demoPassword); p.Status != http.StatusSeeOther {
		t.Fatalf("librarian sign-in: %d", p.Status)
	}
	p := lib.get(students + "?search=Theo")
	if btn, ok := p.byTestIDAttr("unlock-button", "aria-describedby", "student-"+student.ID); !ok || htmlText(btn) != "Unlock sign-in" {
		t.Fatalf("the students page has no unlock button for the student:\n%s", p.Body)
	}
	for _, headers := range []map[string]string{nil, {"Origin": "https://evil.example"}} {
		if p := lib.do(http.MethodPost, unlockPath, form, headers); p.Status != http.StatusForbidden {
			t.Fatalf("cross-site unlock with %v: %d, want 403", headers, p.Status)
		}
	}
	stillLocked("after cross-site posts")

	p = lib.submit(unlockPath, form)
	if p.Status != http.StatusSeeOther || p.Location != students+"?search=Theo" {
		t.Fatalf("unlock: %d to %q, want 303 back to the search", p.Status, p.Location)
	}
	if shown := lib.get(p.Location); !strings.Contains(shown.text("flash"), "Sign-in unlocked for Theo Student") {
		t.Fatalf("after unlocking the page says %q", shown.text("flash"))
	}
	s.login(demoStudent, demoPassword)

	// An account the school does not have, or a librarian's: an error.
	librarian, err := s.App.Repos.Accounts.GetByEmail(context.Background(), demoLibrarian)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"00000000-0000-4000-8000-000000000000", librarian.ID} {
		p = lib.follow(unlockPath, url.Values{"account_id": {id}, "from": {"students"}})
		if !strings.Contains(htmlAttr(p.byID("flash"), "class"), "error") {
			t.Fatalf("a librarian unlocking account %s: flash %q (class %q), want an error", id, p.text("flash"), htmlAttr(p.byID("flash"), "class"))
		}
	}

	// An admin unlocks any account of the school from its accounts page.
	admin := newBrowser(t, s)
	if p := admin.signIn(demoAdmin, demoPassword); p.Status != http.StatusSeeOther {
		t.Fatalf("admin sign-in: %d", p.Status)
	}
	accounts := "/library/" + demoDomain + "/accounts"
	if _, ok := admin.get(accounts).byTestIDAttr("unlock-button", "aria-describedby", "account-"+librarian.ID); !ok {
		t.Fatal("the accounts page shows the admin no unlock button for the librarian")
	}
	p = admin.submit(unlockPath, url.Values{"account_id": {librarian.ID}, "from": {"accounts"}})
	if p.Status != http.StatusSeeOther || p.Location != accounts {
		t.Fatalf("the admin's unlock: %d to %q, want 303 back to the accounts page", p.Status, p.Location)
	}
	if shown := admin.get(p.Location); !strings.Contains(shown.text("flash"), "Sign-in unlocked for Lena Librarian") {
		t.Fatalf("after the admin's unlock the page says %q", shown.text("flash"))
	}
}
