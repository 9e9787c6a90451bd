package test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/labels/labelstest"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/library"
)

// putSettings sends the school's settings as tok with extra JSON members
// (the copy caps) after the four loan fields.
func (w *libraryWorld) putSettings(tok, extra string) response {
	body := `{"default_loan_days":14,"max_renewals":2,"renewal_days":7,"allow_public_catalog":true` + extra + `}`
	return w.s.do(req{Method: http.MethodPut, Path: "/api/library/settings", Token: tok, Body: body})
}

// addCopies adds n copies of a book as tok.
func (w *libraryWorld) addCopies(tok, bookID string, n int) response {
	return w.s.do(req{Method: http.MethodPost, Path: "/api/library/copies", Token: tok, Body: fmt.Sprintf(`{"book_id":%q,"count":%d}`, bookID, n)})
}

// wantCopyLimit checks a 409 copy_limit_reached for scope with its cap.
func wantCopyLimit(t *testing.T, what string, r response, scope string, limit int) {
	t.Helper()
	code, details := r.apiError(t)
	if r.Status != 409 || code != "copy_limit_reached" {
		t.Fatalf("%s: %d %s, want 409 copy_limit_reached", what, r.Status, r.Body)
	}
	if details["scope"] != scope || details["limit"] != float64(limit) {
		t.Fatalf("%s: details %v, want scope %s and limit %d", what, details, scope, limit)
	}
}

