package test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/readinglibrary/service/cmd/libraryd/app"
	"github.com/readinglibrary/service/core/holdingsfile"
)

// holdingsRows streams a holdings CSV of n rows of one book each.
type holdingsRows struct {
	n, i int
	buf  []byte
}

func (h *holdingsRows) Read(p []byte) (int, error) {
	for len(h.buf) == 0 {
		if h.i > h.n {
			return 0, io.EOF
		}
		if h.i == 0 {
			h.buf = []byte("title,author,barcode,subjects\n")
		} else {
			h.buf = []byte(fmt.Sprintf("Big Book %d,Some Author,BIG-%07d,%s\n", h.i, h.i, strings.Repeat("x", 900)))
		}
		h.i++
	}
	n := copy(p, h.buf)
	h.buf = h.buf[n:]
	return n, nil
}

// spooled lists the files of a spool directory.
func spooled(t *testing.T, dir string) []os.DirEntry {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

func apiCode(t *testing.T, r response) string {
	t.Helper()
	e, _ := r.json(t)["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

// TestHoldingsImportOverTheCap sends a CSV past the 64 MiB cap without a
// length (chunked, so the cap is met while the body streams in) and with
// one: 413 payload_too_large, nothing imported, nothing left in the spool.
func TestHoldingsImportOverTheCap(t *testing.T) {
	dir := t.TempDir()
	w := newLibraryWorldWith(t, map[string]string{"LIBRARY_UPLOAD_DIR": dir})
	books0, copies0 := holdingsCount(t, w)
	rows := holdingsfile.MaxHoldingsBytes/900 + 100 // rows are over 930 bytes
	for _, chunked := range []bool{true, false} {
		var body io.Reader = &holdingsRows{n: rows}
		length := int64(-1)
		if !chunked {
			b, _ := io.ReadAll(body)
			length = int64(len(b))
			body = strings.NewReader(string(b))
		}
		hr, err := http.NewRequest(http.MethodPost, w.s.URL+"/api/library/holdings/imports?format=csv&dry_run=false", io.NopCloser(body))
		if err != nil {
			t.Fatal(err)
		}
		hr.ContentLength = length
		hr.Header.Set("Content-Type", "text/csv")
		hr.Header.Set("Authorization", "Bearer "+w.libA)
		resp, err := http.DefaultClient.Do(hr)
		if err != nil {
			t.Fatalf("chunked=%t: %v", chunked, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		checkAgainstDocument(t, hr, resp.StatusCode, resp.Header, b)
		r := response{Status: resp.StatusCode, Header: resp.Header, Body: b, resp: resp}
		if r.Status != http.StatusRequestEntityTooLarge || apiCode(t, r) != "payload_too_large" {
			t.Fatalf("chunked=%t: a file past the cap: %d %s, want 413 payload_too_large", chunked, r.Status, r.Body)
		}
		if n := len(spooled(t, dir)); n != 0 {
			t.Fatalf("chunked=%t: %d files left in the spool", chunked, n)
		}
	}
	if b, c := holdingsCount(t, w); b != books0 || c != copies0 {
		t.Fatalf("after refused files: %d books, %d copies; want %d, %d", b, c, books0, copies0)
	}
	if r := w.s.do(req{Path: "/api/library/copies?code=BIG-0000001", Token: w.libA}); r.Status != 404 {
		t.Fatalf("a barcode of the refused file: %d %s, want 404", r.Status, r.Body)
	}
}

// TestHoldingsImportReportListsFirstProblems checks a file of 150 bad
// lines: the dry run lists the first 100 problems and counts 150, and a
// commit is refused with the first 100 lines and their total.
func TestHoldingsImportReportListsFirstProblems(t *testing.T) {
	w := newLibraryWorld(t)
	books0, copies0 := holdingsCount(t, w)
	var b strings.Builder
	b.WriteString("title,author,barcode,year\n")
	for i := 1; i <= 150; i++ {
		fmt.Fprintf(&b, "Book %d,Author,CAP-%04d,not a year\n", i, i)
	}
	r := w.importHoldings(w.libA, "csv", b.String(), true)
	rep := decodeImportReport(t, r, 200)
	total, _ := r.json(t)["report"].(map[string]any)["problems_total"].(float64)
	if len(rep.Problems) != 100 || total != 150 || rep.Problems[0].Line != 2 || rep.Problems[99].Line != 101 {
		t.Fatalf("dry run: %d problems listed (lines %v...), problems_total %v; want the first 100 of 150", len(rep.Problems), rep.Problems[:min(len(rep.Problems), 1)], total)
	}
	r = w.importHoldings(w.libA, "csv", b.String(), false)
	if r.Status != 422 || apiCode(t, r) != "validation_failed" {
		t.Fatalf("commit: %d %s, want 422 validation_failed", r.Status, r.Body)
	}
	details := r.json(t)["error"].(map[string]any)["details"].(map[string]any)
	if lines := details["lines"].([]any); len(lines) != 100 || details["lines_total"] != float64(150) {
		t.Fatalf("refused commit: %d lines, lines_total %v; want 100 of 150", len(lines), details["lines_total"])
	}
	if b, c := holdingsCount(t, w); b != books0 || c != copies0 {
		t.Fatalf("after the refused commit: %d books, %d copies; want %d, %d", b, c, books0, copies0)
	}
}

// holdImport is an import-reading hook whose first call waits until
// released: the import it belongs to stays in progress, holding its slot.
type holdImport struct {
	calls   atomic.Int32
	entered chan struct{}
	release chan struct{}
	// look, when set, is called on every import while it reads.
	look func()
}

func newHoldImport() *holdImport {
	return &holdImport{entered: make(chan struct{}), release: make(chan struct{})}
}

func (h *holdImport) reading(ctx context.Context) {
	if h.look != nil {
		h.look()
	}
	if h.calls.Add(1) != 1 {
		return
	}
	close(h.entered)
	select {
	case <-h.release:
	case <-ctx.Done():
	}
}

// TestHoldingsImportsBusy runs with LIBRARY_MAX_IMPORTS=1: while one
// import is being read, another is answered 503 imports_busy with
// Retry-After and stores nothing; once the first ends, imports are taken
// again.
func TestHoldingsImportsBusy(t *testing.T) {
	hold := newHoldImport()
	w := newLibraryWorldWith(t, map[string]string{"LIBRARY_MAX_IMPORTS": "1"}, app.WithImportReading(hold.reading))
	books0, copies0 := holdingsCount(t, w)
	first := make(chan response, 1)
	go func() {
		first <- w.s.do(req{Method: http.MethodPost, Token: w.libA, Body: "title,author,barcode\nFirst Book,Ann Author,BUSY-0001\n",
			Headers: map[string]string{"Content-Type": "text/csv"}, Path: "/api/library/holdings/imports?format=csv&dry_run=false"})
	}()
	select {
	case <-hold.entered:
	case r := <-first:
		t.Fatalf("the first import ended before it was read: %d %s", r.Status, r.Body)
	}
	for _, dryRun := range []bool{false, true} {
		r := w.importHoldings(w.libA, "csv", "title,author,barcode\nSecond Book,Bo Author,BUSY-0002\n", dryRun)
		if r.Status != http.StatusServiceUnavailable || apiCode(t, r) != "imports_busy" {
			t.Fatalf("dry_run=%t while another import is read: %d %s, want 503 imports_busy", dryRun, r.Status, r.Body)
		}
		if s, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || s < 1 {
			t.Fatalf("Retry-After = %q, want seconds", r.Header.Get("Retry-After"))
		}
	}
	close(hold.release)
	if r := <-first; r.Status != 201 {
		t.Fatalf("the first import: %d %s, want 201", r.Status, r.Body)
	}
	if b, c := holdingsCount(t, w); b != books0+1 || c != copies0+1 {
		t.Fatalf("after the imports: %d books, %d copies; want %d, %d (the first only)", b, c, books0+1, copies0+1)
	}
	if r := w.s.do(req{Path: "/api/library/copies?code=BUSY-0002", Token: w.libA}); r.Status != 404 {
		t.Fatalf("the busy import's barcode: %d %s, want 404", r.Status, r.Body)
	}
	rep := decodeImportReport(t, w.importHoldings(w.libA, "csv", "title,author,barcode\nSecond Book,Bo Author,BUSY-0002\n", false), 201)
	if rep.CopiesAdded != 1 {
		t.Fatalf("an import after the first ended: %+v, want one copy added", rep)
	}
}

// TestHoldingsUploadSpool checks the spool: while an import is read its
// file is there, mode 0600 in a directory of mode 0700; after a dry run,
// a commit and a background job, through the API or the desk's form, the
// directory is empty; a file a previous
// process left is removed at start.
func TestHoldingsUploadSpool(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/upload-left-by-a-crash", []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	hold := newHoldImport()
	close(hold.release)
	var (
		mu   sync.Mutex
		seen []string
	)
	hold.look = func() {
		entries, _ := os.ReadDir(dir)
		mu.Lock()
		defer mu.Unlock()
		for _, e := range entries {
			if fi, err := e.Info(); err == nil {
				seen = append(seen, fmt.Sprintf("%s %v", e.Name(), fi.Mode().Perm()))
			}
		}
	}
	w := newLibraryWorldWith(t, map[string]string{"LIBRARY_UPLOAD_DIR": dir}, app.WithImportReading(hold.reading))
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("spool dir: %v %v, want mode 0700", fi, err)
	}
	if n := len(spooled(t, dir)); n != 0 {
		t.Fatalf("%d files in the spool after start, want the leftover removed", n)
	}
	file := "title,author,barcode\nSpool Book,Cy Author,SPOOL-0001\n"
	decodeImportReport(t, w.importHoldings(w.libA, "csv", file, true), 200)
	decodeImportReport(t, w.importHoldings(w.libA, "csv", file, false), 201)
	if n := len(spooled(t, dir)); n != 0 {
		t.Fatalf("%d files in the spool after a dry run and a commit, want 0", n)
	}
	job := decodeImportJob(t, w.startImportJob(w.libA, "title,author,barcode\nSpool Book,Cy Author,SPOOL-0002\n", false), 202)
	if done := awaitImportJob(t, w, w.libA, job.ID, time.Minute); done.State != "done" {
		t.Fatalf("job: %+v, want done", done)
	}
	if n := len(spooled(t, dir)); n != 0 {
		t.Fatalf("%d files in the spool after the job ended, want 0", n)
	}
	// The desk's form: the chosen file, then the checked one the report
	// carries back, each read from the spool, never held whole.
	b := newBrowser(t, w.s)
	if p := b.signIn(demoLibrarian, demoPassword); p.Status != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", p.Status)
	}
	checked := b.postHoldingsForm(map[string]string{"format": "csv", "action": "check"}, []byte("title,author,barcode\nDesk Book,Di Author,SPOOL-0003\n"))
	if checked.Status != 200 || !strings.Contains(checked.text("report-copies"), "1 new copy") {
		t.Fatalf("desk check: %d %q", checked.Status, checked.text("report-copies"))
	}
	if n := len(spooled(t, dir)); n != 0 {
		t.Fatalf("%d files in the spool after the desk's check, want 0", n)
	}
	if p := b.postHoldingsForm(commitFormFields(checked), nil); p.Status != http.StatusSeeOther {
		t.Fatalf("desk import: %d\n%.2000s", p.Status, p.Body)
	}
	if r := w.s.do(req{Path: "/api/library/copies?code=SPOOL-0003", Token: w.libA}); r.Status != 200 {
		t.Fatalf("the desk's import stored no copy: %d %s", r.Status, r.Body)
	}
	if n := len(spooled(t, dir)); n != 0 {
		t.Fatalf("%d files in the spool after the desk's import, want 0", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 5 {
		t.Fatalf("spooled files seen while importing: %v, want one for each of 5 imports", seen)
	}
	for _, s := range seen {
		if !strings.HasSuffix(s, " -rw-------") {
			t.Fatalf("spooled file %s, want mode 0600", s)
		}
	}
}
