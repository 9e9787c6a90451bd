package test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/readinglibrary/service/cmd/libraryd/app"
	"github.com/readinglibrary/service/core/errs"
)

// TestDeleteStudentRacesLoan races, 50 times, a student deleting their
// account against a librarian lending them a copy. Each time exactly one
// wins: either the loan exists and the deletion answered 409
// active_loans, or the deletion succeeded and the loan was refused
// (student_not_found), with the copy free. Never both.
func TestDeleteStudentRacesLoan(t *testing.T) {
	env := testEnv(t, map[string]string{"LIBRARY_RATE_ANONYMOUS": "100000-H", "LIBRARY_RATE_AUTHENTICATED": "100000-H"})
	s := startService(t, env)
	w := &libraryWorld{s: s}
	lib := s.login(demoLibrarian, demoPassword).Access
	const rounds = 50
	bookID, copies := w.addBook(t, lib, fmt.Sprintf(`{"title":"Race Day","author":"Ana Lopes","copies":%d}`, rounds))
	outcomes := map[string]int{}
	for i := range rounds {
		email := fmt.Sprintf("racer%d@maplegrove.example.org", i)
		r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: lib,
			Body: fmt.Sprintf(`{"name":"Racer %d","email":%q,"password":"brisk-lantern-%04d"}`, i, email, i)})
		if r.Status != 201 {
			t.Fatalf("student %d: %d %s", i, r.Status, r.Body)
		}
		studentID := r.json(t)["student"].(map[string]any)["student_id"].(string)
		student := s.login(email, fmt.Sprintf("brisk-lantern-%04d", i)).Access
		copyID, code := copies[i]["id"].(string), copies[i]["code"].(string)

		var del, loan response
		var start, done sync.WaitGroup
		start.Add(1)
		done.Add(2)
		go func() {
			defer done.Done()
			start.Wait()
			// The loan's request does more work than the deletion's: a
			// delay of 0 to 9 ms shifts their overlap from round to round,
			// so both orders happen.
			time.Sleep(time.Duration(i%10) * time.Millisecond)
			del = s.do(req{Method: http.MethodDelete, Path: "/v1/users/me", Token: student})
		}()
		go func() {
			defer done.Done()
			start.Wait()
			loan = w.lend(lib, bookID, copyID, studentID)
		}()
		start.Done()
		done.Wait()

		errCode := func(r response) string {
			if r.Status < 400 {
				return ""
			}
			c, _ := r.apiError(t)
			return c
		}
		delCode, loanCode := errCode(del), errCode(loan)
		found := s.do(req{Path: "/api/library/copies?code=" + code, Token: lib}).json(t)
		switch {
		case loan.Status == 201 && del.Status == 409 && delCode == "active_loans":
			outcomes["loan won"]++
			if found["loan"] == nil {
				t.Fatalf("round %d: the loan won but the copy shows no loan: %v", i, found)
			}
			if r := s.do(req{Path: "/v1/users/me", Token: student}); r.Status != 200 {
				t.Fatalf("round %d: the refused deletion removed the student: %d", i, r.Status)
			}
		case del.Status == 200 && loan.Status == 404 && loanCode == "student_not_found":
			outcomes["deletion won"]++
			if found["loan"] != nil {
				t.Fatalf("round %d: the loan was refused but the copy is lent: %v", i, found)
			}
			if _, err := s.App.Repos.Accounts.Get(context.Background(), studentID); !errs.Is(err, errs.NotFound) {
				t.Fatalf("round %d: the deleted student's account: %v, want NotFound", i, err)
			}
		default:
			t.Fatalf("round %d: deletion %d %s and loan %d %s; want exactly one to succeed", i, del.Status, del.Body, loan.Status, loan.Body)
		}
	}
	t.Logf("outcomes of %d races: %v", rounds, outcomes)
}

