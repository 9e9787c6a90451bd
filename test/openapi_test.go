package test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// Every operation of openapi.json is asked the questions any client can
// ask: without a token, with a token the policies refuse, with a broken or
// unknown query, with a malformed, unknown-field or wrongly typed body, with
// an unknown id. The harness checks each answer against the document, so a
// status or error body the document does not list fails here.
func TestOpenAPIDocumentsEveryGenericAnswer(t *testing.T) {
	api, err := loadAPIDocument()
	if err != nil {
		t.Fatal(err)
	}
	s := startService(t, testEnv(t, map[string]string{
		"LIBRARY_RATE_ANONYMOUS": "10000000-H", "LIBRARY_RATE_AUTHENTICATED": "10000000-H", "LIBRARY_RATE_PREMIUM": "10000000-H",
	}))
	admin := s.login(demoAdmin, demoPassword).Access
	student := s.login(demoStudent, demoPassword).Access
	reader := s.login(demoReader, demoPassword).Access

	type op struct{ method, path string }
	var ops []op
	for path, item := range api.doc.Paths.Map() {
		for method := range item.Operations() {
			ops = append(ops, op{method, path})
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].path+ops[i].method < ops[j].path+ops[j].method })
	param := regexp.MustCompile(`\{[a-z_]+\}`)
	fill := func(path, with string) string { return param.ReplaceAllString(path, with) }
	unknownID := uuid.NewString()
	big := `{"name":"` + strings.Repeat("x", 1<<20) + `"}`
	for _, o := range ops {
		// Probes that would end the probing accounts' sessions go without
		// a token only.
		destructive := (o.method == http.MethodDelete && o.path == "/v1/users/me") || o.path == "/api/auth/logout"
		path := fill(o.path, unknownID)
		if strings.Contains(o.path, "{domain}") {
			path = fill(o.path, "unknown.example.org")
		}
		s.do(req{Method: o.method, Path: path})
		s.do(req{Method: o.method, Path: path, Token: "not-a-token"})
		if destructive {
			continue
		}
		for _, tok := range []string{admin, student, reader} {
			s.do(req{Method: o.method, Path: path, Token: tok})
			s.do(req{Method: o.method, Path: path + "?%zz", Token: tok})
			s.do(req{Method: o.method, Path: path + "?zz=1", Token: tok})
		}
		if strings.Contains(o.path, "{") {
			s.do(req{Method: o.method, Path: fill(o.path, "not-an-id"), Token: admin})
		}
		if o.method == http.MethodGet {
			continue
		}
		for _, body := range []string{"{", "[]", "{}", `{"zz":1}`, `{"name":1,"email":true}`, big} {
			s.do(req{Method: o.method, Path: path, Token: admin, Body: body})
		}
		s.do(req{Method: o.method, Path: path, Token: admin, Body: "{}", Headers: map[string]string{"Content-Type": "text/plain"}})
	}
}

// An admin names the school on every school-scoped route; an unknown one is
// 404 school_not_found, and the document says so.
func TestOpenAPIAdminUnknownSchoolIsNotFound(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	admin := s.login(demoAdmin, demoPassword).Access
	school := uuid.NewString()
	book := uuid.NewString()
	for _, r := range []req{
		{Path: "/api/library/accounts?schoolId=" + school},
		{Method: http.MethodPost, Path: "/api/library/invite", Body: `{"email":"new.librarian@example.org","school_id":"` + school + `","password":"long-enough-pass-1"}`},
		{Method: http.MethodPost, Path: "/api/library/students", Body: `{"school_id":"` + school + `","name":"Nobody"}`},
		{Path: "/api/library/students?schoolId=" + school},
		{Method: http.MethodPost, Path: "/api/library/students/import?schoolId=" + school, Body: "name\nNobody\n", Headers: map[string]string{"Content-Type": "text/csv"}},
		{Method: http.MethodPost, Path: "/api/library/books", Body: `{"school_id":"` + school + `","title":"T","author":"A"}`},
		{Path: "/api/library/copies?code=ABC123&schoolId=" + school},
		{Path: "/api/library/copies/labels?book_id=" + book + "&schoolId=" + school},
		{Path: "/api/library/loans?schoolId=" + school},
		{Method: http.MethodPost, Path: "/api/library/loans", Body: `{"school_id":"` + school + `","book_id":"` + book + `","copy_id":"` + uuid.NewString() + `","student_id":"` + uuid.NewString() + `"}`},
		{Path: "/api/library/settings?schoolId=" + school},
		{Method: http.MethodPut, Path: "/api/library/settings?schoolId=" + school, Body: `{"default_loan_days":14,"max_renewals":2,"renewal_days":7,"allow_public_catalog":false}`},
		{Path: "/api/library/calendar?schoolId=" + school},
		{Method: http.MethodPut, Path: "/api/library/calendar?schoolId=" + school, Body: `{"closed_weekdays":[],"closures":[],"term_ends":[]}`},
	} {
		r.Token = admin
		got := s.do(r)
		if code, _ := got.apiError(t); got.Status != 404 || code != "school_not_found" {
			t.Errorf("%s %s: %d %s, want 404 school_not_found", r.Method, r.Path, got.Status, got.Body)
		}
	}
}

