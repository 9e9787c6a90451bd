package test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	_ "modernc.org/sqlite" // the embedded store's files, read by scanFileForAccount

	"github.com/readinglibrary/service/cmd/libraryd/app"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/core/user"
)

func TestPatchMe(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	tok := s.login(demoReader, demoPassword).Access
	me := func() map[string]any { return s.do(req{Path: "/v1/users/me", Token: tok}).json(t) }
	before := me()

	r := s.do(req{Method: http.MethodPatch, Path: "/v1/users/me", Token: tok,
		Body: `{"name":"Rita R.","avatar":"https://img.example.org/rita.png","preferences":{"theme":"sepia","timezone":"America/Sao_Paulo"}}`})
	if r.Status != 200 {
		t.Fatalf("PATCH: %d %s", r.Status, r.Body)
	}
	got := r.json(t)
	keys := make([]string, 0, len(got))
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if strings.Join(keys, ",") != "avatar,email,id,name,preferences" {
		t.Fatalf("PATCH response keys = %v, want id, email, name, avatar, preferences", keys)
	}
	prefs := got["preferences"].(map[string]any)
	// Merged key by key: keys not sent keep their values.
	if got["name"] != "Rita R." || got["avatar"] != "https://img.example.org/rita.png" || prefs["theme"] != "sepia" ||
		prefs["timezone"] != "America/Sao_Paulo" || prefs["font_size"] != float64(16) || prefs["notifications"] != true {
		t.Fatalf("PATCH response = %s", r.Body)
	}
	after := me()

	bad := map[string]string{
		"read-only email":        `{"email":"evil@example.org"}`,
		"read-only id":           `{"id":"usr_x"}`,
		"read-only role":         `{"role":"admin"}`,
		"read-only tier":         `{"tier":"premium"}`,
		"case variant":           `{"Name":"X"}`,
		"nested case variant":    `{"preferences":{"Theme":"dark"}}`,
		"unknown preference":     `{"preferences":{"font_family":"serif"}}`,
		"operator key":           `{"preferences":{"$set":{"theme":"dark"}}}`,
		"dotted key":             `{"preferences.theme":"dark"}`,
		"operator value":         `{"name":{"$ne":""}}`,
		"http avatar":            `{"avatar":"http://img.example.org/a.png"}`,
		"script avatar":          `{"avatar":"javascript:alert(1)"}`,
		"font too small":         `{"preferences":{"font_size":7}}`,
		"font too big":           `{"preferences":{"font_size":73}}`,
		"theme":                  `{"preferences":{"theme":"neon"}}`,
		"timezone":               `{"preferences":{"timezone":"Mars/Olympus"}}`,
		"empty name":             `{"name":"  "}`,
		"long name":              `{"name":"` + strings.Repeat("n", 101) + `"}`,
		"one good one bad field": `{"name":"Changed","preferences":{"font_size":100}}`,
	}
	for name, body := range bad {
		r := s.do(req{Method: http.MethodPatch, Path: "/v1/users/me", Token: tok, Body: body})
		if code, _ := r.apiError(t); r.Status != 422 || code != "validation_failed" {
			t.Errorf("%s: %d %s, want 422 validation_failed", name, r.Status, r.Body)
		}
	}
	if now := me(); fmt.Sprint(now) != fmt.Sprint(after) {
		t.Fatalf("a refused PATCH changed the profile:\nbefore %v\nafter  %v", after, now)
	}
	if before["email"] != after["email"] || before["id"] != after["id"] {
		t.Fatal("email or id changed")
	}
	// The avatar can be removed again.
	if r := s.do(req{Method: http.MethodPatch, Path: "/v1/users/me", Token: tok, Body: `{"avatar":""}`}); r.json(t)["avatar"] != "" {
		t.Fatalf("clearing the avatar: %s", r.Body)
	}
}

