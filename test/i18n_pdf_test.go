package test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/i18n"
)

// Arabic as the PDFs draw it, written out by hand: letters in their
// contextual forms (Arabic Presentation Forms-B), in the order seen from
// left to right.
const (
	pdfArLoanReceipt = "\uFE93\uFEAD\uFE8E\uFECB\uFEF9\uFE8D \uFEDD\uFE8E\uFEBC\uFEF3\uFE87" // إيصال الإعارة
	pdfArCopy        = "\uFE94\uFEA8\uFEB4\uFEE8\uFEDF\uFE8D"                                // النسخة
	// لا يوجد كتاب متأخر.
	pdfArNothingOverdue = ".\uFEAE\uFEA7\uFE84\uFE98\uFEE3 \uFE8F\uFE8E\uFE98\uFEDB \uFEAA\uFE9F\uFEEE\uFEF3 \uFEFB"
)

// The PDFs speak their readers' language: a loan receipt goes home in the
// student's own choice, else the school's; a slip the library prints for
// itself is in the language the person printing it reads the pages in.
func TestPDFsInTheReadersLanguage(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	if r := s.do(req{Method: http.MethodPut, Path: "/api/library/settings", Token: w.libA, Body: settingsWith(`"language":"ar"`)}); r.Status != 200 {
		t.Fatalf("the school chooses Arabic: %d %s", r.Status, r.Body)
	}
	choose := func(tok, code string) {
		t.Helper()
		if r := s.do(req{Method: http.MethodPatch, Path: "/v1/users/me", Token: tok, Body: fmt.Sprintf(`{"preferences":{"language":%q}}`, code)}); r.Status != 200 {
			t.Fatalf("choose %s: %d %s", code, r.Status, r.Body)
		}
	}
	choose(w.studentA, "es")
	r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libA, Body: `{"name":"Nel Amin"}`})
	if r.Status != 201 {
		t.Fatalf("create a student: %d %s", r.Status, r.Body)
	}
	nel := r.json(t)["student"].(map[string]any)["student_id"].(string)
	bookID, copies := w.addBook(t, w.libA, `{"title":"Matilda","author":"Roald Dahl","copies":2}`)
	due := map[string]time.Time{}
	for i, st := range []string{w.studentAID, nel} {
		r := w.lend(w.libA, bookID, copies[i]["id"].(string), st)
		if r.Status != 201 {
			t.Fatalf("lend: %d %s", r.Status, r.Body)
		}
		d, err := time.Parse(time.DateOnly, fmt.Sprint(r.json(t)["loan"].(map[string]any)["due_at"]))
		if err != nil {
			t.Fatal(err)
		}
		due[st] = d
	}

	// The student chose Spanish: their receipt is in Spanish, its due
	// date in words, though the school speaks Arabic.
	pages, _ := printed(t, s, w.libA, "/api/library/students/"+w.studentAID+"/receipt")
	text := pagesText(pages)
	for _, want := range []string{"Comprobante de préstamo", "Título", "Ejemplar", "Vence", i18n.Spanish.Date(due[w.studentAID]),
		fmt.Sprint(copies[0]["code"]), "Por favor, devuelve los libros a más tardar en su fecha de devolución.", "Libros prestados: 1"} {
		if !strings.Contains(text, want) {
			t.Errorf("the Spanish receipt lacks %q:\n%s", want, text)
		}
	}

	// Nel chose nothing: the school's Arabic, right to left, the copy
	// code kept as it is written next to "النسخة" on the roll.
	pages, _ = printed(t, s, w.libA, "/api/library/students/"+nel+"/receipt?paper=80mm")
	text = pagesText(pages)
	code := fmt.Sprint(copies[1]["code"])
	year := strings.Map(func(r rune) rune { return r - '0' + '٠' }, fmt.Sprint(due[nel].Year()))
	for _, want := range []string{pdfArLoanReceipt, " " + code + " " + pdfArCopy + "\n", year} {
		if !strings.Contains(text, want) {
			t.Errorf("the Arabic receipt lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Loan receipt") || strings.Contains(text, "?") {
		t.Errorf("the Arabic receipt has English or missing glyphs:\n%s", text)
	}

	// A slip is the librarian's: the school's Arabic until they choose
	// Spanish for themselves.
	slips := func() string {
		t.Helper()
		pages, _ := printed(t, s, w.libA, "/api/library/loans/overdue-slips")
		return pagesText(pages)
	}
	if text := slips(); !strings.Contains(text, pdfArNothingOverdue) {
		t.Errorf("the slips in the school's Arabic:\n%s", text)
	}
	choose(w.libA, "es")
	if text := slips(); !strings.Contains(text, "Ningún libro tiene retraso.") {
		t.Errorf("the slips in the librarian's Spanish:\n%s", text)
	}
}
