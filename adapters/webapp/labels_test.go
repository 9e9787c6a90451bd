package webapp

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/students"
	"github.com/readinglibrary/service/core/user"
)

// TestLabelsPagePreviewsTheFirstSheet: the labels page draws the first
// sheet with the used positions before the start, a label per copy with
// what it prints (the spine's prefix and call number), and links the PDF
// with the same choices; cards list who gets none; a grid the sheet cannot
// take is refused with the field at fault, and students have no page.
func TestLabelsPagePreviewsTheFirstSheet(t *testing.T) {
	f := newFixture(t)
	const base = "/library/maple.example.org"
	ctx := user.WithPrincipal(context.Background(), user.PrincipalOf(f.librarian))
	prefix := "MGS"
	if _, err := f.lib.Schools.ChangeSettings(ctx, "", library.SettingsChange{LabelPrefix: &prefix}); err != nil {
		t.Fatal(err)
	}
	b, _, err := f.lib.Holdings.AddBook(ctx, "", library.BookDraft{Title: "Matilda", Author: "Roald Dahl", Copies: 2,
		BookDetails: library.BookDetails{CallNumber: "FIC DAH"}})
	if err != nil {
		t.Fatal(err)
	}

	rec := f.do(&f.librarian, http.MethodGet, base+"/labels?what=spine&paper=l7651&start=4&book_id="+b.ID, nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("labels page: %d %s", rec.Code, rec.Body)
	}
	doc := parse(t, rec.Body.String())
	checkAccessible(t, doc)
	if used, labels, empty := len(byTestID(doc, "preview-used")), byTestID(doc, "preview-label"), len(byTestID(doc, "preview-empty")); used != 3 || len(labels) != 2 || empty != 60 {
		t.Fatalf("preview: %d used, %d labels, %d empty; want 3, 2 and 60 of L7651's 65", used, len(labels), empty)
	}
	if got := textOf(byTestID(doc, "preview-label")[0]); got != "MGSFICDAH" {
		t.Errorf("the first label shows %q, want the prefix and the call number a word a line", got)
	}
	if got := textOf(byID(doc, "labels-summary")); !strings.Contains(got, "2 labels of 65 a sheet, from position 4") {
		t.Errorf("summary %q", got)
	}
	pdfs := byTestID(doc, "labels-pdf")
	if len(pdfs) != 1 {
		t.Fatalf("%d PDF links, want 1", len(pdfs))
	}
	href := attr(pdfs[0], "href")
	for _, want := range []string{"/api/library/copies/labels?", "book_id=" + b.ID, "kind=spine", "paper=l7651", "start=4", "schoolId=" + f.school.ID} {
		if !strings.Contains(href, want) {
			t.Errorf("PDF link %q lacks %q", href, want)
		}
	}

	// Cards: the student without a number is named as getting none.
	for _, in := range []students.StudentInput{{Name: "Ada Card", StudentNumber: "AC-1", Homeroom: "5B"}, {Name: "Nora Nonumber", Homeroom: "5b"}} {
		if _, err := f.lib.Students.Create(ctx, "", in); err != nil {
			t.Fatal(err)
		}
	}
	doc = parse(t, f.do(&f.librarian, http.MethodGet, base+"/labels?what=cards&homeroom=5B&paper=l7163", nil).Body.String())
	if labels := byTestID(doc, "preview-label"); len(labels) != 1 || !strings.Contains(textOf(labels[0]), "Ada Card") {
		t.Errorf("card preview %d labels", len(labels))
	}
	if got := textOf(byID(doc, "labels-skipped")); !strings.Contains(got, "Nora Nonumber") {
		t.Errorf("skipped %q, want Nora named", got)
	}
	if href := attr(byTestID(doc, "labels-pdf")[0], "href"); !strings.Contains(href, "/api/library/students/cards?") || !strings.Contains(href, "homeroom=5B") {
		t.Errorf("cards PDF link %q", href)
	}

	// A custom grid whose labels overlap: refused, naming the field.
	rec = f.do(&f.librarian, http.MethodGet, base+"/labels?paper=custom&page_width_mm=100&page_height_mm=150&columns=2&rows=3&left_mm=3&top_mm=6&label_width_mm=45&label_height_mm=40&pitch_x_mm=20&book_id="+b.ID, nil)
	if rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("overlapping grid: %d", rec.Code)
	}
	doc = parse(t, rec.Body.String())
	checkAccessible(t, doc)
	if in := byID(doc, "labels-pitch_x_mm"); in == nil || attr(in, "aria-invalid") != "true" || byID(doc, "labels-pitch_x_mm-error") == nil {
		t.Errorf("the pitch is not marked as the field at fault")
	}
	if len(byTestID(doc, "labels-pdf")) != 0 {
		t.Error("a refused grid links a PDF")
	}
	// Grid fields left over with a named sheet are not read.
	if rec := f.do(&f.librarian, http.MethodGet, base+"/labels?paper=l7160&columns=9&book_id="+b.ID, nil); rec.Code != http.StatusOK {
		t.Errorf("named sheet with a leftover grid field: %d", rec.Code)
	}
	// No book chosen: the page says where to choose one.
	if doc := parse(t, f.do(&f.staff, http.MethodGet, base+"/labels", nil).Body.String()); byID(doc, "labels-problem") == nil {
		t.Error("no book: no word on where to choose one")
	}
	if rec := f.do(&f.student, http.MethodGet, base+"/labels", nil); rec.Code == http.StatusOK {
		t.Errorf("a student got the labels page")
	}
}
