package test

// Cases 31-33, 35, 37, 38, 40 and 51 of test/SECURITY-CASES.md: mass
// assignment (case variants, operator and dotted keys), body, header and URL
// limits, expensive queries, and user-supplied URLs.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// wantFieldRefused checks a 422 validation_failed naming field.
func wantFieldRefused(t *testing.T, what string, r response, field string) {
	t.Helper()
	if r.Status != 422 {
		t.Errorf("%s: %d %.300s, want 422", what, r.Status, r.Body)
		return
	}
	code, details := r.apiError(t)
	fields, _ := details["fields"].(map[string]any)
	if code != "validation_failed" || (field != "" && fields[field] == nil) {
		t.Errorf("%s: code %q, details.fields %v, want validation_failed naming %q", what, code, fields, field)
	}
}

// Cases 31 and 32: PATCH /v1/users/me refuses every key that is not one of
// its own, whatever its spelling, operators and dotted paths included, and
// nothing changes; duplicate keys and trailing data are malformed.
func TestSecurityMassAssignmentProfile(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	tok := s.login(demoReader, demoPassword).Access
	me := func() string { return string(s.do(req{Path: "/v1/users/me", Token: tok}).Body) }
	before := me()

	refused := []struct {
		body, field string
	}{
		{`{"role":"admin"}`, "role"},
		{`{"Role":"admin"}`, "Role"},
		{`{"ROLE":"admin"}`, "ROLE"},
		{`{"rOlE":"admin"}`, "rOlE"},
		{`{"r\u006fle":"admin"}`, "role"}, // an escaped key is the same key
		{`{"tier":"premium"}`, "tier"},
		{`{"Tier":"premium"}`, "Tier"},
		{`{"email":"evil@example.org"}`, "email"},
		{`{"EMAIL":"evil@example.org"}`, "EMAIL"},
		{`{"id":"usr_00000000-0000-4000-8000-000000000000"}`, "id"},
		{`{"_id":"00000000-0000-4000-8000-000000000000"}`, "_id"},
		{`{"school_id":"00000000-0000-4000-8000-000000000000"}`, "school_id"},
		{`{"schoolId":"B"}`, "schoolId"},
		{`{"password_hash":"$argon2id$v=19$m=8,t=1,p=1$AAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAA"}`, "password_hash"},
		{`{"passwordHash":"x"}`, "passwordHash"},
		{`{"password":"new-password-1"}`, "password"},
		{`{"suspended":false}`, "suspended"},
		{`{"deleted":false}`, "deleted"},
		{`{"created_at":"2000-01-01T00:00:00Z"}`, "created_at"},
		{`{"createdAt":"2000-01-01T00:00:00Z"}`, "createdAt"},
		{`{"reading_level":"advanced"}`, "reading_level"},
		{`{"student_number":"X-1"}`, "student_number"},
		// Operators and dotted paths (case 32).
		{`{"$set":{"role":"admin"}}`, "$set"},
		{`{"$unset":{"suspended":""}}`, "$unset"},
		{`{"role.x":1}`, "role.x"},
		{`{"profile.role":"admin"}`, "profile.role"},
		{`{"preferences.theme":"dark"}`, "preferences.theme"},
		{`{"preferences":{"$where":"1"}}`, "preferences.$where"},
		{`{"preferences":{"$set":{"theme":"dark"}}}`, "preferences.$set"},
		{`{"preferences":{"a.b":1}}`, "preferences.a.b"},
		{`{"preferences":{"Theme":"dark"}}`, "preferences.Theme"},
		{`{"name":{"$ne":""}}`, "name"},
		{`{"avatar":{"$gt":""}}`, "avatar"},
		// One allowed and one forbidden key: all or nothing.
		{`{"name":"Mallory","role":"admin"}`, "role"},
		{`{"name":"Mallory","Name":"Eve"}`, "Name"},
		{`{"preferences":{"theme":"dark"},"$set":{"tier":"premium"}}`, "$set"},
	}
	for _, tt := range refused {
		r := s.do(req{Method: http.MethodPatch, Path: "/v1/users/me", Token: tok, Body: tt.body})
		wantFieldRefused(t, "PATCH "+tt.body, r, tt.field)
	}
	for _, body := range []string{
		`{"name":"a","name":"b"}`,
		`{"preferences":{"theme":"dark","theme":"sepia"}}`,
		`{"name":"a"}{"role":"admin"}`,
		`{"name":"a"} {"role":"admin"}`,
		`[{"role":"admin"}]`,
		`"role=admin"`,
	} {
		r := s.do(req{Method: http.MethodPatch, Path: "/v1/users/me", Token: tok, Body: body})
		if code, _ := r.apiError(t); r.Status != 400 || code != "malformed_json" {
			t.Errorf("PATCH %s: %d %s, want 400 malformed_json", body, r.Status, r.Body)
		}
	}
	if after := me(); after != before {
		t.Fatalf("a refused PATCH changed the profile:\nbefore %s\nafter  %s", before, after)
	}
	// The stored role and tier did not move either.
	if r := s.do(req{Path: "/api/admin/schools", Token: tok}); r.Status != 403 {
		t.Fatalf("the reader on an admin route after the attempts: %d", r.Status)
	}
	if got := s.do(req{Path: "/v1/users/me", Token: tok}).Header.Get("X-RateLimit-Limit"); got != "1000" {
		t.Fatalf("the reader's limit after the attempts: %s", got)
	}
	export := s.do(req{Path: "/v1/users/me/export", Token: tok}).json(t)["profile"].(map[string]any)
	if export["role"] != "reader" || export["tier"] != "standard" {
		t.Fatalf("exported profile after the attempts: %v", export)
	}
	s.login(demoReader, demoPassword) // the password did not change
	// Allowed fields still work.
	r := s.do(req{Method: http.MethodPatch, Path: "/v1/users/me", Token: tok, Body: `{"name":"Rita Again","preferences":{"theme":"dark"}}`})
	if r.Status != 200 || r.json(t)["name"] != "Rita Again" {
		t.Fatalf("allowed PATCH: %d %s", r.Status, r.Body)
	}
}