// TestCopyCaps checks the school's caps on copies per book and per school:
// their defaults and validation in the settings, and that adding copies
// past either is refused with 409 copy_limit_reached, storing nothing.
func TestCopyCaps(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	ctx := context.Background()

	got := w.settings(w.libA, "")
	if got["max_copies_per_book"] != float64(library.DefaultMaxCopiesPerBook) || got["max_copies_per_school"] != float64(library.DefaultMaxCopiesPerSchool) {
		t.Fatalf("default caps: %v, want %d per book and %d per school", got, library.DefaultMaxCopiesPerBook, library.DefaultMaxCopiesPerSchool)
	}
	for _, bad := range []string{`,"max_copies_per_book":0`, `,"max_copies_per_book":5001`, `,"max_copies_per_school":0`,
		`,"max_copies_per_school":1000001`, `,"max_copies_per_book":"9"`} {
		if r := w.putSettings(w.libA, bad); r.Status != 422 {
			t.Errorf("settings with %s: %d %s, want 422", bad, r.Status, r.Body)
		}
	}

	// Per book: 5 copies.
	if r := w.putSettings(w.libA, `,"max_copies_per_book":5`); r.Status != 200 || r.json(t)["max_copies_per_book"] != float64(5) {
		t.Fatalf("set the book cap: %d %s", r.Status, r.Body)
	}
	// Settings sent without the caps keep them.
	if r := w.putSettings(w.libA, ``); r.Status != 200 || r.json(t)["max_copies_per_book"] != float64(5) {
		t.Fatalf("settings without caps: %d %s, want the cap of 5 kept", r.Status, r.Body)
	}
	bookID, _ := w.addBook(t, w.libA, `{"title":"Capped Tales","author":"Ana Lopes","copies":3}`)
	if r := w.addCopies(w.libA, bookID, 2); r.Status != 201 {
		t.Fatalf("copies up to the cap: %d %s", r.Status, r.Body)
	}
	r := w.addCopies(w.libA, bookID, 1)
	wantCopyLimit(t, "a copy past the book's cap", r, "book", 5)
	if counts, err := s.App.Repos.Holdings.CopyCounts(ctx, w.schoolA, []string{bookID}); err != nil || counts[bookID] != 5 {
		t.Fatalf("copies of the book after the refusal: %v %v, want 5", counts, err)
	}
	r = s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: w.libA, Body: `{"title":"Too Many Tales","author":"Ana Lopes","copies":6}`})
	wantCopyLimit(t, "a book created past the cap", r, "book", 5)
	if _, n, err := s.App.Repos.Holdings.BooksPage(ctx, library.BookQuery{SchoolID: w.schoolA, Terms: catalog.QueryTerms("too many tales"), Limit: 10}); err != nil || n != 0 {
		t.Fatalf("the refused book was stored: %d books (%v)", n, err)
	}

	// A cap lowered below what a book already has keeps its copies (the
	// school owns them) and refuses more.
	if r := w.putSettings(w.libA, `,"max_copies_per_book":2`); r.Status != 200 {
		t.Fatalf("lower the book cap below a book's copies: %d %s", r.Status, r.Body)
	}
	wantCopyLimit(t, "a copy with the cap lowered to 2", w.addCopies(w.libA, bookID, 1), "book", 2)
	if counts, err := s.App.Repos.Holdings.CopyCounts(ctx, w.schoolA, []string{bookID}); err != nil || counts[bookID] != 5 {
		t.Fatalf("copies of the book after lowering the cap: %v %v, want the 5 it had", counts, err)
	}

	// Per school: room for exactly 2 more copies.
	have, err := s.App.Repos.Holdings.CountSchoolCopies(ctx, w.schoolA, library.MaxCopiesPerSchoolLimit)
	if err != nil {
		t.Fatal(err)
	}
	if r := w.putSettings(w.libA, fmt.Sprintf(`,"max_copies_per_book":1000,"max_copies_per_school":%d`, have+2)); r.Status != 200 {
		t.Fatalf("set the school cap: %d %s", r.Status, r.Body)
	}
	other, _ := w.addBook(t, w.libA, `{"title":"School Capped","author":"Ana Lopes"}`)
	wantCopyLimit(t, "3 copies with room for 2", w.addCopies(w.libA, other, 3), "school", have+2)
	if n, _ := s.App.Repos.Holdings.CountSchoolCopies(ctx, w.schoolA, library.MaxCopiesPerSchoolLimit); n != have {
		t.Fatalf("the school has %d copies after the refusal, want %d", n, have)
	}
	if r := w.addCopies(w.libA, other, 2); r.Status != 201 {
		t.Fatalf("copies up to the school's cap: %d %s", r.Status, r.Body)
	}
	wantCopyLimit(t, "a copy past the school's cap", w.addCopies(w.libA, other, 1), "school", have+2)
	// Another school is not held by A's caps.
	bookB, _ := w.addBook(t, w.libB, `{"title":"Riverside Tales","author":"Ana Lopes","copies":10}`)
	if r := w.addCopies(w.libB, bookB, 10); r.Status != 201 {
		t.Fatalf("school B's copies: %d %s", r.Status, r.Body)
	}
}

// labelCodes returns the copy codes printed on a labels PDF, in order.
func labelCodes(t *testing.T, pdf []byte) []string {
	t.Helper()
	pages, err := labelstest.Read(pdf)
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, p := range pages {
		for _, tx := range p.Strings() {
			if library.ValidCopyCode(tx) {
				codes = append(codes, tx)
			}
		}
	}
	return codes
}

