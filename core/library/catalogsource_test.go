package library_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/library"
)

func TestValidCatalogEndpoint(t *testing.T) {
	for _, ok := range []string{"", "http://lx2.loc.gov:210/LCDB", "https://koha.maple.example.org/biblios", "HTTP://127.0.0.1:9998/biblios?x-info=1"} {
		if !library.ValidCatalogEndpoint(ok) {
			t.Errorf("ValidCatalogEndpoint(%q) = false, want true", ok)
		}
	}
	for _, bad := range []string{"lx2.loc.gov:210/LCDB", "file:///etc/passwd", "gopher://lx2.loc.gov/", "ftp://x.example.org/",
		"http://user:secret@koha.example.org/", "http:///nohost", "http://a.example.org/ x", "http://a.example.org/#frag",
		"javascript:alert(1)", "http://a.example.org/" + strings.Repeat("a", 2048)} {
		if library.ValidCatalogEndpoint(bad) {
			t.Errorf("ValidCatalogEndpoint(%q) = true, want false", bad)
		}
	}
}

func TestValidateSettingsCatalogEndpoint(t *testing.T) {
	set := library.DefaultSettings()
	set.CatalogEndpoint = "file:///etc/passwd"
	if fields := fieldsOf(t, library.ValidateSettings(set)); !sameFieldSet(fields, []string{"sru_endpoint"}) {
		t.Errorf("ValidateSettings(file URL) fields = %v, want sru_endpoint only", fields)
	}
	set.CatalogEndpoint = ""
	if err := library.ValidateSettings(set); err != nil {
		t.Errorf("ValidateSettings(no endpoint) = %v, want nil (lookups off)", err)
	}
}

func TestDraftFromRecord(t *testing.T) {
	rec := library.HoldingRecord{Title: "Matilda /", Authors: []string{"Dahl, Roald,", "Blake, Quentin,"},
		ISBNs: []string{"9780142410370", "0142410373"},
		BookDetails: library.BookDetails{Publisher: "Puffin Books,", PublishedYear: 2007,
			Subjects: []string{"Gifted children --Fiction.", "Books and reading"}, CallNumber: "PZ7.D1515 Mat 2007"}}
	d := library.DraftFromRecord(rec, "978-0-14-241037-0")
	want := library.BookDraft{Title: "Matilda", Author: "Dahl, Roald", ISBN: "9780142410370",
		BookDetails: library.BookDetails{Publisher: "Puffin Books", PublishedYear: 2007,
			Subjects: []string{"Gifted children --Fiction", "Books and reading"}, CallNumber: "PZ7.D1515 Mat 2007"}}
	if !reflect.DeepEqual(d, want) {
		t.Errorf("DraftFromRecord() = %+v, want %+v", d, want)
	}
	if err := library.ValidateBookDraft(d); err != nil {
		t.Errorf("ValidateBookDraft(draft) = %v, want nil", err)
	}
	d = library.DraftFromRecord(library.HoldingRecord{Title: strings.Repeat("é", 400), Authors: []string{"Tolkien, J. R. R."}}, "0-8044-2957-X")
	if n := len([]rune(d.Title)); n != 300 || d.Author != "Tolkien, J. R. R." || d.ISBN != "080442957X" {
		t.Errorf("DraftFromRecord(long title) = %d runes, author %q, isbn %q; want 300, the initials kept, 080442957X", n, d.Author, d.ISBN)
	}
}
