package test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
)

// Stocktakes over HTTP (both stores: LIBRARY_TEST_STORE=mongo): open a
// range, scan, double scan, a scanner's file, close, the report's three
// lists, check-in from the report, mark the missing copies lost (twice).

func (w *libraryWorld) stocktakePost(tok, path, body string) response {
	return w.s.do(req{Method: http.MethodPost, Path: "/api/library/stocktakes" + path, Token: tok, Body: body})
}

func (w *libraryWorld) openStocktake(t *testing.T, from, to string) string {
	t.Helper()
	r := w.stocktakePost(w.libA, "", fmt.Sprintf(`{"from":%q,"to":%q}`, from, to))
	if r.Status != 201 {
		t.Fatalf("open stocktake %s..%s: %d %s", from, to, r.Status, r.Body)
	}
	return r.json(t)["stocktake"].(map[string]any)["id"].(string)
}

// shelfBook adds a book with a call number and n copies; it returns the
// book id and the copies' codes and ids.
func (w *libraryWorld) shelfBook(t *testing.T, title, callNumber string, n int) (string, []map[string]any) {
	t.Helper()
	return w.addBook(t, w.libA, fmt.Sprintf(`{"title":%q,"author":"Shelf Author","copies":%d,"call_number":%q}`, title, n, callNumber))
}

type stocktakeReport struct {
	Stocktake      map[string]any   `json:"stocktake"`
	Missing        []map[string]any `json:"missing"`
	MissingTotal   int              `json:"missing_total"`
	OnLoan         []map[string]any `json:"on_loan"`
	OnLoanTotal    int              `json:"on_loan_total"`
	Misplaced      []map[string]any `json:"misplaced"`
	MisplacedTotal int              `json:"misplaced_total"`
}

