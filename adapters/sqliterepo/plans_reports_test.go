package sqliterepo

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestReportPlansUseTheirIndexes: the reports' statements read the loans
// through the indexes of migration 0021 (a range of loans_by_school_time,
// from the index alone; loans_by_book for each book of a page), the
// books through the school's range of an index and the copies through
// copies_by_book; the waiting holds through the school's range of
// hold_queue_by_book, each looked up in the traps' unique hold_id; none
// scans a table.
func TestReportPlansUseTheirIndexes(t *testing.T) {
	d := openTestDB(t)
	seed(t, d)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	want := map[*stmt][]string{
		stmtReportLoanCount:          {"SEARCH loans USING COVERING INDEX loans_by_school_time (school_id=? AND loaned_at>? AND loaned_at<?)"},
		stmtReportTopBooks:           {"SEARCH loans USING COVERING INDEX loans_by_school_time (school_id=? AND loaned_at>? AND loaned_at<?)", "(id=?)"},
		stmtReportNeverBorrowed:      {"library_books_by_title (school_id=?)", "SEARCH l USING COVERING INDEX loans_by_book (book_id=?)"},
		stmtReportNeverBorrowedCount: {"library_books_by_title (school_id=?)", "SEARCH l USING COVERING INDEX loans_by_book (book_id=?)"},
		stmtReportHoldQueues: {"SEARCH q USING COVERING INDEX hold_queue_by_book (school_id=?)",
			"SEARCH t USING COVERING INDEX sqlite_autoindex_hold_traps_2 (hold_id=?)", "SEARCH c USING INDEX copies_by_book (school_id=? AND book_id=?)"},
	}
	for field, s := range stmtsCollection {
		// The books' own index of the field (migration 0017), read alone;
		// the genre's is (school_id, genre, reading_level, id) since 0035.
		index := "library_books_" + field
		if field == "genre" {
			index = "library_books_genre_level"
		}
		want[s.titles] = []string{"SEARCH b USING COVERING INDEX " + index + " (school_id=?)"}
		want[s.copies] = []string{"SEARCH c USING COVERING INDEX copies_by_book (school_id=?)", "(id=?)"}
	}
	for s, parts := range want {
		plan, err := explain(ctx, d.write.db, s)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		text := strings.Join(plan, "\n")
		for _, p := range parts {
			if !strings.Contains(text, p) {
				t.Errorf("%s: plan %q lacks %q", s.name, plan, p)
			}
		}
		for _, step := range plan {
			// "SCAN per" reads the grouped counts of top_books' subquery.
			if strings.HasPrefix(step, "SCAN ") && step != "SCAN per" {
				t.Errorf("%s scans: %q", s.name, plan)
			}
		}
	}
}