// A book created without a publication date stores none and answers null,
// never "" against format: date; "" is refused like any non-date.
func TestOpenAPIBookWithoutPublishedDate(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	admin := s.login(demoAdmin, demoPassword).Access
	const book = `{"title":"Undated Tales","author":"Ann Onymous","genre":"fiction","reading_level":"beginner","pages":3,
		"chapters":[{"title":"One","page_start":1,"page_end":3,"text":"Once upon a time."}]%s}`
	r := s.do(req{Method: http.MethodPost, Path: "/v1/books", Token: admin, Body: fmt.Sprintf(book, "")})
	if r.Status != 201 {
		t.Fatalf("POST /v1/books without published_date: %d %s", r.Status, r.Body)
	}
	created := r.json(t)
	if d, present := created["published_date"]; !present || d != nil {
		t.Fatalf("created book published_date = %#v, want null", d)
	}
	id := created["id"].(string)
	if d, present := s.do(req{Path: "/v1/books/" + id, Token: admin}).json(t)["published_date"]; !present || d != nil {
		t.Fatalf("GET published_date = %#v, want null", d)
	}
	stored, err := s.App.Repos.Books.Get(context.Background(), id)
	if err != nil || stored.PublishedDate != "" {
		t.Fatalf("stored book: date %q, %v; want none", stored.PublishedDate, err)
	}
	for _, bad := range []string{`,"published_date":""`, `,"published_date":null`, `,"published_date":"31/01/2020"`} {
		r := s.do(req{Method: http.MethodPost, Path: "/v1/books", Token: admin, Body: fmt.Sprintf(book, bad)})
		if code, details := r.apiError(t); r.Status != 422 || code != "validation_failed" || details["fields"].(map[string]any)["published_date"] == nil {
			t.Errorf("POST /v1/books with %s: %d %s, want 422 on published_date", bad, r.Status, r.Body)
		}
	}
}

// Inviting an address that has an account is 409 account_exists and
// changes nothing: the account keeps its role and school, and no invitation
// token comes back.
func TestOpenAPIInviteExistingEmailIsConflict(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	before, err := s.App.Repos.Accounts.GetByEmail(context.Background(), demoReader)
	if err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{
		fmt.Sprintf(`{"email":%q,"school_id":%q}`, strings.ToUpper(demoReader), w.schoolA),
		fmt.Sprintf(`{"email":%q,"school_id":%q,"password":"long-enough-pass-1","role":"staff"}`, demoReader, w.schoolA),
	} {
		r := s.do(req{Method: http.MethodPost, Path: "/api/library/invite", Token: w.admin, Body: body})
		if code, _ := r.apiError(t); r.Status != 409 || code != "account_exists" {
			t.Fatalf("invite an existing address: %d %s, want 409 account_exists", r.Status, r.Body)
		}
	}
	after, err := s.App.Repos.Accounts.GetByEmail(context.Background(), demoReader)
	if err != nil || after.Role != before.Role || after.SchoolID != before.SchoolID || !after.UpdatedAt.Equal(before.UpdatedAt) {
		t.Fatalf("the existing account changed: %+v → %+v (%v)", before, after, err)
	}
	// The reader still signs in with the old password.
	s.login(demoReader, demoPassword)
}

// recordingT collects what the document check reports.
type recordingT struct {
	testing.TB
	errors []string
}

func (r *recordingT) Helper() {}
func (r *recordingT) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// The check every harness request goes through fails a response the
// document does not describe: an undocumented status, an undocumented
// field, a missing required field, a wrong content type; a documented
// answer passes.
func TestOpenAPIHarnessRefusesUndocumentedAnswers(t *testing.T) {
	get := func(path string) *http.Request {
		hr, err := http.NewRequest(http.MethodGet, "http://127.0.0.1:1"+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		return hr
	}
	jsonCT := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	const book = `{"id":"bk_1","title":"T","author":"A","cover":"","genre":"fiction","reading_level":"beginner","pages":3,` +
		`"description":"","rating":4.5,"published_date":%s,"access":"free","isbn":"","language":"en","chapters":[],"at_your_school":[]}`
	for _, c := range []struct {
		name   string
		path   string
		status int
		header http.Header
		body   string
		ok     bool
	}{
		{"documented", "/healthz", 200, jsonCT, `{"status":"ok"}`, true},
		{"undocumented field", "/healthz", 200, jsonCT, `{"status":"ok","debug":true}`, false},
		{"missing field", "/healthz", 200, jsonCT, `{}`, false},
		{"undocumented status", "/healthz", 418, jsonCT, `{"status":"ok"}`, false},
		{"wrong content type", "/healthz", 200, http.Header{"Content-Type": {"text/plain"}}, `ok`, false},
		{"error envelope", "/v1/users/me", 401, jsonCT, `{"error":{"code":"unauthorized","message":"No.","details":{}}}`, true},
		{"error with an extra key", "/v1/users/me", 401, jsonCT, `{"error":{"code":"unauthorized","message":"No.","details":{}},"trace":"x"}`, false},
		{"nullable date", "/v1/books/bk_1", 200, jsonCT, fmt.Sprintf(book, `null`), true},
		{"date", "/v1/books/bk_1", 200, jsonCT, fmt.Sprintf(book, `"2020-02-29"`), true},
		{"empty date", "/v1/books/bk_1", 200, jsonCT, fmt.Sprintf(book, `""`), false},
		{"not a date", "/v1/books/bk_1", 200, jsonCT, fmt.Sprintf(book, `"2020-02-30x"`), false},
		{"enum", "/v1/books/bk_1", 200, jsonCT, strings.Replace(fmt.Sprintf(book, `null`), `"free"`, `""`, 1), false},
		{"unknown path answered 200", "/v1/nowhere", 200, jsonCT, `{}`, false},
		{"unknown path answered 404", "/v1/nowhere", 404, jsonCT, `{"error":{"code":"not_found","message":"No.","details":{}}}`, true},
	} {
		rec := &recordingT{TB: t}
		checkAgainstDocument(rec, get(c.path), c.status, c.header, []byte(c.body))
		if got := len(rec.errors) == 0; got != c.ok {
			t.Errorf("%s: passed = %v, want %v (%v)", c.name, got, c.ok, rec.errors)
		}
	}
}
