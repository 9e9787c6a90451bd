package sqliterepo_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/sqliterepo/sqlitetest"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

var recAt = time.Date(2025, 3, 1, 8, 0, 0, 0, time.UTC)

func wantCount(t *testing.T, rec ports.RecordStore, kind ports.RecordKind, want int64) {
	t.Helper()
	n, err := rec.Count(testCtx(t), kind)
	if err != nil || n != want {
		t.Fatalf("Count %s = %d, %v; want %d", kind, n, err, want)
	}
}

// TestRecordsWriteIsAllOrNothing: a batch with a refused record stores
// none of its records, counters and search rows included, and the error
// says why.
func TestRecordsWriteIsAllOrNothing(t *testing.T) {
	db := sqlitetest.NewDB(t)
	r, rec := db.Repositories(), db.Records()
	ctx := testCtx(t)
	student := func(id, name, number string) user.Account {
		return user.Account{ID: id, Name: name, StudentNumber: number, Role: user.RoleStudent, SchoolID: "alder", CreatedAt: recAt, UpdatedAt: recAt}
	}
	if err := rec.Write(ctx, ports.KindAccounts, []any{student("s1", "Lena Grove", "1")}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		kind  ports.RecordKind
		batch []any
		code  string
		count int64
	}{
		{"a taken id last", ports.KindAccounts, []any{student("s2", "Ada Brook", "2"), student("s1", "Other", "3")}, "record_exists", 1},
		{"a taken id within the batch", ports.KindAccounts, []any{student("s3", "Ada Brook", "2"), student("s3", "Ada Brook", "2")}, "record_exists", 1},
		{"a value the schema refuses", ports.KindReadingList, []any{
			catalog.ListItem{ID: "rl_1", AccountID: "s1", BookID: "bk_1", Status: catalog.WantToRead, Priority: catalog.PriorityNormal, AddedAt: recAt, UpdatedAt: recAt},
			catalog.ListItem{ID: "rl_2", AccountID: "s1", BookID: "bk_2", Status: "lost", Priority: catalog.PriorityNormal, AddedAt: recAt, UpdatedAt: recAt},
		}, "invalid_record", 0},
		{"student numbers differing only in case", ports.KindStudentNumbers, []any{
			ports.StudentNumber{SchoolID: "alder", Number: "ab-7", AccountID: "s1"},
			ports.StudentNumber{SchoolID: "alder", Number: "AB-7", AccountID: "s2"},
		}, "record_exists", 0},
	} {
		err := rec.Write(ctx, c.kind, c.batch)
		if errs.CodeOf(err) != c.code {
			t.Errorf("%s: Write = %v (code %q), want %q", c.name, err, errs.CodeOf(err), c.code)
		}
		wantCount(t, rec, c.kind, c.count)
	}
	if n, err := r.Accounts.Count(ctx); err != nil || n != 1 {
		t.Fatalf("Accounts.Count after refused batches = %d, %v; want 1", n, err)
	}
	list, total, err := r.Students.Search(ctx, library.StudentQuery{SchoolID: "alder", Terms: []string{"ada"}, Limit: 10})
	if err != nil || total != 0 || len(list) != 0 {
		t.Fatalf("Search ada after refused batches = %d of %d, %v; want none (no search row left behind)", len(list), total, err)
	}
	if _, err := r.ReadingLists.Get(ctx, "s1", "bk_1"); errs.KindOf(err) != errs.NotFound {
		t.Fatalf("the first item of a refused batch: %v, want NotFound", err)
	}
}

// TestRecordsWriteKeepsDanglingReferences: records that name records the
// store does not hold, as a MongoDB store may have them, are written as
// they are and read back through the repositories.
func TestRecordsWriteKeepsDanglingReferences(t *testing.T) {
	db := sqlitetest.NewDB(t)
	r, rec := db.Repositories(), db.Records()
	ctx := testCtx(t)
	const school, other = "alder", "birch"
	loan := library.Loan{ID: "ln_1", SchoolID: school, BookID: "lb_gone", CopyID: "cp_gone", CopyCode: "AAAA-BBBB-C",
		StudentID: "", LoanedAt: recAt, DueAt: "2025-03-15", ReturnedAt: recAt.Add(time.Hour), BookTitle: "Matilda"}
	writes := []struct {
		kind ports.RecordKind
		rec  any
	}{
		{ports.KindReadingList, catalog.ListItem{ID: "rl_1", AccountID: "acct_gone", BookID: "bk_gone", Status: catalog.Finished,
			Priority: catalog.PriorityLow, AddedAt: recAt, UpdatedAt: recAt}},
		{ports.KindProgress, catalog.Progress{AccountID: "acct_gone", BookID: "bk_gone", PageNumber: 3, LastRead: recAt}},
		{ports.KindCopies, library.Copy{ID: "cp_1", SchoolID: school, BookID: "lb_of_" + other, Code: "QQQQ-RRRR-S", CreatedAt: recAt}},
		{ports.KindLoans, loan},
		{ports.KindRenewals, library.Renewal{LoanID: "ln_gone", Number: 1, DueAt: "2025-03-22", RenewedAt: recAt}},
		{ports.KindClaims, library.CopyClaim{CopyID: "cp_1", LoanID: "ln_gone", SchoolID: school, BookID: "lb_gone", ClaimedAt: recAt}},
		{ports.KindStudentNumbers, ports.StudentNumber{SchoolID: school, Number: "N-1", AccountID: "acct_gone"}},
		{ports.KindRedemptions, ports.Stamp{ID: "invite_gone", At: recAt}},
		{ports.KindRotations, ports.Stamp{ID: "token_gone", At: recAt}},
	}
	for _, w := range writes {
		if err := rec.Write(ctx, w.kind, []any{w.rec}); err != nil {
			t.Fatalf("Write %s naming missing records: %v", w.kind, err)
		}
		wantCount(t, rec, w.kind, 1)
	}
	if got, err := r.Loans.ByIDs(ctx, []string{loan.ID}); err != nil || len(got) != 1 || !got[0].StudentDeleted() || !got[0].Returned() {
		t.Fatalf("ByIDs of the anonymized loan = %+v, %v", got, err)
	}
	if c, err := r.ActiveLoans.Holder(ctx, "cp_1"); err != nil || c.LoanID != "ln_gone" {
		t.Fatalf("Holder of a claim whose loan is gone = %+v, %v", c, err)
	}
	if _, err := r.Holdings.CopyByCode(ctx, school, "QQQQ-RRRR-S"); err != nil {
		t.Fatalf("CopyByCode of a copy of a missing book: %v", err)
	}
	if err := r.Invites.Redeem(ctx, "invite_gone", recAt); errs.CodeOf(err) != "invite_used" {
		t.Fatalf("Redeem of a copied redemption = %v, want invite_used", err)
	}
	if got, err := r.Students.TakenNumbers(ctx, school, []string{"n-1"}); err != nil || fmt.Sprint(got) != "[N-1]" {
		t.Fatalf("TakenNumbers = %v, %v; want [N-1]", got, err)
	}
}