func (w *libraryWorld) stocktakeReport(t *testing.T, id string) stocktakeReport {
	t.Helper()
	r := w.s.do(req{Path: "/api/library/stocktakes/" + id + "/report", Token: w.libA})
	if r.Status != 200 {
		t.Fatalf("report: %d %s", r.Status, r.Body)
	}
	var rep stocktakeReport
	if err := json.Unmarshal(r.Body, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

func codesOf(list []map[string]any) []string {
	out := make([]string, 0, len(list))
	for _, c := range list {
		out = append(out, c["code"].(string))
	}
	sort.Strings(out)
	return out
}

func sortedCodes(codes ...string) []string {
	sort.Strings(codes)
	return codes
}

// TestStocktakeOfARange walks a stocktake of call numbers 500 to 599 from
// opening to marking its missing copies lost.
func TestStocktakeOfARange(t *testing.T) {
	w := newLibraryWorld(t)
	_, birds := w.shelfBook(t, "Birds of the Marsh", "598.2 SMI", 3)
	_, mammals := w.shelfBook(t, "Mammals", "599.7 ALD", 1)
	lentID, lent := w.shelfBook(t, "Rocks", "552 ROC", 1)
	_, history := w.shelfBook(t, "Old Kingdoms", "932 HIS", 1)
	_, fiction := w.shelfBook(t, "Outside the Range", "FIC DAH", 1)
	loanID := w.lendOK(t, lentID, lent[0], w.studentAID)["id"].(string)

	id := w.openStocktake(t, "500", "599")
	scan := func(code string) response {
		return w.stocktakePost(w.libA, "/"+id+"/scans", fmt.Sprintf(`{"code":%q}`, code))
	}

	// One scan, then the same code again (lowercase, without dashes, as a
	// scanner may send it): it counts once.
	r := scan(birds[0]["code"].(string))
	if r.Status != 201 || r.json(t)["status"] != "scanned" || r.json(t)["scanned"] != float64(1) || r.json(t)["misplaced"] != false {
		t.Fatalf("first scan: %d %s", r.Status, r.Body)
	}
	again := strings.ToLower(strings.ReplaceAll(birds[0]["code"].(string), "-", ""))
	r = scan(again)
	if r.Status != 200 || r.json(t)["status"] != "already_scanned" || r.json(t)["scanned"] != float64(1) {
		t.Fatalf("the same code again: %d %s", r.Status, r.Body)
	}
	// Two desks scanning one copy at once count it once.
	var wg sync.WaitGroup
	statuses := make([]int, 6)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = scan(birds[1]["code"].(string)).Status
		}()
	}
	wg.Wait()
	created := 0
	for _, st := range statuses {
		if st == 201 {
			created++
		} else if st != 200 {
			t.Fatalf("racing scans: %v", statuses)
		}
	}
	if created != 1 {
		t.Fatalf("racing scans of one copy: %v, want exactly one 201", statuses)
	}
	wantRefused(t, "an unknown code", scan("ZZZZ-ZZZZ-Z"), 404, "copy_not_found")
	wantRefused(t, "an empty code", scan(""), 422, "validation_failed")

	// A scanner's file: the lent copy, a misplaced one, a repeat, an
	// unknown code, blank lines.
	file := strings.Join([]string{lent[0]["code"].(string), "", "  " + fiction[0]["code"].(string) + "  ", birds[0]["code"].(string), "NOT-A-CODE", ""}, "\r\n")
	r = w.s.do(req{Method: http.MethodPost, Path: "/api/library/stocktakes/" + id + "/scans/file", Token: w.libA, Body: file,
		Headers: map[string]string{"Content-Type": "text/plain"}})
	if r.Status != 200 {
		t.Fatalf("upload: %d %s", r.Status, r.Body)
	}
	up := r.json(t)
	unknown, _ := up["unknown"].([]any)
	if up["counted"] != float64(2) || up["already_scanned"] != float64(1) || up["scanned"] != float64(4) || len(unknown) != 1 ||
		unknown[0].(map[string]any)["line"] != float64(5) || unknown[0].(map[string]any)["code"] != "NOT-A-CODE" {
		t.Fatalf("upload answer: %s", r.Body)
	}
	// The same file again counts nothing twice.
	r = w.s.do(req{Method: http.MethodPost, Path: "/api/library/stocktakes/" + id + "/scans/file", Token: w.libA, Body: file,
		Headers: map[string]string{"Content-Type": "text/plain"}})
	if r.Status != 200 || r.json(t)["counted"] != float64(0) || r.json(t)["scanned"] != float64(4) {
		t.Fatalf("the same file again: %d %s", r.Status, r.Body)
	}
	// A file that cannot be read is refused whole, with its line.
	bad := w.s.do(req{Method: http.MethodPost, Path: "/api/library/stocktakes/" + id + "/scans/file", Token: w.libA,
		Body: mammals[0]["code"].(string) + "\n" + strings.Repeat("X", 65) + "\n", Headers: map[string]string{"Content-Type": "text/plain"}})
	d := wantRefused(t, "a file with a long line", bad, 422, "validation_failed")
	if lines, _ := d["lines"].([]any); len(lines) != 1 || lines[0].(map[string]any)["line"] != float64(2) {
		t.Fatalf("refused file's lines: %v", d)
	}

	// Close: the report lists missing, on loan and misplaced.
	r = w.stocktakePost(w.libA, "/"+id+"/close", "")
	if r.Status != 200 || r.json(t)["stocktake"].(map[string]any)["state"] != "closed" {
		t.Fatalf("close: %d %s", r.Status, r.Body)
	}
	wantRefused(t, "a scan after closing", scan(mammals[0]["code"].(string)), 409, "stocktake_closed")
	rep := w.stocktakeReport(t, id)
	wantMissing := sortedCodes(birds[2]["code"].(string), mammals[0]["code"].(string))
	if got := codesOf(rep.Missing); rep.MissingTotal != 2 || strings.Join(got, ",") != strings.Join(wantMissing, ",") {
		t.Fatalf("missing = %v (%d), want %v; the lent copy and the book outside the range are not missing", got, rep.MissingTotal, wantMissing)
	}
	if rep.OnLoanTotal != 1 || rep.OnLoan[0]["code"] != lent[0]["code"] || rep.OnLoan[0]["loan_id"] != loanID {
		t.Fatalf("on loan = %v", rep.OnLoan)
	}
	if rep.MisplacedTotal != 1 || rep.Misplaced[0]["code"] != fiction[0]["code"] || rep.Misplaced[0]["book"].(map[string]any)["call_number"] != "FIC DAH" {
		t.Fatalf("misplaced = %v", rep.Misplaced)
	}
	for _, c := range append(rep.Missing, rep.Misplaced...) {
		if c["code"] == history[0]["code"] {
			t.Fatalf("a copy neither scanned nor in range is in the report: %v", c)
		}
	}

	// Check-in from the report returns the loan.
	r = w.stocktakePost(w.libA, "/"+id+"/check-ins", fmt.Sprintf(`{"copy_id":%q}`, lent[0]["id"]))
	if r.Status != 200 || r.json(t)["loan"].(map[string]any)["returned_at"] == nil {
		t.Fatalf("check-in: %d %s", r.Status, r.Body)
	}
	wantRefused(t, "check-in again", w.stocktakePost(w.libA, "/"+id+"/check-ins", fmt.Sprintf(`{"copy_id":%q}`, lent[0]["id"])), 409, "loan_not_active")
	wantRefused(t, "check-in of a copy not scanned", w.stocktakePost(w.libA, "/"+id+"/check-ins", fmt.Sprintf(`{"copy_id":%q}`, mammals[0]["id"])), 404, "scan_not_found")
	if rep = w.stocktakeReport(t, id); rep.OnLoanTotal != 0 {
		t.Fatalf("on loan after the check-in = %v", rep.OnLoan)
	}

	// Mark the missing copies lost: twice marks nothing more.
	r = w.stocktakePost(w.libA, "/"+id+"/mark-missing-lost", "")
	if r.Status != 200 || r.json(t)["marked"] != float64(2) {
		t.Fatalf("mark lost: %d %s", r.Status, r.Body)
	}
	for _, code := range wantMissing {
		if st := w.copyStatus(t, code)["status"]; st != "lost" {
			t.Fatalf("missing copy %s is %v, want lost", code, st)
		}
	}
	if st := w.copyStatus(t, birds[0]["code"].(string))["status"]; st != "available" {
		t.Fatalf("a scanned copy is %v, want available", st)
	}
	r = w.stocktakePost(w.libA, "/"+id+"/mark-missing-lost", "")
	if r.Status != 200 || r.json(t)["marked"] != float64(0) {
		t.Fatalf("mark lost again: %d %s", r.Status, r.Body)
	}
	if rep = w.stocktakeReport(t, id); rep.MissingTotal != 0 {
		t.Fatalf("missing after marking them lost = %v", rep.Missing)
	}
	// Nobody borrowed a missing copy, so nobody is charged.
	if cs := w.chargesOf(t, w.libA, w.studentAID); len(cs) != 0 {
		t.Fatalf("charges after marking missing copies lost: %v", cs)
	}
}

