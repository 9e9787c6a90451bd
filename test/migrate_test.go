package test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/readinglibrary/service/adapters/mongorepo/mongotest"
	"github.com/readinglibrary/service/cmd/libraryd/app"
)

var exportedAt = regexp.MustCompile(`"exported_at":"[^"]*"`)

// A school that outgrows one machine moves its embedded store to MongoDB
// with `libraryd migrate --to`, and back with `--from`: the API answers the
// same before and after, signed-in sessions carry over (the signing keys and
// refresh tokens move too), a student linked to the school's identity
// provider is still recognised by that link, a password-reset link mailed
// before the move works after it, and a target that holds anything is
// refused.
func TestMigrateEmbeddedStoreToMongoAndBack(t *testing.T) {
	sameOnEveryStore(t)
	dataDir := t.TempDir()
	idp := newSchoolIdP(t)
	issuers := idp.srv.URL + "=library-api;school=maplegrove.example.org"
	env := map[string]string{
		"LIBRARY_DATA_DIR": dataDir, "LIBRARY_DEMO_DATA": "true", "LIBRARY_COOKIE_SECURE": "false",
		// One issuer for every start, so tokens issued before the move
		// stay valid after it.
		"LIBRARY_ISSUER_URL": "http://library.test", "LIBRARY_OIDC_ISSUERS": issuers,
	}
	s := startService(t, env)
	w := &libraryWorld{s: s}
	admin := s.login(demoAdmin, demoPassword)
	lib := s.login(demoLibrarian, demoPassword)
	student := s.login(demoStudent, demoPassword)
	reader := s.login(demoReader, demoPassword)
	w.libA = lib.Access

	// Some of everything on top of the demo data: students, a book with
	// copies, loans (one renewed, one returned), reading progress, an
	// invitation.
	for i := range 3 {
		if r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: lib.Access,
			Body: fmt.Sprintf(`{"name":"Migrating Pupil %d","student_number":"MIG-%d","grade":"Year 6","homeroom":"6c"}`, i, i)}); r.Status != 201 {
			t.Fatalf("student: %d %s", r.Status, r.Body)
		}
	}
	studentID := s.do(req{Path: "/api/library/students?search=MIG-0", Token: lib.Access}).json(t)["students"].([]any)[0].(map[string]any)["student_id"].(string)
	bookID, copies := w.addBook(t, lib.Access, `{"title":"Les Misérables","author":"Victor Hugo","isbn":"9780140444308","copies":3}`)
	renewed := w.lend(lib.Access, bookID, copies[0]["id"].(string), studentID).json(t)["loan"].(map[string]any)["id"].(string)
	if r := w.act(lib.Access, renewed, "renew"); r.Status != 200 {
		t.Fatalf("renew: %d %s", r.Status, r.Body)
	}
	returned := w.lend(lib.Access, bookID, copies[1]["id"].(string), studentID).json(t)["loan"].(map[string]any)["id"].(string)
	if r := w.act(lib.Access, returned, "return"); r.Status != 200 {
		t.Fatalf("return: %d %s", r.Status, r.Body)
	}
	books := s.do(req{Path: "/v1/books?limit=1", Token: reader.Access}).json(t)["data"].([]any)
	readBook := books[0].(map[string]any)["id"].(string)
	if r := s.do(req{Method: http.MethodPatch, Path: "/v1/books/" + readBook + "/progress", Token: reader.Access, Body: `{"page_number":2,"time_spent":120}`}); r.Status != 200 {
		t.Fatalf("progress: %d %s", r.Status, r.Body)
	}
	schoolID := w.settings(lib.Access, "")["school_id"].(string)
	if r := s.do(req{Method: http.MethodPost, Path: "/api/library/invite", Token: admin.Access,
		Body: fmt.Sprintf(`{"email":"newlib@maplegrove.example.org","school_id":%q}`, schoolID)}); r.Status != 201 {
		t.Fatalf("invite: %d %s", r.Status, r.Body)
	}

	// The student signs in once at the school's provider, which links the
	// provider's subject to the account; and a reader asks for a
	// password reset, whose link lands in the outbox.
	if r := s.do(req{Path: "/v1/users/me", Token: idp.token(t, jwt.MapClaims{"sub": "pupil-4711", "email": demoStudent})}); r.Status != 200 {
		t.Fatalf("the student's first sign-in at the school's provider: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Method: http.MethodPost, Path: "/api/auth/password-reset", Body: `{"email":"premium@library.example.org"}`}); r.Status != 202 {
		t.Fatalf("password reset: %d %s", r.Status, r.Body)
	}
	flushMail(t, s)
	mails, err := filepath.Glob(filepath.Join(dataDir, "outbox", "*.eml"))
	if err != nil || len(mails) != 1 {
		t.Fatalf("outbox = %v (%v), want the one reset mail", mails, err)
	}
	mail, err := os.ReadFile(mails[0])
	if err != nil {
		t.Fatal(err)
	}
	_, resetToken := linkToken(t, string(mail))

	// What the service answers, as each kind of caller.
	probes := []struct {
		token, path string
	}{
		{reader.Access, "/v1/users/me"},
		{reader.Access, "/v1/users/me/reading-list"},
		{reader.Access, "/v1/books?search=the&limit=5"},
		{reader.Access, "/v1/books?genre=fantasy&sort=-rating&limit=5"},
		{reader.Access, "/v1/books/" + readBook},
		{reader.Access, "/v1/users/me/export"},
		{lib.Access, "/api/library/loans"},
		{lib.Access, "/api/library/students?search=pupil"},
		{lib.Access, "/api/library/students?limit=2&page=2"},
		{lib.Access, "/api/library/students?homeroom=6C"}, // grades and homerooms come along, and their index
		{lib.Access, "/api/library/loans?homeroom=6C"},
		{lib.Access, "/api/library/copies?code=" + copies[0]["code"].(string)},
		{lib.Access, "/api/library/settings"},
		{admin.Access, "/api/library/accounts?schoolId=" + schoolID},
		{student.Access, "/api/library/student/loans"},
		{admin.Access, "/api/admin/schools"},
		// The audit log moves whole: the students added and the
		// invitation above are in it.
		{lib.Access, "/api/library/audit?limit=200"},
		{admin.Access, "/api/library/audit?limit=200"},
		{"", "/api/library/catalog/maplegrove.example.org?search=miser+hugo"},
		{"", "/api/library/catalog/maplegrove.example.org?limit=2&page=2"},
	}
	answers := func(s *service) []string {
		t.Helper()
		var out []string
		for _, p := range probes {
			r := s.do(req{Path: p.path, Token: p.token})
			if r.Status != 200 {
				t.Fatalf("GET %s: %d %s", p.path, r.Status, r.Body)
			}
			// The export says when it was made; nothing else may differ.
			out = append(out, exportedAt.ReplaceAllString(string(r.Body), `"exported_at":"(when)"`))
		}
		return out
	}
	compare := func(step string, before, after []string) {
		t.Helper()
		for i := range before {
			if before[i] != after[i] {
				t.Errorf("%s: GET %s differs\nbefore: %.400s\nafter:  %.400s", step, probes[i].path, before[i], after[i])
			}
		}
	}
	before := answers(s)
	s.stop()

	uri, name := mongotest.NewDatabase(t)
	// The signing keys move encrypted, so the secret key the embedded store
	// made for them goes along.
	secretKey := filepath.Join(env["LIBRARY_DATA_DIR"], app.SecretKeyFile)
	var out bytes.Buffer
	migrate := func(args ...string) error {
		out.Reset()
		return app.RunMigrate(context.Background(), func(k string) string { return env[k] }, args, &out, &out)
	}
	if err := migrate("--to", uri, "--database", name); err != nil {
		t.Fatalf("migrate --to: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "every count matches") || !strings.Contains(out.String(), "loans") {
		t.Fatalf("migrate --to said:\n%s", out.String())
	}
	for _, line := range []string{"external_identities", "mail_tokens"} {
		if !regexp.MustCompile(`(?m)^\s*` + line + `\s+1$`).MatchString(out.String()) {
			t.Errorf("migrate --to does not report 1 %s:\n%s", line, out.String())
		}
	}
	t.Logf("migrate --to:\n%s", out.String())

	onMongo := startService(t, map[string]string{
		"LIBRARY_MONGODB_URI": uri, "LIBRARY_MONGODB_DATABASE": name, "LIBRARY_DEMO_DATA": "false",
		"LIBRARY_COOKIE_SECURE": "false", "LIBRARY_ISSUER_URL": "http://library.test", "LIBRARY_SECRET_KEY_FILE": secretKey,
		"LIBRARY_OIDC_ISSUERS": issuers,
	})
	compare("on MongoDB", before, answers(onMongo))
	// The link came along: the provider's subject reaches the student even
	// with an email claim the store has never seen, and another subject
	// with the student's email is refused.
	if r := onMongo.do(req{Path: "/v1/users/me", Token: idp.token(t, jwt.MapClaims{"sub": "pupil-4711", "email": "renamed.pupil@maplegrove.example.org"})}); r.Status != 200 || r.json(t)["email"] != demoStudent {
		t.Errorf("the linked subject after the move: %d %s, want 200 as %s", r.Status, r.Body, demoStudent)
	}
	r := onMongo.do(req{Path: "/v1/users/me", Token: idp.token(t, jwt.MapClaims{"sub": "pupil-9999", "email": demoStudent})})
	if c, _ := r.apiError(t); r.Status != 403 || c != "external_identity_mismatch" {
		t.Errorf("another subject with the linked student's email after the move: %d %s, want 403 external_identity_mismatch", r.Status, r.Body)
	}
	// The reset link mailed before the move sets the password after it.
	if r := onMongo.do(req{Method: http.MethodPost, Path: "/api/auth/password-reset/confirm",
		Body: fmt.Sprintf(`{"token":%q,"new_password":"Harbour-Kettle-58"}`, resetToken)}); r.Status != 204 {
		t.Errorf("the reset link mailed before the move: %d %s, want 204", r.Status, r.Body)
	}
	onMongo.login("premium@library.example.org", "Harbour-Kettle-58")
	// A refresh token issued on the embedded store works on MongoDB.
	if r := onMongo.do(req{Method: http.MethodPost, Path: "/api/auth/refresh", Body: `{"refresh_token":"` + lib.Refresh + `"}`}); r.Status != 200 {
		t.Errorf("refresh after the move: %d %s", r.Status, r.Body)
	}
	// The data keeps working: a new loan of a free copy.
	if r := (&libraryWorld{s: onMongo}).lend(lib.Access, bookID, copies[2]["id"].(string), studentID); r.Status != 201 {
		t.Errorf("a loan after the move: %d %s", r.Status, r.Body)
	}
	after := answers(onMongo)
	onMongo.stop()

	// A target that holds anything is refused, and left as it was.
	if err := migrate("--to", uri, "--database", name); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("migrate --to a database that holds data: %v, want a refusal", err)
	}

	// And back, into an empty embedded store elsewhere.
	env["LIBRARY_DATA_DIR"] = t.TempDir()
	if err := migrate("--from", uri, "--database", name); err != nil {
		t.Fatalf("migrate --from: %v\n%s", err, out.String())
	}
	back := startService(t, map[string]string{
		"LIBRARY_DATA_DIR": env["LIBRARY_DATA_DIR"], "LIBRARY_DEMO_DATA": "false",
		"LIBRARY_COOKIE_SECURE": "false", "LIBRARY_ISSUER_URL": "http://library.test", "LIBRARY_SECRET_KEY_FILE": secretKey,
	})
	compare("back on the embedded store", after, answers(back))
	if err := migrate("--from", uri, "--database", name); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("migrate --from into a store that holds data: %v, want a refusal", err)
	}
}
