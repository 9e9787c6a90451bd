package sqliterepo

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// openTestDB opens a new database in a temporary file (package sqlitetest
// cannot serve this package's own tests: it imports the package).
func openTestDB(t *testing.T, opts ...Option) *DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := Open(ctx, filepath.Join(t.TempDir(), "library.db"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// smallTables are read whole on purpose; every other table grows with the
// schools and must never be scanned.
var smallTables = map[string]string{
	"signing_keys": "a handful of keys, listed whole",
	"counters":     "two rows",
	"schools":      "one row per school, not per school's member; List returns every row",
}

// exampleArgs are representative values of the statements' parameters, by
// name; any other parameter gets "x".
var exampleArgs = map[string]any{
	"ids":          `["bk_0001","bk_0002","bk_0003"]`,
	"chapter_ids":  `["ch_0001_0","ch_0002_1"]`,
	"book_ids":     `["bk_0001","bk_0002"]`,
	"roles":        `["student","librarian"]`,
	"genres":       `["fantasy","history"]`,
	"authors":      `["Author 7","Author 9"]`,
	"exclude":      `["bk_0001"]`,
	"chapters":     `[{"id":"ch_x","title":"One","page_start":1,"page_end":2,"word_count":3}]`,
	"texts":        `[{"chapter_id":"ch_x","book_id":"bk_0001","position":0,"text":"t"}]`,
	"match":        `"tit"* AND "auth"*`,
	"copies":       `[{"id":"cp_x","school_id":"school_1","book_id":"lb_0001","code":"C-X","created_at":0}]`,
	"loan_ids":     `["ln_0001","ln_0002"]`,
	"copy_ids":     `["cp_0001","cp_0002"]`,
	"number_keys":  `["n-1","n-2"]`,
	"isbns":        `["9780000000002","9780000000019"]`,
	"match_keys":   `["title 1|author 7","title 2|author 9"]`,
	"work_keys":    `["title 1|author","title 2|author"]`,
	"app_book_id":  "bk_0007",
	"app_book_ids": `["bk_0007","bk_0008"]`,
	"codes":        `["31234000123456","T 00123"]`,
	"student_id":   "acct_0007",
	"student_ids":  `["acct_0007","acct_0008"]`,
	"account_ids":  `["acct_0007","acct_0008"]`,
	"genre":        "fantasy",
	"level":        user.LevelBeginner,
	"status":       string(catalog.WantToRead),
	"pk":           int64(7),
	"limit":        int64(20),
	"offset":       int64(40),
	"account_id":   "acct_0007",
	"school_id":    "school_1",
	"book_id":      "bk_0007",
	// A batch of scans (ClaimOfflineOps, RecordOfflineOutcomes).
	"offline_ops": `[{"school_id":"school_1","id":"op_0001","kind":"checkout","code":"C-0001-0","card":"N-0001",` +
		`"scanned_at":0,"uploaded_at":0,"uploaded_by":"u1@example.org","status":"conflict","reason":"copy_unavailable",` +
		`"message":"m","loan_id":"","settled_at":0,"settled_by":"u1@example.org"}]`,
}

var paramName = regexp.MustCompile(`:([a-z_][a-z0-9_]*)`)

// argsFor binds every named parameter of s.
func argsFor(s *stmt) []any {
	var args []any
	seen := map[string]bool{}
	for _, m := range paramName.FindAllStringSubmatch(s.sql, -1) {
		if seen[m[1]] {
			continue
		}
		seen[m[1]] = true
		v, ok := exampleArgs[m[1]]
		if !ok {
			v = "x"
		}
		args = append(args, sql.Named(m[1], v))
	}
	return args
}

// seed fills every table with a few hundred rows through the repositories.
func seed(t *testing.T, d *DB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r := d.Repositories()
	at := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	genres := []string{"fantasy", "history", "science-fiction", "poetry"}
	levels := []string{user.LevelBeginner, user.LevelIntermediate, user.LevelAdvanced}
	for i := range 10 {
		must(r.Schools.Create(ctx, library.School{ID: fmt.Sprintf("school_%d", i), Name: fmt.Sprintf("School %d", i),
			Domain: fmt.Sprintf("s%d.example.org", i), Settings: library.DefaultSettings(), CreatedAt: at}))
	}
	for i := range 300 {
		id := fmt.Sprintf("bk_%04d", i)
		d := catalog.BookDraft{
			Title: fmt.Sprintf("Title %d", i), Author: fmt.Sprintf("Author %d", i%40), Genre: genres[i%len(genres)],
			ReadingLevel: levels[i%len(levels)], Pages: 30, Rating: float64(i%50) / 10, PublishedDate: "2001-02-03",
			Chapters: []catalog.ChapterDraft{{Title: "One", PageStart: 1, PageEnd: 10, Text: "one"}, {Title: "Two", PageStart: 11, PageEnd: 30, Text: "two"}},
		}
		n := 0
		b, texts, err := catalog.NewBook(id, d, func(string) string { n++; return fmt.Sprintf("ch_%04d_%d", i, n) }, at)
		must(err)
		must(r.Books.Create(ctx, b, texts))

		acct := fmt.Sprintf("acct_%04d", i)
		must(r.Accounts.Create(ctx, user.Account{ID: acct, Email: fmt.Sprintf("u%d@example.org", i), Name: fmt.Sprintf("User %d", i),
			Role: user.RoleStudent, SchoolID: fmt.Sprintf("school_%d", i%10), Deleted: i%50 == 0, CreatedAt: at, UpdatedAt: at}))
		tok := auth.RefreshToken{Hash: fmt.Sprintf("hash_%04d", i), FamilyID: fmt.Sprintf("fam_%04d", i/2), AccountID: acct, IssuedAt: at, ExpiresAt: at}
		must(r.RefreshTokens.Create(ctx, tok))
		if i%2 == 0 {
			must(r.RefreshTokens.ClaimRotation(ctx, tok.Hash, at))
			must(r.RefreshTokens.RevokeFamily(ctx, tok.FamilyID, at))
		}
		item := catalog.ListItem{ID: fmt.Sprintf("rl_%04d", i), AccountID: fmt.Sprintf("acct_%04d", i%30), BookID: id,
			Status: catalog.WantToRead, Priority: catalog.PriorityNormal, AddedAt: at, UpdatedAt: at}
		_, _, err = r.ReadingLists.Add(ctx, item)
		must(err)
		must(r.Progress.Save(ctx, catalog.Progress{AccountID: fmt.Sprintf("acct_%04d", i%30), BookID: id, PageNumber: 3, LastRead: at}))
		for j := range 2 {
			must(r.Progress.RecordSession(ctx, catalog.ReadingSession{ID: fmt.Sprintf("rs_%04d_%d", i, j),
				AccountID: fmt.Sprintf("acct_%04d", i%30), BookID: id, At: at, LocalDay: "2025-03-01", Seconds: 60}))
		}
	}
	seedLibrary(ctx, t, d, at)
	for i := range 200 {
		must(r.AppLinks.SaveChoice(ctx, library.AppLinkChoice{SchoolID: fmt.Sprintf("school_%d", i%10), BookID: fmt.Sprintf("lb_%04d", i),
			AppBookID: fmt.Sprintf("bk_%04d", i%300), Same: i%2 == 0, ByAccountID: "acct_0001", At: at}))
	}
	for i := range 30 {
		must(r.Kiosks.CreateKiosk(ctx, library.Kiosk{ID: fmt.Sprintf("ki_%04d", i), SchoolID: fmt.Sprintf("school_%d", i%10),
			Name: fmt.Sprintf("Kiosk %d", i/10), Login: fmt.Sprintf("kiosk-%04d", i), SecretHash: "h", CreatedAt: at, CreatedBy: "u1@example.org"}))
	}
	statuses := []string{"", library.OfflineApplied, library.OfflineConflict, library.OfflineDismissed}
	for i := range 200 {
		won, err := r.OfflineOps.ClaimOfflineOps(ctx, []library.OfflineOp{{SchoolID: fmt.Sprintf("school_%d", i%10), ID: fmt.Sprintf("op_%04d", i),
			Kind: library.OfflineCheckout, Code: fmt.Sprintf("C-%04d-0", i), Card: "N-0001", ScannedAt: at.Add(time.Duration(i) * time.Minute),
			UploadedAt: at.Add(time.Hour), UploadedBy: "u1@example.org", Status: statuses[i%len(statuses)]}})
		must(err)
		if !slices.Equal(won, []int{0}) {
			t.Fatalf("ClaimOfflineOps of scan %d won %v, want [0]", i, won)
		}
	}
	for i := range 3 {
		_, err := r.SigningKeys.EnsureActive(ctx, auth.SigningKey{ID: fmt.Sprintf("kid_%d", i), Algorithm: "RS256", PrivateKeyPEM: []byte("k"), CreatedAt: at})
		must(err)
	}
}

// seedLibrary fills the library's tables through Records, one
// transaction per kind: books and copies in every school, loans (the older
// ones returned, the newer ones holding claims) with renewals, student
// numbers, and invitations, half of them redeemed.
func seedLibrary(ctx context.Context, t *testing.T, d *DB, at time.Time) {
	t.Helper()
	var books, copies, loans, renewals, claims, numbers, invites, redemptions []any
	for i := range 200 {
		school := fmt.Sprintf("school_%d", i%10)
		book := library.Book{ID: fmt.Sprintf("lb_%04d", i), SchoolID: school, ISBN: fmt.Sprintf("978%010d", i),
			Title: fmt.Sprintf("Title %d", i), Author: fmt.Sprintf("Author %d", i%40), CreatedAt: at}
		books = append(books, book)
		for j := range 2 {
			copies = append(copies, library.Copy{ID: fmt.Sprintf("cp_%04d_%d", i, j), SchoolID: school, BookID: book.ID,
				Code: fmt.Sprintf("C-%04d-%d", i, j), CreatedAt: at})
		}
		numbers = append(numbers, ports.StudentNumber{SchoolID: school, Number: fmt.Sprintf("N-%04d", i), AccountID: fmt.Sprintf("acct_%04d", i)})
		inv := library.Invite{TokenHash: fmt.Sprintf("inv_%04d", i), AccountID: fmt.Sprintf("acct_%04d", i), ExpiresAt: at, CreatedAt: at}
		invites = append(invites, inv)
		if i%2 == 0 {
			redemptions = append(redemptions, ports.Stamp{ID: inv.TokenHash, At: at})
		}
	}
	for i := range 600 {
		cp := copies[i%len(copies)].(library.Copy)
		loan := library.Loan{ID: fmt.Sprintf("ln_%04d", i), SchoolID: cp.SchoolID, BookID: cp.BookID, CopyID: cp.ID,
			CopyCode: cp.Code, StudentID: fmt.Sprintf("acct_%04d", i%100), LoanedAt: at.Add(time.Duration(i) * time.Hour),
			DueAt: "2025-03-15", BookTitle: "Title", BookAuthor: "Author"}
		if i < len(copies) {
			loan.ReturnedAt = loan.LoanedAt.Add(time.Hour)
		} else {
			claims = append(claims, library.CopyClaim{CopyID: cp.ID, LoanID: loan.ID, SchoolID: cp.SchoolID, BookID: cp.BookID, ClaimedAt: loan.LoanedAt})
		}
		loans = append(loans, loan)
		if i%2 == 0 {
			renewals = append(renewals, library.Renewal{LoanID: loan.ID, Number: 1, DueAt: "2025-03-22", RenewedAt: at})
		}
	}
	rec := d.Records()
	for _, w := range []struct {
		kind    ports.RecordKind
		records []any
	}{
		{ports.KindLibraryBooks, books}, {ports.KindCopies, copies}, {ports.KindLoans, loans}, {ports.KindRenewals, renewals},
		{ports.KindClaims, claims}, {ports.KindStudentNumbers, numbers}, {ports.KindInvites, invites}, {ports.KindRedemptions, redemptions},
	} {
		if err := rec.Write(ctx, w.kind, w.records); err != nil {
			t.Fatalf("seed %s: %v", w.kind, err)
		}
	}
}

var (
	scanDetail = regexp.MustCompile(`^SCAN (\S+)(.*)$`)
	aliasOf    = regexp.MustCompile(`(?i)\b([a-z_]+) AS ([a-z_]+)\b`)
	subqueryAs = regexp.MustCompile(`(?i)\) AS ([a-z_]+)\b`)
)

// TestQueryPlansUseIndexes explains every registered statement on a
// seeded database and fails on a full scan of a table that grows with the
// schools, and on an automatic index (built by scanning). A statement
// marked as walking (an unfiltered page) may scan an index in its order,
// which stops at the page's end; walking a partial index reads only its
// rows. A statement of the RecordStore marked as whole reads or counts a
// whole table, which is what copying a store means. The service runs no ANALYZE, so the plans that count are the ones
// without statistics; they are checked after an ANALYZE too, so that
// turning on PRAGMA optimize would not bring scans back.
func TestQueryPlansUseIndexes(t *testing.T) {
	d := openTestDB(t)
	seed(t, d)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if n := len(statements()); n < 40 {
		t.Fatalf("only %d statements registered", n)
	}
	t.Run("WithoutStatistics", func(t *testing.T) { checkPlans(ctx, t, d) })
	if _, err := d.write.db.ExecContext(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
	t.Run("AfterAnalyze", func(t *testing.T) { checkPlans(ctx, t, d) })
}

func checkPlans(ctx context.Context, t *testing.T, d *DB) {
	partial, err := partialIndexes(ctx, d.write.db)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range statements() {
		plan, err := explain(ctx, d.write.db, s)
		if err != nil {
			t.Errorf("%s: EXPLAIN QUERY PLAN: %v", s.name, err)
			continue
		}
		aliases := map[string]string{}
		for _, m := range aliasOf.FindAllStringSubmatch(s.sql, -1) {
			aliases[m[2]] = m[1]
		}
		for _, m := range subqueryAs.FindAllStringSubmatch(s.sql, -1) {
			aliases[m[1]] = "(" + m[1] + ")" // a subquery's rows, such as a page of pks
		}
		for _, detail := range plan {
			if strings.Contains(detail, "AUTOMATIC") {
				t.Errorf("%s builds an automatic index: %q\nplan: %q", s.name, detail, plan)
			}
			m := scanDetail.FindStringSubmatch(detail)
			if m == nil {
				continue
			}
			table, how := m[1], m[2]
			if a, ok := aliases[table]; ok {
				table = a
			}
			index := strings.TrimPrefix(strings.TrimPrefix(how, " USING INDEX "), " USING COVERING INDEX ")
			switch {
			case strings.HasPrefix(how, " VIRTUAL TABLE"), table == "CONSTANT", strings.HasPrefix(table, "("):
				// json_each, books_fts, a constant row, a subquery's result
			case smallTables[table] != "":
			case partial[index]:
			case s.walks && index != how:
			case s.whole:
			default:
				t.Errorf("%s scans %s: %q\nplan: %q\nsql: %s", s.name, table, detail, plan, s.sql)
			}
		}
		t.Logf("%s: %q", s.name, plan)
	}
}

// partialIndexes returns the names of the partial indexes: walking one
// whole reads only the rows its WHERE selects.
func partialIndexes(ctx context.Context, db *sql.DB) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'index' AND sql LIKE '% WHERE %'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		out[name] = true
	}
	return out, rows.Err()
}

// explain returns the detail column of the plan of s.
func explain(ctx context.Context, db *sql.DB, s *stmt) ([]string, error) {
	rows, err := db.QueryContext(ctx, "EXPLAIN QUERY PLAN "+s.sql, argsFor(s)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notUsed int
		var detail string
		if err := rows.Scan(&id, &parent, &notUsed, &detail); err != nil {
			return nil, err
		}
		plan = append(plan, detail)
	}
	return plan, rows.Err()
}

// TestForeignKeysAreIndexed: deleting a parent row looks its children up
// by the foreign key's columns (ON DELETE CASCADE), which EXPLAIN QUERY
// PLAN does not show; each such key must lead an index.
func TestForeignKeysAreIndexed(t *testing.T) {
	d := openTestDB(t)
	ctx := t.Context()
	rows, err := d.write.db.QueryContext(ctx, `
SELECT m.name, f.id, f.seq, f."from" FROM sqlite_schema AS m, pragma_foreign_key_list(m.name) AS f
WHERE m.type = 'table' ORDER BY m.name, f.id, f.seq`)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string][]string{} // "table#id" -> child columns in order
	for rows.Next() {
		var table, from string
		var id, seq int
		if err := rows.Scan(&table, &id, &seq, &from); err != nil {
			t.Fatal(err)
		}
		k := fmt.Sprintf("%s#%d", table, id)
		keys[k] = append(keys[k], from)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if len(keys) == 0 {
		t.Fatal("no foreign keys found")
	}
	for k, cols := range keys {
		table := k[:strings.IndexByte(k, '#')]
		rows, err := d.write.db.QueryContext(ctx, `
SELECT l.name, i.seqno, i.name FROM pragma_index_list(?) AS l, pragma_index_info(l.name) AS i
ORDER BY l.name, i.seqno`, table)
		if err != nil {
			t.Fatal(err)
		}
		leading := map[string][]string{}
		for rows.Next() {
			var index, col string
			var seq int
			if err := rows.Scan(&index, &seq, &col); err != nil {
				t.Fatal(err)
			}
			leading[index] = append(leading[index], col)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, idx := range leading {
			if len(idx) >= len(cols) && strings.Join(idx[:len(cols)], ",") == strings.Join(cols, ",") {
				found = true
			}
		}
		t.Logf("foreign key %s (%v): indexes %v", k, cols, leading)
		if !found {
			t.Errorf("foreign key %s (%v) leads no index of %s: %v", k, cols, table, leading)
		}
	}
}
