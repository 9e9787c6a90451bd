package test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/readinglibrary/service/cmd/libraryd/app"
)

// `libraryd backup` copies the embedded store while the service keeps
// serving writes; the copy, put in place of library.db in a new data
// directory, starts and answers: everything written before the backup
// began is there, and what it holds is consistent (every copy on loan is
// counted as on loan in the catalog, every student listed is one that was
// acknowledged or in flight). A backup never overwrites a file.
func TestBackupWhileServingAndRestore(t *testing.T) {
	if testStore() == "mongo" {
		t.Skip("the embedded store's backup; this run is on MongoDB")
	}
	// The writers send far more than an hour's budget of one account.
	env := testEnv(t, map[string]string{"LIBRARY_RATE_AUTHENTICATED": "10000000-H"})
	s := startService(t, env)
	w := &libraryWorld{s: s}
	lib := s.login(demoLibrarian, demoPassword).Access
	w.libA = lib

	// Before the backup: students, a book and a loan.
	var before []string
	for i := range 10 {
		n := fmt.Sprintf("BK-PRE-%d", i)
		if r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: lib, Body: fmt.Sprintf(`{"name":"Before %d","student_number":%q}`, i, n)}); r.Status != 201 {
			t.Fatalf("student: %d %s", r.Status, r.Body)
		}
		before = append(before, n)
	}
	studentID := s.do(req{Path: "/api/library/students?search=BK-PRE-0", Token: lib}).json(t)["students"].([]any)[0].(map[string]any)["student_id"].(string)
	bookID, copies := w.addBook(t, lib, `{"title":"Backup Before","author":"Ada Archive","copies":2}`)
	loanID := w.lend(lib, bookID, copies[0]["id"].(string), studentID).json(t)["loan"].(map[string]any)["id"].(string)

	// During the backup: four writers keep adding students and books.
	var stopWriters atomic.Bool
	var written atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	sent := map[string]bool{} // student numbers sent, answered or not
	for c := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stopWriters.Load(); i++ {
				n := fmt.Sprintf("BK-DUR-%d-%d", c, i)
				mu.Lock()
				sent[n] = true
				mu.Unlock()
				if r := doWith(t, http.DefaultClient, s.URL, req{Method: http.MethodPost, Path: "/api/library/students", Token: lib,
					Body: fmt.Sprintf(`{"name":"During %d %d","student_number":%q}`, c, i, n)}); r.Status == 201 {
					written.Add(1)
				}
				doWith(t, http.DefaultClient, s.URL, req{Method: http.MethodPost, Path: "/api/library/books", Token: lib,
					Body: fmt.Sprintf(`{"title":"During %d %d","author":"Busy Writer","copies":1}`, c, i)})
			}
		}()
	}
	for written.Load() < 40 {
		time.Sleep(5 * time.Millisecond) // the writers are under way
	}
	file := filepath.Join(t.TempDir(), "copy.db")
	var out bytes.Buffer
	err := app.RunBackup(context.Background(), func(k string) string { return env[k] }, []string{file}, &out, &out)
	stopWriters.Store(true)
	wg.Wait()
	if err != nil {
		t.Fatalf("libraryd backup: %v\n%s", err, out.String())
	}
	t.Logf("libraryd backup: %s", strings.TrimSpace(out.String()))

	// A second backup to the same file is refused and leaves it alone.
	info, _ := os.Stat(file)
	if err := app.RunBackup(context.Background(), func(k string) string { return env[k] }, []string{file}, &out, &out); err == nil {
		t.Fatal("a backup onto an existing file succeeded, want a refusal")
	}
	if again, _ := os.Stat(file); again.Size() != info.Size() || !again.ModTime().Equal(info.ModTime()) {
		t.Fatal("the refused backup changed the existing file")
	}

	// Restore into a new data directory and start there.
	dir := t.TempDir()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, app.EmbeddedFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
	// The secret key that encrypts the signing keys is kept apart from the
	// backups; the restore puts it back beside the copy (README).
	key, err := os.ReadFile(filepath.Join(env["LIBRARY_DATA_DIR"], "secret.key"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "secret.key"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	restored := startService(t, map[string]string{"LIBRARY_DATA_DIR": dir, "LIBRARY_DEMO_DATA": "false", "LIBRARY_COOKIE_SECURE": "false"})
	lib2 := restored.login(demoLibrarian, demoPassword).Access
	numbers := map[string]bool{}
	for page := 1; ; page++ {
		r := restored.do(req{Path: fmt.Sprintf("/api/library/students?search=BK&limit=100&page=%d", page), Token: lib2}).json(t)
		for _, st := range r["students"].([]any) {
			numbers[st.(map[string]any)["student_number"].(string)] = true
		}
		if float64(page) >= r["pagination"].(map[string]any)["total_pages"].(float64) {
			break
		}
	}
	for _, n := range before {
		if !numbers[n] {
			t.Errorf("student %s, added before the backup, is not in the restored copy", n)
		}
	}
	for n := range numbers {
		if !strings.HasPrefix(n, "BK-PRE-") && !sent[n] {
			t.Errorf("the restored copy holds student %s, which nobody sent", n)
		}
	}
	// No loan was made during the backup: the copy lists the same ones.
	loanIDs := func(s *service, token string) string {
		var ids []string
		for _, l := range s.do(req{Path: "/api/library/loans", Token: token}).json(t)["loans"].([]any) {
			ids = append(ids, l.(map[string]any)["id"].(string))
		}
		sort.Strings(ids)
		return strings.Join(ids, ",")
	}
	if got, want := loanIDs(restored, lib2), loanIDs(s, lib); got != want || !strings.Contains(got, loanID) {
		t.Fatalf("loans in the restored copy: %s, want %s (with %s)", got, want, loanID)
	}
	got := (&libraryWorld{s: restored}).catalogOf(t, "maplegrove.example.org")[bookID]
	if got["total_copies"] != float64(2) || got["available_copies"] != float64(1) {
		t.Fatalf("the book lent before the backup, in the restored copy: %v, want 1 of 2 available", got)
	}
	// The audit log is in the copy: each student added before the backup
	// has its entry there.
	logged := map[string]bool{}
	q := url.Values{"action": {"student.created"}, "limit": {"200"}}
	for range 100 {
		page := (&libraryWorld{s: restored}).audit(t, lib2, q)
		for _, e := range page.Entries {
			if _, n, ok := e.change("student_number"); ok {
				logged[n] = true
			}
		}
		if page.NextCursor == "" {
			break
		}
		q.Set("cursor", page.NextCursor)
	}
	for _, n := range before {
		if !logged[n] {
			t.Errorf("the audit log of the restored copy has no entry of student %s, added before the backup", n)
		}
	}
	if len(numbers) < len(before)+40 {
		t.Errorf("the restored copy holds %d students; the 40 acknowledged before the backup began are missing", len(numbers)-len(before))
	}
	t.Logf("restored copy: %d students (%d written before the backup, the rest by the writers; %d acknowledged in all)", len(numbers), len(before), written.Load())
}
