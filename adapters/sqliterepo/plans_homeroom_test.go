package sqliterepo

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A homeroom's students must be a range of the homeroom index: the general
// plan check accepts a walk of any partial index, and accounts_students
// (every school's students) is one, so reading a class through it would
// pass there while reading the school's every student.
func TestHomeroomLookupUsesItsIndex(t *testing.T) {
	d := openTestDB(t)
	seed(t, d)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, s := range []*stmt{stmtStudentsHomeroomPage, stmtStudentsHomeroomCount} {
		plan, err := explain(ctx, d.write.db, s)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		ranged := false
		for _, detail := range plan {
			if strings.Contains(detail, "INDEX accounts_students_by_homeroom (school_id=? AND homeroom_key=?)") {
				ranged = true
			}
		}
		if !ranged {
			t.Errorf("%s does not search accounts_students_by_homeroom by school and homeroom: %q", s.name, plan)
		}
	}
}
