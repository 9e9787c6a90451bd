package service_test

import (
	"testing"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
)

func TestSchoolCatalogCountsAndPrivacy(t *testing.T) {
	lf := newLibFixture(t)
	book, copies := lf.addBook(t, lf.librarian, "Matilda", 3)
	lf.addBook(t, lf.librarianB, "Heidi", 1)
	lf.lend(t, copies[0], lf.student)

	// A private catalog is still the staff's own catalog.
	if _, err := lf.lib.Schools.ChangeSettings(as(lf.librarian), "", library.SettingsChange{DefaultLoanDays: new(14), MaxRenewals: new(2), RenewalDays: new(7)}); err != nil {
		t.Fatal(err)
	}
	page, err := lf.lib.Holdings.Books(as(lf.librarian), "", usecase.ListQuery{Page: 1, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	entries := page.Entries
	if len(entries) != 1 || entries[0].Book.ID != book.ID || entries[0].Total != 3 || entries[0].Available != 2 {
		t.Fatalf("SchoolCatalog = %+v, want Matilda with 2 of 3 available", entries)
	}
	_, err = lf.lib.Holdings.Books(as(lf.librarian), libSchoolB, usecase.ListQuery{Page: 1, Limit: 10})
	wantErr(t, err, errs.Forbidden, "forbidden")
	if _, err := lf.lib.Holdings.Books(as(lf.admin), "", usecase.ListQuery{Page: 1, Limit: 10}); !errs.Is(err, errs.Invalid) {
		t.Fatalf("admin without a school: %v, want Invalid", err)
	}
}
