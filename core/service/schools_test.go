package service_test

import (
	"context"
	"testing"

	"github.com/readinglibrary/service/core/errs"
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