// TestStocktakeRefusals: bad ranges, an open stocktake's missing copies,
// another school's stocktake, and the list.
func TestStocktakeRefusals(t *testing.T) {
	w := newLibraryWorld(t)
	d := wantRefused(t, "to before from", w.stocktakePost(w.libA, "", `{"from":"600","to":"500"}`), 422, "validation_failed")
	if f, _ := d["fields"].(map[string]any); f["to"] == nil {
		t.Fatalf("details = %v", d)
	}
	wantRefused(t, "a bound too long", w.stocktakePost(w.libA, "", fmt.Sprintf(`{"from":%q}`, strings.Repeat("9", 101))), 422, "validation_failed")
	whole := w.openStocktake(t, "", "")
	wantRefused(t, "mark lost while open", w.stocktakePost(w.libA, "/"+whole+"/mark-missing-lost", ""), 409, "stocktake_open")
	wantRefused(t, "another school's stocktake", w.s.do(req{Path: "/api/library/stocktakes/" + whole + "/report", Token: w.libB}), 404, "stocktake_not_found")
	wantRefused(t, "scan into another school's stocktake", w.stocktakePost(w.libB, "/"+whole+"/scans", `{"code":"ABCD-EFGH-J"}`), 404, "stocktake_not_found")
	r := w.s.do(req{Path: "/api/library/stocktakes", Token: w.libA})
	list, _ := r.json(t)["stocktakes"].([]any)
	if r.Status != 200 || len(list) != 1 || list[0].(map[string]any)["whole"] != true || list[0].(map[string]any)["state"] != "open" {
		t.Fatalf("list: %d %s", r.Status, r.Body)
	}
	if r := w.s.do(req{Path: "/api/library/stocktakes", Token: w.libB}); r.Status != 200 || len(r.json(t)["stocktakes"].([]any)) != 0 {
		t.Fatalf("school B's list: %d %s", r.Status, r.Body)
	}
}