// Cases 31, 33 and 35 on the other writes: sign-up, invitations and their
// acceptance, students, admin changes, copies and loans take only their own
// fields; a loan's renewals, due date, student and status change only
// through renew and return.
func TestSecurityMassAssignmentOtherWrites(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	bookID, copies := w.addBook(t, w.libA, `{"title":"Assigned Mass","author":"Ana Lopes","copies":2}`)
	r := w.lend(w.libA, bookID, copies[0]["id"].(string), w.studentAID)
	if r.Status != 201 {
		t.Fatalf("loan: %d %s", r.Status, r.Body)
	}
	loan := r.json(t)["loan"].(map[string]any)
	loanID := loan["id"].(string)
	loanBefore := fmt.Sprint(loan)

	type attempt struct {
		name  string
		r     req
		field string
	}
	var signupEmails []string
	signup := func(extra string) string {
		email := fmt.Sprintf("mass.%d@example.org", len(signupEmails))
		signupEmails = append(signupEmails, email)
		return `{"email":"` + email + `","password":"long-enough-1","name":"Mass"` + extra + `}`
	}
	loanAction := func(extra string) string { return fmt.Sprintf(`{"loan_id":%q,"action":"renew"%s}`, loanID, extra) }
	newLoan := func(extra string) string {
		return fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q%s}`, bookID, copies[1]["id"], w.studentAID, extra)
	}
	attempts := []attempt{
		{"signup as admin", req{Method: "POST", Path: "/api/auth/signup", Body: signup(`,"role":"admin"`)}, "role"},
		{"signup Role", req{Method: "POST", Path: "/api/auth/signup", Body: signup(`,"Role":"admin"`)}, "Role"},
		{"signup premium", req{Method: "POST", Path: "/api/auth/signup", Body: signup(`,"tier":"premium"`)}, "tier"},
		{"signup into a school", req{Method: "POST", Path: "/api/auth/signup", Body: signup(`,"school_id":"` + w.schoolA + `"`)}, "school_id"},
		{"signup $set", req{Method: "POST", Path: "/api/auth/signup", Body: signup(`,"$set":{"role":"admin"}`)}, "$set"},
		{"signup _id", req{Method: "POST", Path: "/api/auth/signup", Body: signup(`,"_id":"x"`)}, "_id"},
		{"renew with renewals", req{Method: "PATCH", Path: "/api/library/loans", Token: w.libA, Body: loanAction(`,"renewals":0`)}, "renewals"},
		{"renew with due_at", req{Method: "PATCH", Path: "/api/library/loans", Token: w.libA, Body: loanAction(`,"due_at":"2099-01-01"`)}, "due_at"},
		{"renew with student_id", req{Method: "PATCH", Path: "/api/library/loans", Token: w.libA, Body: loanAction(`,"student_id":"` + w.studentBID + `"`)}, "student_id"},
		{"renew with status", req{Method: "PATCH", Path: "/api/library/loans", Token: w.libA, Body: loanAction(`,"status":"returned"`)}, "status"},
		{"renew with returned_at", req{Method: "PATCH", Path: "/api/library/loans", Token: w.libA, Body: loanAction(`,"returned_at":null`)}, "returned_at"},
		{"renew with Action", req{Method: "PATCH", Path: "/api/library/loans", Token: w.libA, Body: loanAction(`,"Action":"return"`)}, "Action"},
		{"loan with renewals", req{Method: "POST", Path: "/api/library/loans", Token: w.libA, Body: newLoan(`,"renewals":-5`)}, "renewals"},
		{"loan with status", req{Method: "POST", Path: "/api/library/loans", Token: w.libA, Body: newLoan(`,"status":"returned"`)}, "status"},
		{"loan with id", req{Method: "POST", Path: "/api/library/loans", Token: w.libA, Body: newLoan(`,"id":"` + loanID + `"`)}, "id"},
		{"loan with loaned_at", req{Method: "POST", Path: "/api/library/loans", Token: w.libA, Body: newLoan(`,"loaned_at":"2000-01-01T00:00:00Z"`)}, "loaned_at"},
		{"loan with Student_Id", req{Method: "POST", Path: "/api/library/loans", Token: w.libA, Body: newLoan(`,"Student_Id":"` + w.studentBID + `"`)}, "Student_Id"},
		{"copies with a code", req{Method: "POST", Path: "/api/library/copies", Token: w.libA, Body: fmt.Sprintf(`{"book_id":%q,"count":1,"code":%q}`, bookID, copies[1]["code"])}, "code"},
		{"copies with a status", req{Method: "POST", Path: "/api/library/copies", Token: w.libA, Body: fmt.Sprintf(`{"book_id":%q,"count":1,"status":"on_loan"}`, bookID)}, "status"},
		{"settings moved to B", req{Method: "PUT", Path: "/api/library/settings", Token: w.libA, Body: fmt.Sprintf(`{"school_id":%q,"default_loan_days":1,"max_renewals":20,"renewal_days":1,"allow_public_catalog":false}`, w.schoolB)}, "school_id"},
		{"student as librarian", req{Method: "POST", Path: "/api/library/students", Token: w.libA, Body: `{"name":"Climber","role":"librarian"}`}, "role"},
		{"student premium", req{Method: "POST", Path: "/api/library/students", Token: w.libA, Body: `{"name":"Climber","tier":"premium"}`}, "tier"},
		{"student with _id", req{Method: "POST", Path: "/api/library/students", Token: w.libA, Body: `{"name":"Climber","_id":"x"}`}, "_id"},
		{"invite as admin", req{Method: "POST", Path: "/api/library/invite", Token: w.admin, Body: fmt.Sprintf(`{"email":"climber@example.org","school_id":%q,"role":"admin"}`, w.schoolA)}, "role"},
		{"invite Role", req{Method: "POST", Path: "/api/library/invite", Token: w.admin, Body: fmt.Sprintf(`{"email":"climber@example.org","school_id":%q,"Role":"staff"}`, w.schoolA)}, "Role"},
		{"invite premium", req{Method: "POST", Path: "/api/library/invite", Token: w.admin, Body: fmt.Sprintf(`{"email":"climber@example.org","school_id":%q,"tier":"premium"}`, w.schoolA)}, "tier"},
		{"admin change with school_id", req{Method: "PATCH", Path: "/api/admin/users/" + w.studentBID, Token: w.admin, Body: fmt.Sprintf(`{"school_id":%q}`, w.schoolA)}, "school_id"},
		{"admin change with Role", req{Method: "PATCH", Path: "/api/admin/users/" + w.studentBID, Token: w.admin, Body: `{"Role":"admin"}`}, "Role"},
		{"admin change with email", req{Method: "PATCH", Path: "/api/admin/users/" + w.studentBID, Token: w.admin, Body: `{"email":"takeover@example.org"}`}, "email"},
		{"book with _id", req{Method: "POST", Path: "/api/library/books", Token: w.libA, Body: `{"title":"T","author":"A","_id":"x"}`}, "_id"},
		{"book with available_copies", req{Method: "POST", Path: "/api/library/books", Token: w.libA, Body: `{"title":"T","author":"A","available_copies":99}`}, "available_copies"},
	}
	for _, a := range attempts {
		wantFieldRefused(t, a.name, s.do(a.r), a.field)
	}

	// Nothing happened: no account, no loan change, no second loan, no
	// copies, settings and roles as they were.
	for _, email := range append(signupEmails, "climber@example.org", "takeover@example.org") {
		if _, err := s.App.Repos.Accounts.GetByEmail(t.Context(), email); err == nil {
			t.Errorf("a refused request created the account %s", email)
		}
	}
	var open struct {
		Loans []map[string]any `json:"loans"`
	}
	_ = jsonInto(s.do(req{Path: "/api/library/loans", Token: w.libA}), &open)
	if len(open.Loans) == 1 {
		delete(open.Loans[0], "student") // the list names the borrower; the loan's own answer does not
	}
	if len(open.Loans) != 1 || fmt.Sprint(open.Loans[0]) != loanBefore {
		t.Fatalf("loans after refused changes: %v\nwant only %s", open.Loans, loanBefore)
	}
	if got := w.catalogOf(t, "maplegrove.example.org")[bookID]; got["total_copies"] != float64(2) || got["available_copies"] != float64(1) {
		t.Fatalf("copies after refused requests: %v", got)
	}
	if got := w.settings(w.libA, ""); got["default_loan_days"] != float64(14) || got["school_id"] != w.schoolA {
		t.Fatalf("settings after refused PUT: %v", got)
	}
	if got := w.settings(w.admin, w.schoolB); got["default_loan_days"] != float64(14) {
		t.Fatalf("B's settings after refused PUT: %v", got)
	}
	stB, _ := s.App.Repos.Accounts.Get(t.Context(), w.studentBID)
	if stB.Role != "student" || stB.SchoolID != w.schoolB || stB.Email != "" {
		t.Fatalf("B's student after refused admin changes: %+v", stB)
	}

	// Case 35: accepting an invitation with extra fields is refused and
	// leaves the token usable; the account is what the invitation said.
	inv := s.do(req{Method: http.MethodPost, Path: "/api/library/invite", Token: w.admin, Body: fmt.Sprintf(`{"email":"invited@example.org","school_id":%q,"role":"staff"}`, w.schoolA)})
	token, _ := inv.json(t)["invite_token"].(string)
	if inv.Status != 201 || token == "" {
		t.Fatalf("invite: %d %s", inv.Status, inv.Body)
	}
	for _, extra := range []struct{ body, field string }{
		{`,"role":"admin"`, "role"},
		{`,"school_id":"` + w.schoolB + `"`, "school_id"},
		{`,"email":"other@example.org"`, "email"},
		{`,"Role":"librarian"`, "Role"},
	} {
		r := s.do(req{Method: http.MethodPost, Path: "/api/auth/accept-invite", Body: fmt.Sprintf(`{"token":%q,"password":"shelf-and-ink-7"%s}`, token, extra.body)})
		wantFieldRefused(t, "accept-invite with "+extra.body, r, extra.field)
	}
	r = s.do(req{Method: http.MethodPost, Path: "/api/auth/accept-invite", Body: fmt.Sprintf(`{"token":%q,"password":"shelf-and-ink-7"}`, token)})
	acct := r.json(t)["account"].(map[string]any)
	if r.Status != 200 || acct["role"] != "staff" || acct["school_id"] != w.schoolA || acct["email"] != "invited@example.org" {
		t.Fatalf("accept: %d %s, want staff of A with the invited email", r.Status, r.Body)
	}
	// A librarian cannot invite at all.
	r = s.do(req{Method: http.MethodPost, Path: "/api/library/invite", Token: w.libA, Body: fmt.Sprintf(`{"email":"lib-invite@example.org","school_id":%q}`, w.schoolA)})
	if code, _ := r.apiError(t); r.Status != 403 || code != "forbidden" {
		t.Fatalf("librarian inviting: %d %s", r.Status, r.Body)
	}
}

func jsonInto(r response, dst any) error { return json.Unmarshal(r.Body, dst) }

// Case 37: bodies over 1 MiB are 413 whether or not they announce their
// length; JSON nested as deep as 1 MiB allows is a cheap 422; oversized
// strings are 422; the service keeps serving.
func TestSecurityBodyLimits(t *testing.T) {
	s := startService(t, testEnv(t, map[string]string{"LIBRARY_RATE_ANONYMOUS": "100000-H"}))
	tok := s.login(demoReader, demoPassword).Access
	const limit = 1 << 20

	// Exactly at the limit is read (and refused for its content); one byte
	// more is 413 before any decoding.
	atLimit := `{"name":"` + strings.Repeat("n", limit-11) + `"}`
	if len(atLimit) != limit {
		t.Fatalf("body is %d bytes", len(atLimit))
	}
	r := s.do(req{Method: http.MethodPatch, Path: "/v1/users/me", Token: tok, Body: atLimit})
	wantFieldRefused(t, "1 MiB body with a long name", r, "name")
	r = s.do(req{Method: http.MethodPatch, Path: "/v1/users/me", Token: tok, Body: atLimit + " "})
	if code, _ := r.apiError(t); r.Status != 413 || code != "payload_too_large" {
		t.Fatalf("1 MiB + 1 byte: %d %.200s, want 413 payload_too_large", r.Status, r.Body)
	}

	// Chunked, without Content-Length, and never ending: the server stops
	// reading at the limit and answers 413.
	for _, path := range []string{"/v1/users/me", "/api/auth/login"} {
		method := http.MethodPatch
		if path == "/api/auth/login" {
			method = http.MethodPost
		}
		status, body, sent := rawChunkedRequest(t, s, method, path, tok, 64<<20)
		if status != 413 || !strings.Contains(body, `"payload_too_large"`) {
			t.Fatalf("%s %s with an endless chunked body: %d %.200s, want 413 payload_too_large", method, path, status, body)
		}
		if sent > 32<<20 {
			t.Fatalf("%s: the server took %d bytes before answering", path, sent)
		}
	}

	// Deep nesting within 1 MiB: refused as invalid, quickly.
	for _, body := range []string{
		`{"name":` + strings.Repeat("[", limit/2-20) + strings.Repeat("]", limit/2-20) + `}`,
		`{"preferences":` + strings.Repeat(`{"a":`, limit/5-10) + `1` + strings.Repeat("}", limit/5-10) + `}`,
	} {
		start := time.Now()
		r := s.do(req{Method: http.MethodPatch, Path: "/v1/users/me", Token: tok, Body: body})
		if r.Status != 422 && r.Status != 413 {
			t.Fatalf("deeply nested body: %d %.200s, want 422 (or 413)", r.Status, r.Body)
		}
		r.apiError(t)
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("deeply nested body took %s", d)
		}
		t.Logf("%.20s… nested body refused in %s", body, time.Since(start))
	}
	// Strings above their caps.
	for body, field := range map[string]string{
		`{"name":"` + strings.Repeat("n", 101) + `"}`:                            "name",
		`{"avatar":"https://img.example.org/` + strings.Repeat("a", 2048) + `"}`: "avatar",
		`{"preferences":{"timezone":"` + strings.Repeat("Z", 300) + `"}}`:        "preferences.timezone",
	} {
		wantFieldRefused(t, fmt.Sprintf("%.40s…", body), s.do(req{Method: http.MethodPatch, Path: "/v1/users/me", Token: tok, Body: body}), field)
	}
	if r := s.do(req{Path: "/v1/users/me", Token: tok}); r.Status != 200 || r.json(t)["name"] == strings.Repeat("n", limit-11) {
		t.Fatalf("profile after the oversized bodies: %d", r.Status)
	}
}

// rawChunkedRequest sends a chunked body of up to max bytes of JSON-looking
// data on a raw connection, stopping when the response arrives; it returns
// the status, the body and how many body bytes were sent.
func rawChunkedRequest(t *testing.T, s *service, method, path, token string, max int) (int, string, int) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(60 * time.Second))
	fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n", method, path, token)
	var sent atomic.Int64
	done := make(chan struct{})
	go func() {
		chunk := `{"name":"` + strings.Repeat("x", 32<<10)
		frame := fmt.Sprintf("%x\r\n%s\r\n", len(chunk), chunk)
		for sent.Load() < int64(max) {
			select {
			case <-done:
				return
			default:
			}
			if _, err := io.WriteString(conn, frame); err != nil {
				return
			}
			sent.Add(int64(len(chunk)))
		}
	}()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	close(done)
	if err != nil {
		t.Fatalf("%s %s: no response to an endless chunked body: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return resp.StatusCode, string(b), int(sent.Load())
}

// Case 38: a header block or request line over the server's 32 KiB limit is
// refused with 431 (net/http's own plain-text answer, before any handler),
// a 16 KiB URL is served normally, and other clients are unaffected.
func TestSecurityHeaderAndURLLimits(t *testing.T) {
	s := startService(t, testEnv(t, map[string]string{"LIBRARY_RATE_ANONYMOUS": "100000-H"}))
	tok := s.login(demoReader, demoPassword).Access
	for _, size := range []int{64 << 10, 100 << 10, 1 << 20} {
		hr, _ := http.NewRequest(http.MethodGet, s.URL+"/v1/users/me", nil)
		hr.Header.Set("Authorization", "Bearer "+tok)
		hr.Header.Set("X-Padding", strings.Repeat("h", size))
		resp, err := http.DefaultClient.Do(hr)
		if err != nil {
			t.Fatalf("%d bytes of headers: %v", size, err)
		}
		resp.Body.Close()
		if resp.StatusCode != 431 {
			t.Fatalf("%d bytes of headers: %d, want 431", size, resp.StatusCode)
		}
		// Many small headers add up the same way.
		hr, _ = http.NewRequest(http.MethodGet, s.URL+"/v1/users/me", nil)
		for i := 0; i < size/64; i++ {
			hr.Header.Add(fmt.Sprintf("X-H%d", i), strings.Repeat("v", 50))
		}
		resp, err = http.DefaultClient.Do(hr)
		if err != nil {
			t.Fatalf("%d small headers: %v", size/64, err)
		}
		resp.Body.Close()
		if resp.StatusCode != 431 {
			t.Fatalf("%d headers of 64 bytes: %d, want 431", size/64, resp.StatusCode)
		}
	}
	for _, size := range []int{64 << 10, 1 << 20} {
		r, err := send(http.DefaultClient, s.URL, req{Path: "/v1/books?search=" + strings.Repeat("a", size), Token: tok})
		if err != nil || (r.Status != 431 && r.Status != 414) {
			t.Fatalf("URL of %d bytes: %v %d, want 431 or 414", size, err, r.Status)
		}
	}
	// A long but acceptable URL reaches the handler, which applies its own
	// cap on the search text.
	r := s.do(req{Path: "/v1/books?search=" + strings.Repeat("a", 16<<10), Token: tok})
	wantFieldRefused(t, "16 KiB search", r, "search")
	if r := s.do(req{Path: "/v1/users/me", Token: tok}); r.Status != 200 {
		t.Fatalf("a normal request after the refusals: %d", r.Status)
	}
}

// Case 40: long, regex-like and operator-like query values are validated,
// or folded into plain words exactly like the words they contain, never run
// as patterns or operators.
func TestSecurityExpensiveQueries(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	tok := s.login(demoReader, demoPassword).Access
	books := func(q string) response { return s.do(req{Path: "/v1/books?" + q, Token: tok}) }
	for q, status := range map[string]int{
		"search=" + strings.Repeat("a", 5000):       422,
		"search=w1+w2+w3+w4+w5+w6+w7+w8+w9+w10+w11": 422, // more than 10 words
		"search=" + url.QueryEscape(".*"):           422, // no letter or digit
		"sort=password":                             422,
		"sort=" + url.QueryEscape("$where"):         422,
		"sort=" + url.QueryEscape("-$natural"):      422,
		"genre[$ne]=x":                              422,
		"search[$regex]=a":                          422,
		"limit=1000000":                             422,
		"limit=-1":                                  422,
	} {
		start := time.Now()
		r := books(q)
		if r.Status != status {
			t.Errorf("GET /v1/books?%.60s: %d %.200s, want %d", q, r.Status, r.Body, status)
			continue
		}
		r.apiError(t)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("?%.60s took %s", q, d)
		}
	}
	// Pattern and operator text is matched as the words it contains.
	for q, same := range map[string]string{
		"search=" + url.QueryEscape("(a+)+$"):       "search=a",
		"search=" + url.QueryEscape("a.*|b"):        "search=a+b",
		"search=" + url.QueryEscape(`{"$ne":null}`): "search=ne+null",
		"search=" + url.QueryEscape("^pip$"):        "search=pip",
		"genre=" + url.QueryEscape(`{"$ne":"x"}`):   "genre=no-such-genre",
		"genre=" + url.QueryEscape(".*"):            "genre=no-such-genre",
	} {
		start := time.Now()
		got, want := books(q), books(same)
		if got.Status != 200 || want.Status != 200 || string(got.Body) != string(want.Body) {
			t.Errorf("?%s: %d %.200s\nwant the same as ?%s: %d %.200s", q, got.Status, got.Body, same, want.Status, want.Body)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("?%s took %s", q, d)
		}
	}
	if r := books("page=1000000000"); r.Status != 200 || !strings.Contains(string(r.Body), `"data":[]`) {
		t.Errorf("a page far past the end: %d %.200s, want 200 with no data", r.Status, r.Body)
	}
	// The same for the librarian's student search.
	students := func(q string) response {
		return s.do(req{Path: "/api/library/students?search=" + url.QueryEscape(q), Token: w.libA})
	}
	for q, same := range map[string]string{"(a+)+$": "a", `{"$ne":null}`: "ne null", "s.*": "s"} {
		got, want := students(q), students(same)
		if got.Status != 200 || string(got.Body) != string(want.Body) {
			t.Errorf("student search %q: %d %.200s, want the same as %q: %.200s", q, got.Status, got.Body, same, want.Body)
		}
	}
	// Text without a letter or digit searches for nothing: refused, as the
	// book search refuses it, rather than taken as "every student".
	if r := students(".*"); r.Status != 422 {
		t.Errorf("student search \".*\": %d %.200s, want 422", r.Status, r.Body)
	}
}

// Case 51: the service fetches no user-supplied URL. An avatar must be an
// https URL of at most 2048 characters; an https URL pointing at a canary
// listener is stored as text and nothing ever connects to it.
func TestSecurityAvatarURLsAreNeverFetched(t *testing.T) {
	canary, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int64
	go func() {
		for {
			c, err := canary.Accept()
			if err != nil {
				return
			}
			hits.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { canary.Close() })
	port := canary.Addr().(*net.TCPAddr).Port

	s := startService(t, testEnv(t, nil))
	tok := s.login(demoReader, demoPassword).Access
	for _, avatar := range []string{
		fmt.Sprintf("http://127.0.0.1:%d/", port),
		fmt.Sprintf("http://localhost:%d", port),
		fmt.Sprintf("http://[::1]:%d/", port),
		"http://2130706433/", "http://0x7f.1/", "http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/",
		"file:///etc/passwd", "gopher://127.0.0.1:70/_x", "ftp://example.org/a.png", "javascript:alert(1)",
		"data:image/png;base64,AAAA", "//evil.example/a.png", "https://", "https:///a.png",
		"https://img.example.org/" + strings.Repeat("a", 2048),
	} {
		r := s.do(req{Method: http.MethodPatch, Path: "/v1/users/me", Token: tok, Body: fmt.Sprintf(`{"avatar":%q}`, avatar)})
		wantFieldRefused(t, "avatar "+avatar[:min(len(avatar), 60)], r, "avatar")
	}
	stored := fmt.Sprintf("https://127.0.0.1:%d/avatar.png", port)
	r := s.do(req{Method: http.MethodPatch, Path: "/v1/users/me", Token: tok, Body: fmt.Sprintf(`{"avatar":%q}`, stored)})
	if r.Status != 200 || r.json(t)["avatar"] != stored {
		t.Fatalf("https avatar: %d %s", r.Status, r.Body)
	}
	me := s.do(req{Path: "/v1/users/me", Token: tok}).json(t)
	other := s.login(demoPremium, demoPassword).Access
	for _, path := range []string{"/v1/users/me", "/v1/users/me/export", "/v1/users/" + me["id"].(string), "/v1/users/me/stats"} {
		if r := s.do(req{Path: path, Token: tok}); r.Status != 200 {
			t.Fatalf("%s: %d", path, r.Status)
		}
	}
	if r := s.do(req{Path: "/v1/users/" + me["id"].(string), Token: other}); r.Status != 200 || r.json(t)["avatar"] != stored {
		t.Fatalf("public profile: %d %s", r.Status, r.Body)
	}
	time.Sleep(200 * time.Millisecond) // room for any background fetch
	if n := hits.Load(); n != 0 {
		t.Fatalf("the canary received %d connections; user-supplied URLs must never be fetched", n)
	}
}
