package service_test

import (
	"context"
	"testing"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service"
)

func TestSchoolByDomain(t *testing.T) {
	lf := newLibFixture(t)
	tests := []struct {
		name    string
		ctx     context.Context
		domain  string
		wantID  string // empty: school_not_found
		wantErr bool
	}{
		{"LibrarianOwnSchool", as(lf.librarian), libDomainA, libSchoolA, false},
		{"StudentOwnSchoolAnyCase", as(lf.student), " MAPLE.example.org", libSchoolA, false},
		{"AdminAnySchool", as(lf.admin), libDomainB, libSchoolB, false},
		{"LibrarianOtherSchool", as(lf.librarian), libDomainB, "", true},
		{"LibrarianUnknownDomain", as(lf.librarian), "nowhere.example.org", "", true},
		{"AdminUnknownDomain", as(lf.admin), "nowhere.example.org", "", true},
		{"ReaderHasNoSchool", as(lf.reader), libDomainA, "", true},
		{"Anonymous", context.Background(), libDomainA, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := lf.lib.Schools.ByDomain(tt.ctx, tt.domain)
			if tt.wantErr {
				// Unknown and other-school domains must be indistinguishable.
				wantErr(t, err, errs.NotFound, "school_not_found")
				return
			}
			if err != nil || s.ID != tt.wantID {
				t.Fatalf("SchoolByDomain(%q) = %s, %v; want %s", tt.domain, s.ID, err, tt.wantID)
			}
		})
	}
}

func TestSchoolCatalogCountsAndPrivacy(t *testing.T) {
	lf := newLibFixture(t)
	book, copies := lf.addBook(t, lf.librarian, "Matilda", 3)
	lf.addBook(t, lf.librarianB, "Heidi", 1)
	lf.lend(t, copies[0], lf.student)

	// A private catalog is still the staff's own catalog.
	if _, err := lf.lib.Schools.PutSettings(as(lf.librarian), "", library.Settings{DefaultLoanDays: 14, MaxRenewals: 2, RenewalDays: 7}); err != nil {
		t.Fatal(err)
	}
	page, err := lf.lib.Holdings.Books(as(lf.librarian), "", service.ListQuery{Page: 1, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	entries := page.Entries
	if len(entries) != 1 || entries[0].Book.ID != book.ID || entries[0].Total != 3 || entries[0].Available != 2 {
		t.Fatalf("SchoolCatalog = %+v, want Matilda with 2 of 3 available", entries)
	}
	_, err = lf.lib.Holdings.Books(as(lf.librarian), libSchoolB, service.ListQuery{Page: 1, Limit: 10})
	wantErr(t, err, errs.Forbidden, "forbidden")
	if _, err := lf.lib.Holdings.Books(as(lf.admin), "", service.ListQuery{Page: 1, Limit: 10}); !errs.Is(err, errs.Invalid) {
		t.Fatalf("admin without a school: %v, want Invalid", err)
	}
}
