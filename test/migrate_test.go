package test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/readinglibrary/service/adapters/mongorepo/mongotest"
	"github.com/readinglibrary/service/cmd/libraryd/app"
)

var exportedAt = regexp.MustCompile(`"exported_at":"[^"]*"`)

// A school that outgrows one machine moves its embedded store to MongoDB
// with `libraryd migrate --to`, and back with `--from`: the API answers the
// same before and after, signed-in sessions carry over (the signing keys and
// refresh tokens move too), and a target that holds anything is refused.
func TestMigrateEmbeddedStoreToMongoAndBack(t *testing.T) {
	dataDir := t.TempDir()
	env := map[string]string{
		"LIBRARY_DATA_DIR": dataDir, "LIBRARY_DEMO_DATA": "true", "LIBRARY_COOKIE_SECURE": "false",
		// One issuer for every start, so tokens issued before the move
		// stay valid after it.
		"LIBRARY_ISSUER_URL": "http://library.test",
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
			Body: fmt.Sprintf(`{"name":"Migrating Pupil %d","student_number":"MIG-%d"}`, i, i)}); r.Status != 201 {
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
		{lib.Access, "/api/library/copies?code=" + copies[0]["code"].(string)},
		{lib.Access, "/api/library/settings"},
		{admin.Access, "/api/library/accounts?schoolId=" + schoolID},
		{student.Access, "/api/library/student/loans"},
		{admin.Access, "/api/admin/schools"},
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
	t.Logf("migrate --to:\n%s", out.String())

	onMongo := startService(t, map[string]string{
		"LIBRARY_MONGODB_URI": uri, "LIBRARY_MONGODB_DATABASE": name, "LIBRARY_DEMO_DATA": "false",
		"LIBRARY_COOKIE_SECURE": "false", "LIBRARY_ISSUER_URL": "http://library.test", "LIBRARY_SECRET_KEY_FILE": secretKey,
	})
	compare("on MongoDB", before, answers(onMongo))
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