func TestPublicProfiles(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	ctx := context.Background()
	reader := s.login(demoReader, demoPassword).Access
	student := s.login(demoStudent, demoPassword).Access
	librarian := s.login(demoLibrarian, demoPassword).Access
	admin := s.login(demoAdmin, demoPassword).Access
	readerID := s.do(req{Path: "/v1/users/me", Token: reader}).json(t)["id"].(string)
	studentID := s.do(req{Path: "/v1/users/me", Token: student}).json(t)["id"].(string)

	r := s.do(req{Path: "/v1/users/" + readerID, Token: student})
	p := r.json(t)
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if r.Status != 200 || strings.Join(keys, ",") != "avatar,books_read,id,member_since,name,reading_level" {
		t.Fatalf("public profile: %d keys %v", r.Status, keys)
	}
	// The demo reader finished two books; member_since is the creation date.
	if p["books_read"] != float64(2) || p["member_since"] != time.Now().UTC().Format(time.DateOnly) || p["id"] != readerID {
		t.Fatalf("public profile = %v", p)
	}
	for _, id := range []string{"usr_" + uuid.NewString(), "not-an-id", "usr_"} {
		r := s.do(req{Path: "/v1/users/" + id, Token: reader})
		if code, _ := r.apiError(t); r.Status != 404 || code != "user_not_found" {
			t.Fatalf("GET /v1/users/%s: %d %s", id, r.Status, r.Body)
		}
	}
	// A student's profile stays within the school.
	for name, tok := range map[string]string{"librarian of the school": librarian, "admin": admin, "the student": student} {
		if r := s.do(req{Path: "/v1/users/" + studentID, Token: tok}); r.Status != 200 {
			t.Fatalf("student profile for %s: %d", name, r.Status)
		}
	}
	r = s.do(req{Path: "/v1/users/" + studentID, Token: reader})
	if code, _ := r.apiError(t); r.Status != 404 || code != "user_not_found" {
		t.Fatalf("student profile for an outside reader: %d %s, want 404 user_not_found", r.Status, r.Body)
	}
	other := otherSchoolLibrarian(t, s)
	if r := s.do(req{Path: "/v1/users/" + studentID, Token: other}); r.Status != 404 {
		t.Fatalf("student profile for another school's librarian: %d, want 404", r.Status)
	}
	_ = ctx
}

// otherSchoolLibrarian creates a second school with a librarian and
// returns the librarian's access token.
func otherSchoolLibrarian(t *testing.T, s *service) string {
	t.Helper()
	ctx := context.Background()
	school, err := library.NewSchool(uuid.NewString(), "Riverside School", "riverside.example.org", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.App.Repos.Schools.Create(ctx, school); err != nil {
		t.Fatal(err)
	}
	if _, err := s.App.Identity.CreateAccount(ctx, identity.NewAccountInput{
		Email: "librarian@riverside.example.org", Password: "riverside-password", Name: "Other Librarian",
		Role: user.RoleLibrarian, SchoolID: school.ID,
	}); err != nil {
		t.Fatal(err)
	}
	return s.login("librarian@riverside.example.org", "riverside-password").Access
}

func TestReadingStats(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	admin := s.login(demoAdmin, demoPassword).Access
	student := s.login(demoStudent, demoPassword).Access
	studentID := s.do(req{Path: "/v1/users/me", Token: student}).json(t)["id"].(string)

	// A 30-page book of 14 words in three chapters (see testBook): chapter
	// one "The fox ran. The dog's bone was well-known!" (8 words), two
	// "Second chapter words here." (4), three "The end." (2).
	id := createBook(t, s, admin, testBook("Counting Book", "Ana Lopes", "mystery", "beginner", "free", 4))["id"].(string)
	patch := func(body string) {
		if r := s.do(req{Method: http.MethodPatch, Path: "/v1/books/" + id + "/progress", Body: body, Token: student}); r.Status != 200 {
			t.Fatalf("progress %s: %d %s", body, r.Status, r.Body)
		}
	}
	patch(`{"page_number":12,"time_spent":90}`) // 40%, chapter one finished
	patch(`{"page_number":8,"time_spent":30}`)  // going back: the highest page stays 12
	stats := s.do(req{Path: "/v1/users/me/stats", Token: student})
	got := stats.json(t)
	// 120 s; pages 12; words read 14 × 40% = 5.6 in 2 minutes → 2.8 ≈ 3 wpm;
	// vocabulary of chapter one: the, fox, ran, dog's, bone, was,
	// well-known: "dog's" and "well-known" fold into dog+s and well+known
	// for vocabulary → the fox ran dog s bone was well known = 9.
	want := map[string]float64{"total_reading_time": 120, "books_completed": 0, "pages_read": 12, "average_reading_speed": 3, "vocabulary_size": 9, "current_streak": 1, "longest_streak": 1}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v (stats %s)", k, got[k], v, stats.Body)
		}
	}
	if got["user_id"] != studentID {
		t.Fatalf("user_id = %v", got["user_id"])
	}
	patch(`{"page_number":30,"time_spent":60}`) // finished: 14 words in 3 minutes → 4.67 ≈ 5 wpm
	got = s.do(req{Path: "/v1/users/" + studentID + "/stats", Token: student}).json(t)
	// All chapters: 9 + second, chapter, words, here (4) + end (1; "the"
	// is counted already) = 14 distinct words.
	want = map[string]float64{"total_reading_time": 180, "books_completed": 1, "pages_read": 30, "average_reading_speed": 5, "vocabulary_size": 14}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("after finishing: %s = %v, want %v", k, got[k], v)
		}
	}

	// Who may read them: the student, the school's librarian and staff,
	// admins; not another reader, not another school's librarian.
	for name, tok := range map[string]string{
		"librarian of the school": s.login(demoLibrarian, demoPassword).Access,
		"staff of the school":     s.login("staff@maplegrove.example.org", demoPassword).Access,
		"admin":                   admin,
	} {
		if r := s.do(req{Path: "/v1/users/" + studentID + "/stats", Token: tok}); r.Status != 200 {
			t.Errorf("stats for %s: %d %s", name, r.Status, r.Body)
		}
	}
	for name, tok := range map[string]string{
		"a reader":                   s.login(demoReader, demoPassword).Access,
		"another school's librarian": otherSchoolLibrarian(t, s),
	} {
		r := s.do(req{Path: "/v1/users/" + studentID + "/stats", Token: tok})
		if code, _ := r.apiError(t); r.Status != 403 || code != "forbidden" {
			t.Errorf("stats for %s: %d %s, want 403 forbidden", name, r.Status, r.Body)
		}
	}
	if r := s.do(req{Path: "/v1/users/usr_" + uuid.NewString() + "/stats", Token: admin}); r.Status != 404 {
		t.Fatalf("stats of an unknown user: %d", r.Status)
	}
}

