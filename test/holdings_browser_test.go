package test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// At the desk: the librarian opens Import/Export, checks a CSV file (the
// report says what it would add and nothing is stored yet), imports it,
// and then checks out a copy by the barcode printed on it.
func TestBrowserHoldingsImport(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	const domain = "maplegrove.example.org"
	lib := s.login(demoLibrarian, demoPassword).Access
	if r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: lib,
		Body: `{"name":"Ivo Import","student_number":"HI-1"}`}); r.Status != 201 {
		t.Fatalf("add student: %d %s", r.Status, r.Body)
	}
	file := filepath.Join(t.TempDir(), "holdings.csv")
	csv := "title,author,isbn,barcode\n" +
		"Browser Moves In,Ada Desk,,HB 0001\n" +
		"Browser Moves In,Ada Desk,,HB 0002\n" +
		"Second Shelf,Ben Desk,9780747532699,31234000777777\n"
	if err := os.WriteFile(file, []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}

	signInDemoLibrarian(t, bctx, s)
	run(t, bctx, "open Import/Export from the menu",
		chromedp.Click(chromedp.CSS(`nav a[href="/library/`+domain+`/holdings"]`)),
		chromedp.WaitVisible(chromedp.ID("holdings-file")),
	)
	run(t, bctx, "check the CSV file",
		chromedp.SetValue(chromedp.ID("holdings-format"), "csv"),
		chromedp.SetUploadFiles(chromedp.ID("holdings-file"), []string{file}),
		chromedp.Click(chromedp.ID("holdings-check")),
		chromedp.WaitVisible(chromedp.ID("holdings-report")),
	)
	report := get(t, bctx, "report", chromedp.Text(chromedp.ID("holdings-report")))
	if !strings.Contains(report, "2 new books") || !strings.Contains(report, "3 new copies") || !strings.Contains(report, "Ready to import") {
		t.Fatalf("the dry run's report reads %q", report)
	}
	if r := s.do(req{Path: "/api/library/copies?code=HB%200001", Token: lib}); r.Status != 404 {
		t.Fatalf("the check stored the file: %d", r.Status)
	}
	screenshot(t, bctx, "holdings-dry-run")

	if msg := clickForFlash(t, bctx, "import the checked file", "holdings-commit"); !strings.Contains(msg, "Imported 2 books and 3 copies") {
		t.Fatalf("after the import: %q", msg)
	}

	if msg := checkOutAtDesk(t, bctx, s, domain, "check out a copy by its printed barcode", "HB 0002", "HI-1"); !strings.Contains(msg, "Checked out") {
		t.Fatalf("check-out of an imported barcode: %q", msg)
	}
	screenshot(t, bctx, "holdings-imported-checkout")
}