// TestStocktakeOfTheWholeCollection: every copy of the school is checked,
// books without a call number included, and nothing is misplaced.
func TestStocktakeOfTheWholeCollection(t *testing.T) {
	w := newLibraryWorld(t)
	_, plain := w.addBook(t, w.libA, `{"title":"No Shelf Mark","author":"A","copies":2}`)
	_, marked := w.shelfBook(t, "Shelved", "FIC ZED", 1)
	id := w.openStocktake(t, "", "")
	if r := w.stocktakePost(w.libA, "/"+id+"/scans", fmt.Sprintf(`{"code":%q}`, marked[0]["code"])); r.Status != 201 {
		t.Fatalf("scan: %d %s", r.Status, r.Body)
	}
	rep := w.stocktakeReport(t, id)
	mine := map[string]bool{}
	for _, c := range rep.Missing {
		mine[c["code"].(string)] = true
	}
	if !mine[plain[0]["code"].(string)] || !mine[plain[1]["code"].(string)] || mine[marked[0]["code"].(string)] || rep.MisplacedTotal != 0 {
		t.Fatalf("whole-collection report: missing %v, misplaced %v", codesOf(rep.Missing), rep.Misplaced)
	}
	if rep.Stocktake["whole"] != true || rep.Stocktake["scanned"] != float64(1) {
		t.Fatalf("report's stocktake = %v", rep.Stocktake)
	}
}

// TestWebStocktakeIsForLibrarians: students cannot open the Stocktake page
// or post its forms, and a refused scan changes nothing; the librarian's
// page shows the open stocktake with its scan box.
func TestWebStocktakeIsForLibrarians(t *testing.T) {
	w := newLibraryWorld(t)
	_, copies := w.shelfBook(t, "Closed Shelf", "510 CLO", 1)
	id := w.openStocktake(t, "", "")
	const page = "/library/maplegrove.example.org/stocktake"
	student := newBrowser(t, w.s)
	if p := student.signIn(demoStudent, demoPassword); p.Status != http.StatusSeeOther {
		t.Fatalf("student sign-in: %d", p.Status)
	}
	if p := student.get(page); p.Status != http.StatusForbidden {
		t.Fatalf("student opens the stocktake page: %d", p.Status)
	}
	if p := student.submit(page+"/scan", url.Values{"stocktake_id": {id}, "code": {copies[0]["code"].(string)}}); p.Status != http.StatusForbidden {
		t.Fatalf("student posts a scan: %d", p.Status)
	}
	if rep := w.stocktakeReport(t, id); rep.Stocktake["scanned"] != float64(0) {
		t.Fatalf("a refused scan counted: %v", rep.Stocktake)
	}
	librarian := newBrowser(t, w.s)
	librarian.signIn(demoLibrarian, demoPassword)
	if p := librarian.get(page); p.Status != http.StatusOK || !strings.Contains(p.text("main"), "Whole collection") || p.byID("stocktake-code") == nil {
		t.Fatalf("the librarian's stocktake page: %d %.300s", p.Status, p.text("main"))
	}
}