// scanForAccount returns, per collection (MongoDB) or table (SQLite), how
// many documents or rows mention the account id anywhere.
func scanForAccount(t *testing.T, env map[string]string, accountID string) map[string]int {
	t.Helper()
	if env["LIBRARY_MONGODB_URI"] == "" {
		return scanFileForAccount(t, filepath.Join(env["LIBRARY_DATA_DIR"], app.EmbeddedFile), accountID)
	}
	ctx := context.Background()
	client, err := mongo.Connect(options.Client().ApplyURI(env["LIBRARY_MONGODB_URI"]))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(ctx)
	db := client.Database(env["LIBRARY_MONGODB_DATABASE"])
	names, err := db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]int{}
	for _, name := range names {
		cur, err := db.Collection(name).Find(ctx, bson.D{})
		if err != nil {
			t.Fatal(err)
		}
		var docs []bson.M
		if err := cur.All(ctx, &docs); err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			b, _ := json.Marshal(d)
			if strings.Contains(string(b), accountID) {
				found[name]++
			}
		}
	}
	if len(names) < 5 {
		t.Fatalf("only %d collections scanned: %v", len(names), names)
	}
	return found
}

func TestDeleteMe(t *testing.T) {
	env := testEnv(t, nil)
	s := startService(t, env)
	ctx := context.Background()
	sess := s.login(demoReader, demoPassword)
	acct, _ := s.App.Repos.Accounts.GetByEmail(ctx, demoReader)
	if found := scanForAccount(t, env, acct.ID); found["reading_sessions"] == 0 || found["reading_list"] == 0 || found["refresh_tokens"] == 0 {
		t.Fatalf("the demo reader has no data to delete: %v", found)
	}
	publicID := "usr_" + acct.ID

	r := s.do(req{Method: http.MethodDelete, Path: "/v1/users/me", Token: sess.Access})
	if r.Status != 200 || r.json(t)["success"] != true {
		t.Fatalf("DELETE /v1/users/me: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Path: "/v1/users/me", Token: sess.Access}); r.Status != 401 {
		t.Fatalf("the same token after deletion: %d, want 401", r.Status)
	}
	other := s.login(demoPremium, demoPassword).Access
	if r := s.do(req{Path: "/v1/users/" + publicID, Token: other}); r.Status != 404 {
		t.Fatalf("public profile after deletion: %d, want 404", r.Status)
	}
	if r := s.do(req{Method: http.MethodPost, Path: "/api/auth/refresh", Body: `{"refresh_token":"` + sess.Refresh + `"}`}); r.Status != 401 {
		t.Fatalf("refresh after deletion: %d", r.Status)
	}
	if found := scanForAccount(t, env, acct.ID); len(found) != 0 {
		t.Fatalf("documents still mention the deleted account: %v", found)
	}
	// The email is free again.
	r = s.do(req{Method: http.MethodPost, Path: "/api/auth/signup", Body: `{"email":"` + demoReader + `","password":"violet-orchard-crane","name":"New Rita"}`})
	if r.Status != 201 {
		t.Fatalf("signup with the freed email: %d %s", r.Status, r.Body)
	}
}

// A deletion interrupted after the account was marked is finished at the
// next start.
func TestInterruptedDeletionFinishesAtStart(t *testing.T) {
	env := testEnv(t, nil)
	s := startService(t, env)
	ctx := context.Background()
	s.login(demoReader, demoPassword)
	acct, _ := s.App.Repos.Accounts.GetByEmail(ctx, demoReader)
	acct.Deleted = true // what DeleteMe writes first, before the crash
	if err := s.App.Repos.Accounts.Update(ctx, acct); err != nil {
		t.Fatal(err)
	}
	if found := scanForAccount(t, env, acct.ID); len(found) < 3 {
		t.Fatalf("expected the marked account's data to be there: %v", found)
	}
	startService(t, env) // the next start
	if found := scanForAccount(t, env, acct.ID); len(found) != 0 {
		t.Fatalf("after the next start documents still mention the account: %v", found)
	}
}

func TestExportMe(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	tok := s.login(demoReader, demoPassword).Access
	r := s.do(req{Path: "/v1/users/me/export", Token: tok})
	if r.Status != 200 || !strings.Contains(r.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("export: %d %v", r.Status, r.Header)
	}
	var ex struct {
		Profile     map[string]any   `json:"profile"`
		ReadingList []map[string]any `json:"reading_list"`
		Progress    []map[string]any `json:"progress"`
		Sessions    []map[string]any `json:"reading_sessions"`
		Statistics  map[string]any   `json:"statistics"`
		Loans       []any            `json:"loans"`
	}
	if err := json.Unmarshal(r.Body, &ex); err != nil {
		t.Fatal(err)
	}
	// The demo reader: four listed books, three started, six sessions.
	if ex.Profile["email"] != demoReader || ex.Profile["role"] != "reader" || len(ex.ReadingList) != 4 || len(ex.Progress) != 3 ||
		len(ex.Sessions) != 5 || ex.Statistics["books_completed"] != float64(2) || ex.Loans == nil {
		t.Fatalf("export = profile %v, %d list items, %d progress, %d sessions, stats %v, loans %v",
			ex.Profile, len(ex.ReadingList), len(ex.Progress), len(ex.Sessions), ex.Statistics, ex.Loans)
	}
	if strings.Contains(string(r.Body), "argon2") || strings.Contains(string(r.Body), "password") {
		t.Fatal("the export contains the password hash")
	}
}

// scanFileForAccount reads every row of every table of the embedded store's
// file, read-only, and counts per table the rows with a value that mentions
// the account id.
func scanFileForAccount(t *testing.T, path, accountID string) map[string]int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name FROM sqlite_schema WHERE type = 'table'`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	found := map[string]int{}
	for _, table := range tables {
		rs, err := db.Query(`SELECT * FROM "` + table + `"`)
		if err != nil {
			t.Fatalf("scan %s: %v", table, err)
		}
		cols, _ := rs.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rs.Next() {
			if err := rs.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				text := ""
				switch x := v.(type) {
				case string:
					text = x
				case []byte:
					text = string(x)
				}
				if strings.Contains(text, accountID) {
					found[table]++
					break
				}
			}
		}
		rs.Close()
	}
	if len(tables) < 5 {
		t.Fatalf("only %d tables scanned: %v", len(tables), tables)
	}
	return found
}