// TestStudentImportCutOffLeavesNothing stops a CSV import in the middle,
// by holding its third write until the request's deadline
// (LIBRARY_REQUEST_TIMEOUT) has passed: the request fails, no student of
// the file exists, and sending the same file again imports all of them.
func TestStudentImportCutOffLeavesNothing(t *testing.T) {
	var armed atomic.Bool
	var writes atomic.Int32
	// The import's writes: on SQLite the statement of each account, on
	// MongoDB each insert command (the batch, its numbers, its accounts,
	// its commit).
	write := "accounts.insert"
	if testStore() == "mongo" {
		write = "insert"
	}
	const timeout = 3 * time.Second
	observe := func(name string) {
		if armed.Load() && name == write && writes.Add(1) == 3 {
			time.Sleep(timeout + 500*time.Millisecond)
		}
	}
	s := startService(t, testEnv(t, map[string]string{"LIBRARY_REQUEST_TIMEOUT": timeout.String()}), app.WithStatementObserver(observe))
	w := &libraryWorld{s: s}
	lib := s.login(demoLibrarian, demoPassword).Access
	school := w.settings(lib, "")["school_id"].(string)

	var b strings.Builder
	b.WriteString("name,email,student_number\n")
	for i := range 6 {
		fmt.Fprintf(&b, "Cutoff Pupil%d,cutoff%d@maplegrove.example.org,CUT-%d\n", i, i, i)
	}
	file := b.String()
	send := func() response {
		return s.do(req{Method: http.MethodPost, Path: "/api/library/students/import", Token: lib, Body: file,
			Headers: map[string]string{"Content-Type": "text/csv"}})
	}
	listed := func() int {
		r := s.do(req{Path: "/api/library/students?search=cutoff", Token: lib})
		var page struct {
			Pagination struct {
				Total int `json:"total"`
			} `json:"pagination"`
		}
		if r.Status != 200 || json.Unmarshal(r.Body, &page) != nil {
			t.Fatalf("student list: %d %s", r.Status, r.Body)
		}
		return page.Pagination.Total
	}

	armed.Store(true)
	r := send()
	armed.Store(false)
	if r.Status != 503 {
		t.Fatalf("import held past its deadline: %d %s, want 503", r.Status, r.Body)
	}
	if writes.Load() < 3 {
		t.Fatalf("the import made %d writes: it was not cut off in the middle", writes.Load())
	}
	if n := listed(); n != 0 {
		t.Fatalf("a cut-off import left %d students listed, want none", n)
	}
	for i := range 6 {
		if _, err := s.App.Repos.Accounts.GetByEmail(context.Background(), fmt.Sprintf("cutoff%d@maplegrove.example.org", i)); !errs.Is(err, errs.NotFound) {
			t.Fatalf("student %d of the cut-off import: %v, want NotFound", i, err)
		}
	}
	if taken, err := s.App.Repos.Students.TakenNumbers(context.Background(), school, []string{"CUT-0", "CUT-5"}); err != nil || len(taken) != 0 {
		t.Fatalf("numbers of the cut-off import: %v %v, want none taken", taken, err)
	}

	if r := send(); r.Status != 201 {
		t.Fatalf("the same file again: %d %s", r.Status, r.Body)
	}
	if n := listed(); n != 6 {
		t.Fatalf("%d students listed after the import, want 6", n)
	}
}

// TestStudentImportRefusedLeavesNothing sends a file whose middle line is
// refused (an email with an account) and then without that line.
func TestStudentImportRefusedLeavesNothing(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	send := func(file string) response {
		return s.do(req{Method: http.MethodPost, Path: "/api/library/students/import", Token: w.libA, Body: file,
			Headers: map[string]string{"Content-Type": "text/csv"}})
	}
	file := "name,email,student_number\nRefused One,refused1@maplegrove.example.org,REF-1\n" +
		"Refused Two," + demoStudent + ",REF-2\nRefused Three,refused3@maplegrove.example.org,REF-3\n"
	if r := send(file); r.Status != 422 {
		t.Fatalf("a file with a taken email: %d %s, want 422", r.Status, r.Body)
	}
	r := s.do(req{Path: "/api/library/students?search=refused", Token: w.libA})
	if !strings.Contains(string(r.Body), `"total":0`) {
		t.Fatalf("the refused file left students: %s", r.Body)
	}
	if taken, _ := s.App.Repos.Students.TakenNumbers(context.Background(), w.schoolA, []string{"REF-1", "REF-3"}); len(taken) != 0 {
		t.Fatalf("the refused file took numbers %v", taken)
	}
	file = strings.Replace(file, demoStudent, "refused2@maplegrove.example.org", 1)
	if r := send(file); r.Status != 201 {
		t.Fatalf("the file fixed: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Path: "/api/library/students?search=refused", Token: w.libA}); !strings.Contains(string(r.Body), `"total":3`) {
		t.Fatalf("after the fixed file: %s", r.Body)
	}
}
