package porttest

import (
	"sort"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ = register("Stocktakes", Stocktakes)

// Stocktakes checks the ports.StocktakeRepository contract, then marking a
// stocktake's missing copies lost on the adapter under races.
func Stocktakes(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	runPortTests(t, newRepos, []portTest{
		{"CreateGetListClose", testStocktakeCreateGetClose},
		{"ScanCountsOnce", testStocktakeScanOnce},
		{"ConcurrentScansCountOnce", testStocktakeConcurrentScans},
		{"BooksByCallNumber", testStocktakeBooksByCallNumber},
		{"CopiesOfBooks", testStocktakeCopiesOfBooks},
		{"Service/MarkLostRacesCheckOut", testLossMarkLostRacesCheckOut},
		{"Service/MarkLostRace", testLossMarkLostRace},
	})
}

func newStocktake(schoolID, from, to string, at time.Time) library.Stocktake {
	return library.Stocktake{ID: uuid.NewString(), SchoolID: schoolID, From: from, To: to, OpenedBy: uuid.NewString(), OpenedAt: at}
}

func testStocktakeCreateGetClose(t *testing.T, r ports.Repositories) {
	c := ctx(t)
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	older := newStocktake(schoolA, "500", "599", base)
	newer := newStocktake(schoolA, "", "", base.Add(time.Hour))
	other := newStocktake(schoolB, "", "", base.Add(2*time.Hour))
	for _, st := range []library.Stocktake{older, newer, other} {
		must(t, "Create", r.Stocktakes.Create(c, st))
	}
	got, err := r.Stocktakes.Get(c, schoolA, older.ID)
	must(t, "Get", err)
	if got.From != "500" || got.To != "599" || got.OpenedBy != older.OpenedBy || !sameTime(got.OpenedAt, base) || got.Closed() {
		t.Errorf("Get = %+v, want %+v", got, older)
	}
	_, err = r.Stocktakes.Get(c, schoolB, older.ID)
	wantErr(t, "Get of another school's stocktake", err, errs.NotFound, "stocktake_not_found")
	_, err = r.Stocktakes.Get(c, schoolA, uuid.NewString())
	wantErr(t, "Get of an unknown stocktake", err, errs.NotFound, "stocktake_not_found")

	list, err := r.Stocktakes.OfSchool(c, schoolA, 10)
	must(t, "OfSchool", err)
	if len(list) != 2 || list[0].ID != newer.ID || list[1].ID != older.ID {
		t.Errorf("OfSchool = %+v, want the newer then the older of school A", list)
	}
	if list, err = r.Stocktakes.OfSchool(c, schoolA, 1); err != nil || len(list) != 1 || list[0].ID != newer.ID {
		t.Errorf("OfSchool limit 1 = %+v, %v, want the newer", list, err)
	}

	closedAt := base.Add(3 * time.Hour)
	must(t, "Close", r.Stocktakes.Close(c, schoolA, older.ID, closedAt))
	must(t, "Close again", r.Stocktakes.Close(c, schoolA, older.ID, closedAt.Add(time.Hour)))
	got, err = r.Stocktakes.Get(c, schoolA, older.ID)
	must(t, "Get closed", err)
	if !got.Closed() || !sameTime(got.ClosedAt, closedAt) {
		t.Errorf("closed twice: ClosedAt = %v, want the first close %v", got.ClosedAt, closedAt)
	}
	wantErr(t, "Close of another school's stocktake", r.Stocktakes.Close(c, schoolB, newer.ID, closedAt), errs.NotFound, "stocktake_not_found")
	if got, err = r.Stocktakes.Get(c, schoolA, newer.ID); err != nil || got.Closed() {
		t.Errorf("a refused close closed the stocktake: %+v, %v", got, err)
	}
}

func newScan(st library.Stocktake, copyID string) library.StocktakeScan {
	return library.StocktakeScan{StocktakeID: st.ID, CopyID: copyID, SchoolID: st.SchoolID, BookID: uuid.NewString(),
		Code: "C-" + copyID[:8], By: uuid.NewString(), ScannedAt: base}
}

func testStocktakeScanOnce(t *testing.T, r ports.Repositories) {
	c := ctx(t)
	st, other := newStocktake(uuid.NewString(), "", "", base), newStocktake(uuid.NewString(), "", "", base)
	must(t, "Create", r.Stocktakes.Create(c, st))
	must(t, "Create other", r.Stocktakes.Create(c, other))
	ids := []string{uuid.NewString(), uuid.NewString(), uuid.NewString()}
	sort.Strings(ids)
	for _, id := range ids {
		must(t, "AddScan", r.Stocktakes.AddScan(c, newScan(st, id)))
	}
	again := newScan(st, ids[0])
	again.By = uuid.NewString()
	wantErr(t, "AddScan of a copy scanned before", r.Stocktakes.AddScan(c, again), errs.Conflict, "scan_exists")
	// The same copy in another stocktake is another scan.
	must(t, "AddScan in another stocktake", r.Stocktakes.AddScan(c, newScan(other, ids[0])))

	first := newScan(st, ids[0])
	got, err := r.Stocktakes.Scan(c, st.ID, ids[0])
	must(t, "Scan", err)
	if got.Code != first.Code || got.SchoolID != st.SchoolID || !sameTime(got.ScannedAt, base) {
		t.Errorf("Scan = %+v, want the first scan %+v", got, first)
	}
	_, err = r.Stocktakes.Scan(c, st.ID, uuid.NewString())
	wantErr(t, "Scan of a copy not scanned", err, errs.NotFound, "scan_not_found")

	if n, err := r.Stocktakes.CountScans(c, st.ID); err != nil || n != 3 {
		t.Errorf("CountScans = %d, %v, want 3", n, err)
	}
	scanned, err := r.Stocktakes.Scanned(c, st.ID, []string{ids[1], uuid.NewString()})
	must(t, "Scanned", err)
	if len(scanned) != 1 || !scanned[ids[1]] {
		t.Errorf("Scanned = %v, want only %s", scanned, ids[1])
	}
	if scanned, err = r.Stocktakes.Scanned(c, st.ID, nil); err != nil || len(scanned) != 0 {
		t.Errorf("Scanned of no ids = %v, %v", scanned, err)
	}
	page, err := r.Stocktakes.ScansPage(c, st.ID, "", 2)
	must(t, "ScansPage", err)
	if len(page) != 2 || page[0].CopyID != ids[0] || page[1].CopyID != ids[1] {
		t.Fatalf("ScansPage first = %+v, want %v", page, ids[:2])
	}
	page, err = r.Stocktakes.ScansPage(c, st.ID, page[1].CopyID, 2)
	must(t, "ScansPage second", err)
	if len(page) != 1 || page[0].CopyID != ids[2] {
		t.Errorf("ScansPage second = %+v, want %s", page, ids[2])
	}
}

func testStocktakeConcurrentScans(t *testing.T, r ports.Repositories) {
	c := ctx(t)
	st := newStocktake(uuid.NewString(), "", "", base)
	must(t, "Create", r.Stocktakes.Create(c, st))
	copyID := uuid.NewString()
	oneOfRacingCallsWins(t, 12, "AddScan", func() error { return r.Stocktakes.AddScan(c, newScan(st, copyID)) })
	if n, err := r.Stocktakes.CountScans(c, st.ID); err != nil || n != 1 {
		t.Errorf("CountScans = %d, %v, want 1", n, err)
	}
}

// testStocktakeBooksByCallNumber walks a school's books by call number in
// pages, within a range and whole.
func testStocktakeBooksByCallNumber(t *testing.T, r ports.Repositories) {
	c := ctx(t)
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	byCall := map[string]string{}
	for _, cn := range []string{"", "499 ZZZ", "500", "598.2 SMI", "599.7 ALD", "600 MAR"} {
		b := newLibBook(schoolA, "", "Book "+cn)
		b.CallNumber = cn
		must(t, "CreateBook", r.Holdings.CreateBook(c, b))
		byCall[cn] = b.ID
	}
	twin := newLibBook(schoolA, "", "Twin")
	twin.CallNumber = "598.2 SMI"
	must(t, "CreateBook twin", r.Holdings.CreateBook(c, twin))
	foreign := newLibBook(schoolB, "", "Foreign")
	foreign.CallNumber = "550"
	must(t, "CreateBook other school", r.Holdings.CreateBook(c, foreign))

	walk := func(p ports.CallNumberPage, limit int) []string {
		var out []string
		for range 20 {
			books, err := r.Stocktakes.BooksByCallNumber(c, schoolA, p, limit)
			must(t, "BooksByCallNumber", err)
			for _, b := range books {
				out = append(out, b.CallNumber)
			}
			if len(books) < limit {
				return out
			}
			p.AfterCallNumber, p.AfterID = books[len(books)-1].CallNumber, books[len(books)-1].ID
		}
		t.Fatal("the walk does not end")
		return nil
	}
	got := walk(ports.CallNumberPage{From: "500", Before: library.CallRangeEnd("599")}, 2)
	want := []string{"500", "598.2 SMI", "598.2 SMI", "599.7 ALD"}
	if !equalStrings(got, want) {
		t.Errorf("walk 500..599 by 2 = %q, want %q", got, want)
	}
	got = walk(ports.CallNumberPage{}, 3)
	want = []string{"", "499 ZZZ", "500", "598.2 SMI", "598.2 SMI", "599.7 ALD", "600 MAR"}
	if !equalStrings(got, want) {
		t.Errorf("walk of the whole collection by 3 = %q, want %q", got, want)
	}
	got = walk(ports.CallNumberPage{From: "599"}, 10)
	if want = []string{"599.7 ALD", "600 MAR"}; !equalStrings(got, want) {
		t.Errorf("walk from 599 = %q, want %q", got, want)
	}
}

func testStocktakeCopiesOfBooks(t *testing.T, r ports.Repositories) {
	c := ctx(t)
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	one, two, three := createLibBook(t, r, schoolA, "", "One"), createLibBook(t, r, schoolA, "", "Two"), createLibBook(t, r, schoolA, "", "Three")
	copies := []library.Copy{newCopy(schoolA, one.ID, "S-1"), newCopy(schoolA, one.ID, "S-2"), newCopy(schoolA, two.ID, "S-3"),
		newCopy(schoolA, three.ID, "S-4")}
	_, err := r.Holdings.CreateCopies(c, copies)
	must(t, "CreateCopies", err)
	must(t, "SetCopyCondition", r.Holdings.SetCopyCondition(c, schoolA, copies[1].ID, library.CopyCondition{Condition: library.ConditionLost, At: base}))
	got, err := r.Stocktakes.CopiesOfBooks(c, schoolA, []string{one.ID, two.ID})
	must(t, "CopiesOfBooks", err)
	codes := map[string]string{}
	for _, cp := range got {
		codes[cp.Code] = cp.Condition.Condition
	}
	if len(got) != 3 || codes["S-2"] != library.ConditionLost || codes["S-1"] != "" || codes["S-3"] != "" {
		t.Errorf("CopiesOfBooks = %+v, want S-1, S-2 (lost), S-3", got)
	}
	if got, err = r.Stocktakes.CopiesOfBooks(c, schoolB, []string{one.ID}); err != nil || len(got) != 0 {
		t.Errorf("CopiesOfBooks of another school = %+v, %v, want none", got, err)
	}
	if got, err = r.Stocktakes.CopiesOfBooks(c, schoolA, nil); err != nil || len(got) != 0 {
		t.Errorf("CopiesOfBooks of no books = %+v, %v", got, err)
	}

	// MarkShelvedCopies marks some copies at once: only the school's, and
	// only those on the shelf.
	lost := library.CopyCondition{Condition: library.ConditionLost, Note: "missing at the stocktake", At: base.Add(time.Hour)}
	marks := []struct {
		school string
		ids    []string
		want   int
	}{
		{schoolA, []string{copies[0].ID, copies[1].ID, copies[2].ID}, 2}, // copies[1] is lost already
		{schoolA, []string{copies[0].ID, copies[2].ID}, 0},
		{schoolB, []string{copies[3].ID}, 0},
		{schoolA, nil, 0},
	}
	for _, m := range marks {
		n, err := r.Stocktakes.MarkShelvedCopies(c, m.school, m.ids, lost)
		must(t, "MarkShelvedCopies", err)
		if n != m.want {
			t.Errorf("MarkShelvedCopies(%d copies) = %d, want %d", len(m.ids), n, m.want)
		}
	}
	for i, want := range []string{library.ConditionLost, library.ConditionLost, library.ConditionLost, ""} {
		cp, err := r.Holdings.Copy(c, schoolA, copies[i].ID)
		must(t, "Copy", err)
		marked := i != 1 && want != ""
		if cp.Condition.Condition != want || (marked && (cp.Condition.Note != lost.Note || !sameTime(cp.Condition.At, lost.At))) ||
			(i == 1 && !sameTime(cp.Condition.At, base)) {
			t.Errorf("copy %s after MarkShelvedCopies: %+v, want %q", cp.Code, cp.Condition, want)
		}
	}
}