// TestLabelPages checks that label PDFs are paged: page and limit choose
// the copies, X-Total-Count gives the book's total, a page past the last
// is 404 and a limit over the bound 422.
func TestLabelPages(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	bookID, copies := w.addBook(t, w.libA, `{"title":"Paged Labels","author":"Ana Lopes","copies":25}`)
	var all []string
	for _, c := range copies {
		all = append(all, c["code"].(string))
	}
	path := "/api/library/copies/labels?book_id=" + bookID
	var printed []string
	for page, want := range map[int]int{1: 10, 2: 10, 3: 5} {
		r := s.do(req{Path: fmt.Sprintf("%s&page=%d&limit=10", path, page), Token: w.libA})
		if r.Status != 200 {
			t.Fatalf("page %d: %d %s", page, r.Status, r.Body)
		}
		if r.Header.Get("X-Total-Count") != "25" {
			t.Errorf("page %d: X-Total-Count %q, want 25", page, r.Header.Get("X-Total-Count"))
		}
		codes := labelCodes(t, r.Body)
		if len(codes) != want {
			t.Fatalf("page %d has %d labels, want %d", page, len(codes), want)
		}
		printed = append(printed, codes...)
	}
	seen := map[string]bool{}
	for _, c := range printed {
		seen[c] = true
	}
	for _, c := range all {
		if !seen[c] {
			t.Errorf("copy %s is on no page", c)
		}
	}
	if len(seen) != 25 {
		t.Errorf("the pages print %d different codes, want 25", len(seen))
	}
	// The default page holds them all.
	if r := s.do(req{Path: path, Token: w.libA}); r.Status != 200 || len(labelCodes(t, r.Body)) != 25 {
		t.Fatalf("default page: %d", r.Status)
	}
	if r := s.do(req{Path: path + "&page=4&limit=10", Token: w.libA}); r.Status != 404 {
		t.Errorf("a page past the last: %d %s, want 404", r.Status, r.Body)
	}
	for _, bad := range []string{"&limit=421", "&limit=0", "&page=0", "&page=x"} {
		if r := s.do(req{Path: path + bad, Token: w.libA}); r.Status != 422 && r.Status != 400 {
			t.Errorf("%s: %d %s, want 422 (or 400 for a non-number)", bad, r.Status, r.Body)
		}
	}
}

// TestLabelMemory runs the built service as a separate process, fills a
// book to the largest cap a school may set (5,000 copies) and asks for its
// labels three times at once, at the largest page: the process's peak
// resident memory (VmHWM) must stay under 300 MiB.
func TestLabelMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	env := testEnv(t, map[string]string{"LIBRARY_ADDR": "127.0.0.1:" + strconv.Itoa(freePort(t))})
	var kv []string
	for k, v := range env {
		kv = append(kv, k+"="+v)
	}
	b := runBinary(t, kv...)
	b.waitFor(t, "Try it:", 30*time.Second)
	s := &service{URL: b.base, t: t}
	lib := s.login(demoLibrarian, demoPassword).Access
	w := &libraryWorld{s: s}
	if r := w.putSettings(lib, fmt.Sprintf(`,"max_copies_per_book":%d`, library.MaxCopiesPerBookLimit)); r.Status != 200 {
		t.Fatalf("raise the book cap: %d %s", r.Status, r.Body)
	}
	bookID, _ := w.addBook(t, lib, `{"title":"The Largest Book","author":"Ana Lopes","copies":1000}`)
	for n := 1000; n < library.MaxCopiesPerBookLimit; n += 500 {
		if r := w.addCopies(lib, bookID, 500); r.Status != 201 {
			t.Fatalf("copies %d+: %d %s", n, r.Status, r.Body)
		}
	}
	wantCopyLimit(t, "a copy past the largest cap", w.addCopies(lib, bookID, 1), "book", library.MaxCopiesPerBookLimit)

	before := peakRSS(t, b.cmd.Process.Pid)
	var wg sync.WaitGroup
	results := make([]response, 3)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The last full pages of the book, 420 labels each.
			results[i] = s.do(req{Path: fmt.Sprintf("/api/library/copies/labels?book_id=%s&limit=420&page=%d", bookID, 9+i), Token: lib})
		}()
	}
	wg.Wait()
	for i, r := range results {
		if r.Status != 200 || len(labelCodes(t, r.Body)) != 420 {
			t.Fatalf("labels request %d: %d (%d bytes)", i, r.Status, len(r.Body))
		}
	}
	peak := peakRSS(t, b.cmd.Process.Pid)
	t.Logf("service peak RSS: %.1f MiB before the label requests, %.1f MiB after 3 parallel pages of 420 labels of a 5,000-copy book", mib(before), mib(peak))
	if peak >= 300<<20 {
		t.Fatalf("peak RSS %.1f MiB, want under 300 MiB", mib(peak))
	}
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// peakRSS reads the process's peak resident set size (VmHWM) in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q: %v", rest, err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/<pid>/status")
	return 0
}
