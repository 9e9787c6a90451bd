package service_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
)

// TestAuditEntriesOfOneInstantKeepTheirOrder: entries recorded within one
// millisecond (a librarian's quick saves, a batch of a job) are listed
// newest first in the order they were recorded, page after page: the
// clock stands still, so only their ids can order them.
func TestAuditEntriesOfOneInstantKeepTheirOrder(t *testing.T) {
	lf := newLibFixture(t)
	lf.clock.Set(time.Date(2026, 11, 30, 9, 15, 0, 0, time.UTC))
	ctx := as(lf.librarian)
	var want []string
	for n := range 30 {
		target := fmt.Sprintf("student-%02d", n)
		lf.lib.Audit.Record(ctx, library.AuditEntry{SchoolID: libSchoolA, Action: library.AuditStudentChanged, Target: target})
		want = append([]string{target}, want...)
	}
	var got []string
	f := usecase.AuditFilter{Limit: 7}
	for range 10 {
		page, err := lf.lib.Audit.Page(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Entries {
			got = append(got, e.Target)
		}
		if page.NextCursor == "" {
			break
		}
		f.Cursor = page.NextCursor
	}
	if !slices.Equal(got, want) {
		t.Errorf("entries of one instant listed as\n%v\nwant the reverse of their recording\n%v", got, want)
	}
}
