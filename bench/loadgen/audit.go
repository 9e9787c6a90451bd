package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
)

// auditTarget is what the audit log may add to a check-out's p50 (issue
// 30): a check-out that records an entry is at most 10% slower than one
// that records none.
const auditTarget = 0.10

// auditRounds is how many times -audit alternates the plain and the audited
// check-outs (each round both, in turn, the first side swapped every
// round), so that whatever else the machine does in the run hits both.
const auditRounds = 10

// auditActor is one person of the filled log: the share of the entries
// they made and the actions they take.
type auditActor struct {
	email, role, address string
	weight               int
	actions              []library.AuditAction
}

// auditActors are the staff of a busy school's log: the librarian, a
// deputy and an assistant at the desk, the admin who looks after
// accounts and settings, and the nightly roster sync. The assistant never
// changes settings, which the person-and-action case below relies on.
var auditActors = []auditActor{
	{demoLibrarian, "librarian", "10.20.1.11", 40, []library.AuditAction{
		library.AuditLoanDueDate, library.AuditLoanDueDate, library.AuditLoanDueDate, library.AuditLoanEnded, library.AuditLoanEnded,
		library.AuditLoanReturnedDamaged, library.AuditLoanOutsideRange, library.AuditChargeSettled, library.AuditChargeSettled,
		library.AuditStudentChanged, library.AuditStudentChanged, library.AuditStudentCreated, library.AuditStudentsImported,
		library.AuditHoldingsImported, library.AuditSettingsChanged, library.AuditCalendarChanged, library.AuditLoanRulesChanged,
		library.AuditNoticeSettingsChanged}},
	{"r.okafor@maplegrove.example.org", "librarian", "10.20.1.12", 25, []library.AuditAction{
		library.AuditLoanDueDate, library.AuditLoanDueDate, library.AuditLoanEnded, library.AuditLoanReturnedDamaged,
		library.AuditLoanOutsideRange, library.AuditChargeSettled, library.AuditStudentChanged, library.AuditStudentCreated}},
	{auditAssistant, "librarian", "10.20.1.13", 20, []library.AuditAction{
		library.AuditLoanDueDate, library.AuditLoanDueDate, library.AuditLoanEnded, library.AuditChargeSettled,
		library.AuditStudentChanged, library.AuditLoanOutsideRange}},
	{demoAdmin, "admin", "192.0.2.40", 10, []library.AuditAction{
		library.AuditAccountInvited, library.AuditAccountChanged, library.AuditAccountUnlocked, library.AuditSettingsChanged,
		library.AuditStudentChanged, library.AuditRosterRollover}},
	{"", "system", "", 5, []library.AuditAction{library.AuditRosterSynced}},
}

// The measured filters: the assistant's entries, one action, and the
// assistant with an action they never take (the person's whole range of
// the index is read to find that there is none).
const (
	auditAssistant  = "library.assistant@maplegrove.example.org"
	auditOneAction  = library.AuditLoanEnded
	auditNeverTaken = library.AuditSettingsChanged
)

// auditActionCount is how many of the log's actions the fill writes.
func auditActionCount() int {
	seen := map[library.AuditAction]bool{}
	for _, a := range auditActors {
		for _, x := range a.actions {
			seen[x] = true
		}
	}
	return len(seen)
}

// auditEntryAt makes one entry of the fill at the given time: its actor,
// action, target, subject, summary and changes, as the service's use
// cases write them.
func auditEntryAt(rnd *rand.Rand, sc *school, actorIDs map[string]string, at time.Time) library.AuditEntry {
	total := 0
	for _, a := range auditActors {
		total += a.weight
	}
	pick := rnd.IntN(total)
	var a auditActor
	for _, a = range auditActors {
		if pick < a.weight {
			break
		}
		pick -= a.weight
	}
	action := a.actions[rnd.IntN(len(a.actions))]
	student := sc.studentIDs[rnd.IntN(len(sc.studentIDs))]
	cp := sc.copies[rnd.IntN(len(sc.copies))]
	title := libraryTitle(rnd.IntN(max(sc.n, 1)))
	e := library.AuditEntry{ID: usecase.NewUUID(), SchoolID: sc.schoolID, At: at, ActorID: actorIDs[a.email], ActorEmail: a.email,
		ActorRole: a.role, Address: a.address, Action: action}
	day := func(d int) string { return at.AddDate(0, 0, d).Format(time.DateOnly) }
	switch action {
	case library.AuditLoanDueDate:
		e.Target, e.SubjectID = usecase.NewUUID(), student
		e.Summary = fmt.Sprintf("Checked out %s (copy %s) due on a chosen date", title, cp.Code)
		e.Changes = []library.AuditChange{{Field: "due_at", Before: day(14), After: day(7 * (1 + rnd.IntN(5)))}, {Field: "student_id", After: student}}
	case library.AuditLoanOutsideRange:
		e.Target, e.SubjectID = usecase.NewUUID(), student
		e.Summary = fmt.Sprintf("Checked out %s (copy %s) outside the student's reading range: the book is for grades 7 to 9", title, cp.Code)
		e.Changes = []library.AuditChange{{Field: "student_id", After: student}}
	case library.AuditLoanEnded:
		outcome := []string{"lost", "claims_returned", "found"}[rnd.IntN(3)]
		e.Target, e.SubjectID = usecase.NewUUID(), student
		e.Summary = fmt.Sprintf("Loan of %s (copy %s) ended: %s", title, cp.Code, outcome)
		e.Changes = []library.AuditChange{{Field: "outcome", Before: "out", After: outcome}}
	case library.AuditLoanReturnedDamaged:
		e.Target, e.SubjectID = usecase.NewUUID(), student
		e.Summary = fmt.Sprintf("Returned %s (copy %s) damaged", title, cp.Code)
		e.Changes = []library.AuditChange{{Field: "condition", Before: "good", After: "damaged"}, {Field: "charge_cents", After: fmt.Sprint(100 * (1 + rnd.IntN(20)))}}
	case library.AuditChargeSettled:
		how := []string{"paid", "waived"}[rnd.IntN(2)]
		e.Target, e.SubjectID = usecase.NewUUID(), student
		e.Summary = "Charge " + how
		e.Changes = []library.AuditChange{{Field: "status", Before: "owed", After: how}, {Field: "amount_cents", After: fmt.Sprint(100 * (1 + rnd.IntN(30)))}}
	case library.AuditStudentCreated:
		e.Target, e.SubjectID = student, student
		e.Summary = "Added a student"
		e.Changes = []library.AuditChange{{Field: "name", After: studentName(rnd.IntN(10_000))}, {Field: "homeroom", After: fmt.Sprintf("%dS", 1+rnd.IntN(6))}}
	case library.AuditStudentChanged:
		e.Target, e.SubjectID = student, student
		e.Summary = "Changed a student"
		g := 1 + rnd.IntN(6)
		e.Changes = []library.AuditChange{{Field: "grade", Before: fmt.Sprint(g), After: fmt.Sprint(g + 1)}, {Field: "homeroom", Before: fmt.Sprintf("%dS", g), After: fmt.Sprintf("%dS", g+1)}}
	case library.AuditStudentsImported, library.AuditRosterSynced, library.AuditRosterRollover:
		e.Target = usecase.NewUUID()
		e.Summary = fmt.Sprintf("%d students added, %d changed, %d left", rnd.IntN(20), rnd.IntN(60), rnd.IntN(5))
	case library.AuditHoldingsImported:
		e.Target = usecase.NewUUID()
		e.Summary = fmt.Sprintf("Imported a holdings file: %d titles, %d copies", 50+rnd.IntN(500), 100+rnd.IntN(1000))
	case library.AuditSettingsChanged, library.AuditCalendarChanged, library.AuditLoanRulesChanged, library.AuditNoticeSettingsChanged:
		e.Summary = "Changed the school's " + strings.TrimSuffix(string(action), ".changed")
		e.Changes = []library.AuditChange{{Field: "default_loan_days", Before: "14", After: "21"}}
	default: // the accounts
		e.Target = usecase.NewUUID()
		e.SubjectID = e.Target
		e.Summary = "Account " + strings.TrimPrefix(string(action), "account.")
		e.Changes = []library.AuditChange{{Field: "role", Before: "staff", After: "librarian"}}
	}
	return e
}

// fillAudit appends n entries to the school's audit log through the store's
// AuditLogRepository, spread evenly (with jitter) over the 365 days before
// the last hour: the port appends one entry a call (it has no batch
// append), so -seed-workers calls run at once. It returns how long it took.
func fillAudit(ctx context.Context, s *svc, sc *school, n, workers int) (time.Duration, error) {
	actorIDs := map[string]string{}
	for _, email := range []string{demoLibrarian, demoAdmin} {
		_, acct, err := s.asEmail(ctx, email)
		if err != nil {
			return 0, err
		}
		actorIDs[email] = acct.ID
	}
	for _, a := range auditActors {
		if _, ok := actorIDs[a.email]; !ok && a.email != "" {
			actorIDs[a.email] = usecase.NewUUID() // staff who have left since: only the log knows them
		}
	}
	repo := s.App.Repos.AuditLog
	t0 := time.Now()
	end := t0.Add(-time.Hour).UTC()
	span := 365 * 24 * time.Hour
	tick, stop := progress("audit log (AuditLogRepository.Append)", n)
	defer stop()
	err := parallel(ctx, n, workers, func(ctx context.Context, i int) error {
		rnd := rand.New(rand.NewPCG(uint64(i), 30))
		at := end.Add(-span + time.Duration(float64(span)*float64(i)/float64(n)) - time.Duration(rnd.Int64N(int64(time.Minute))))
		if err := repo.Append(ctx, auditEntryAt(rnd, sc, actorIDs, at.Truncate(time.Millisecond))); err != nil {
			return fmt.Errorf("append audit entry %d: %w", i, err)
		}
		tick()
		return nil
	})
	return time.Since(t0), err
}

// auditDue is a due date the librarian chooses for the audited check-outs:
// a week after the school's default, moved on to a day the school's
// calendar allows, so that every one of them records loan.due_date.
func auditDue(ctx context.Context, s *svc, schoolID string) (string, error) {
	school, err := s.App.Repos.Schools.Get(ctx, schoolID)
	if err != nil {
		return "", err
	}
	today := school.Today(time.Now())
	def := school.DefaultDue(today)
	d, err := time.Parse(time.DateOnly, def)
	if err != nil {
		return "", err
	}
	for k := 7; k < 60; k++ {
		c := d.AddDate(0, 0, k).Format(time.DateOnly)
		if got, err := school.ParseDue(c, today); err == nil && got != def {
			return got, nil
		}
	}
	return "", fmt.Errorf("no due date the calendar allows in the 60 days after %s", def)
}

// auditCheckouts is the check-out comparison of -audit.
type auditCheckouts struct {
	Plain, Dated result
	RoundRatios  []float64 // each round's dated p50 ÷ plain p50
	Due          string
	Fill         time.Duration
	Entries      int
	Verified     string
}

// measureAudit fills the audit log, then measures the plain and the
// audited check-out alternately, checks what they wrote to the log, and
// measures the log's reads beside the baseline, all at one client.
func (r *runner) measureAudit(s *svc, sc *school, sr *sizeRun) error {
	o := r.o
	ctx := context.Background()
	ac := &auditCheckouts{Entries: o.auditEntries}
	sr.audit = ac
	log.Printf("  -audit: filling the audit log with %d entries", o.auditEntries)
	var err error
	if ac.Fill, err = fillAudit(ctx, s, sc, o.auditEntries, o.seedWorkers); err != nil {
		return err
	}
	log.Printf("  -audit: %d entries appended in %s (%.0f/s)", o.auditEntries, ac.Fill.Round(time.Millisecond), float64(o.auditEntries)/max(ac.Fill.Seconds(), 1e-9))
	if ac.Due, err = auditDue(ctx, s, sc.schoolID); err != nil {
		return err
	}

	// Each check-out lends a copy no one has: the seed's free copies, and
	// when a small school has too few, fresh titles of one copy each
	// (made through the use case, not measured). The students take turns,
	// so that none comes near a loan limit.
	block := (o.requests + auditRounds - 1) / auditRounds
	perSide := block*auditRounds + o.warmup
	free, err := freeCopies(ctx, s, sc, 2*perSide, "Audit Probe")
	if err != nil {
		return err
	}
	var (
		mu    sync.Mutex
		taken int
		made  = map[bool][]string{} // loan ids by side: true for the audited
	)
	side := func(dated bool) next {
		return func(int64) (rq, int, bool) {
			mu.Lock()
			k := taken
			taken++
			mu.Unlock()
			cp := free[k]
			body := loanBody(cp, sc.studentIDs[(k*13)%len(sc.studentIDs)])
			if dated {
				body = strings.TrimSuffix(body, "}") + fmt.Sprintf(`,"due_at":%q}`, ac.Due)
			}
			return rq{Method: http.MethodPost, Path: "/api/library/loans", Token: sc.lib, Body: body, OnOK: func(b []byte) {
				id := answer{Body: b}.field("loan", "id")
				mu.Lock()
				made[dated] = append(made[dated], id)
				mu.Unlock()
			}}, http.StatusCreated, true
		}
	}
	plainLabel, datedLabel := "check-out, no due date chosen (records no entry)", "check-out due on a chosen date (records loan.due_date)"
	ac.Plain, ac.Dated = result{Name: plainLabel}, result{Name: datedLabel}
	// Entries from here on can only come from these check-outs: the fill
	// ends an hour before now.
	since := time.Now().UTC().Truncate(time.Millisecond)
	settle(o.settleMax)
	if o.warmup > 0 {
		load("plain check-out warm-up", s.URL, 1, int64(o.warmup), side(false))
		load("dated check-out warm-up", s.URL, 1, int64(o.warmup), side(true))
	}
	for round := range auditRounds {
		var pr, dr result
		for _, dated := range []bool{round%2 == 1, round%2 == 0} {
			settle(o.settleMax)
			if dated {
				dr = load(datedLabel, s.URL, 1, int64(block), side(true))
			} else {
				pr = load(plainLabel, s.URL, 1, int64(block), side(false))
			}
		}
		if pr.Pct(50) > 0 {
			ac.RoundRatios = append(ac.RoundRatios, float64(dr.Pct(50))/float64(pr.Pct(50)))
		}
		ac.Plain.merge(pr)
		ac.Dated.merge(dr)
		log.Printf("  -audit round %d: plain p50 %s, dated p50 %s", round+1, ms(pr.Pct(50)), ms(dr.Pct(50)))
	}
	slices.Sort(ac.Plain.Lat)
	slices.Sort(ac.Dated.Lat)
	log.Printf("  -audit: plain check-out p50 %s p99 %s (%d, %d failed); dated p50 %s p99 %s (%d, %d failed); the log adds %+.1f%%",
		ms(ac.Plain.Pct(50)), ms(ac.Plain.Pct(99)), ac.Plain.N, ac.Plain.Errs, ms(ac.Dated.Pct(50)), ms(ac.Dated.Pct(99)), ac.Dated.N, ac.Dated.Errs,
		100*(float64(ac.Dated.Pct(50))/float64(ac.Plain.Pct(50))-1))
	if ac.Verified, err = verifyAudit(ctx, s, sc.schoolID, since, made[true], made[false]); err != nil {
		return err
	}
	log.Printf("  -audit: %s", ac.Verified)
	return r.measureAuditReads(s, sc, sr)
}

// verifyAudit checks that the log holds exactly one loan.due_date entry for
// each audited check-out since since, and nothing for the plain ones.
func verifyAudit(ctx context.Context, s *svc, schoolID string, since time.Time, dated, plain []string) (string, error) {
	es, err := s.App.Repos.AuditLog.Page(ctx, library.AuditQuery{SchoolID: schoolID, From: since}, len(dated)+len(plain)+10)
	if err != nil {
		return "", err
	}
	byTarget := map[string]int{}
	for _, e := range es {
		if e.Action != library.AuditLoanDueDate {
			return "", fmt.Errorf("-audit: the check-outs recorded a %s entry (%s): want only loan.due_date", e.Action, e.Summary)
		}
		byTarget[e.Target]++
	}
	for _, id := range plain {
		if byTarget[id] > 0 {
			return "", fmt.Errorf("-audit: the plain check-out %s recorded %d audit entries, want none", id, byTarget[id])
		}
	}
	for _, id := range dated {
		if byTarget[id] != 1 {
			return "", fmt.Errorf("-audit: the check-out %s due on a chosen date recorded %d audit entries, want 1", id, byTarget[id])
		}
	}
	if len(es) != len(dated) {
		return "", fmt.Errorf("-audit: %d entries since the check-outs began, want %d (one per check-out due on a chosen date)", len(es), len(dated))
	}
	return fmt.Sprintf("checked after measuring: %d entries since the check-outs began, one loan.due_date for each of the %d check-outs due on a chosen date, none for the %d plain ones",
		len(es), len(dated), len(plain)), nil
}

// measureAuditReads measures the baseline (the desk's loans list) and the
// log's reads at one client, in turn, as -reports does.
func (r *runner) measureAuditReads(s *svc, sc *school, sr *sizeRun) error {
	api := func(q url.Values) rq {
		p := "/api/library/audit"
		if len(q) > 0 {
			p += "?" + q.Encode()
		}
		return rq{Path: p, Token: sc.lib}
	}
	first, err := expect(s.URL, api(nil), 200)
	if err != nil {
		return err
	}
	cursor := first.field("next_cursor")
	if cursor == "" {
		return fmt.Errorf("-audit: the log's first page has no next_cursor: %.300s", first.Body)
	}
	today := time.Now().UTC()
	month := url.Values{"from": {today.AddDate(0, -2, 0).Format(time.DateOnly)}, "to": {today.AddDate(0, -1, -1).Format(time.DateOnly)}}
	cases := []reportCase{
		{"baseline: desk loans list `GET /api/library/loans`", rq{Path: "/api/library/loans", Token: sc.lib}},
		{"the log's first page `GET /api/library/audit`", api(nil)},
		{"one person's (the assistant, a fifth of the log) `?actor=`", api(url.Values{"actor": {auditAssistant}})},
		{"one action (" + string(auditOneAction) + ") `?action=`", api(url.Values{"action": {string(auditOneAction)}})},
		{"one month `?from=" + month.Get("from") + "&to=" + month.Get("to") + "`", api(month)},
		{"the page after the first `?cursor=` (its next_cursor)", api(url.Values{"cursor": {cursor}})},
		{"one person and an action they never take `?actor=&action=" + string(auditNeverTaken) + "`",
			api(url.Values{"actor": {auditAssistant}, "action": {string(auditNeverTaken)}})},
		{fmt.Sprintf("CSV export `?format=csv` (the service caps it at %d rows)", library.MaxAuditExport), api(url.Values{"format": {"csv"}})},
	}
	o := r.o
	for _, c := range cases {
		a, err := expect(s.URL, c.Req, 200)
		if err != nil {
			return fmt.Errorf("%s: %w", c.Label, err)
		}
		note := auditNote(a)
		settle(o.settleMax)
		load(c.Label+" warm-up", s.URL, 1, int64(max(o.warmup, 1)), constant(c.Req, 200))
		res := loadMin(c.Label, s.URL, 1, 0, o.maxTime, o.minRequests, o.hardTime, int64(o.requests), constant(c.Req, 200))
		log.Printf("  %s: %d requests, p50 %s, max %s, %d failed", c.Label, res.N, ms(res.Pct(50)), ms(res.Pct(100)), res.Errs)
		sr.reportRows = append(sr.reportRows, reportRow{Label: c.Label, Res: res, Note: note, P50Only: true})
	}
	return nil
}

// auditNote says what a read of the log answered: the entries on a page,
// or a CSV's rows and whether X-Next-Cursor says more remain.
func auditNote(a answer) string {
	if strings.HasPrefix(a.Resp.Header.Get("Content-Type"), "text/csv") {
		rows := strings.Count(string(a.Body), "\n") - 1
		more := ""
		if a.Resp.Header.Get("X-Next-Cursor") != "" {
			more = ", X-Next-Cursor set"
		}
		return fmt.Sprintf("%d lines after the header%s, %d bytes", rows, more, len(a.Body))
	}
	var page struct {
		Entries    []json.RawMessage `json:"entries"`
		NextCursor string            `json:"next_cursor"`
	}
	if json.Unmarshal(a.Body, &page) != nil {
		return fmt.Sprintf("%d bytes", len(a.Body))
	}
	if page.Entries == nil {
		return fmt.Sprintf("%d bytes", len(a.Body))
	}
	more := "last page"
	if page.NextCursor != "" {
		more = "next_cursor set"
	}
	return fmt.Sprintf("%d entries, %s, %d bytes", len(page.Entries), more, len(a.Body))
}

// writeAudit writes the -audit check-out comparison: the fill, both
// check-outs' figures, what the log adds against auditTarget, and the
// check of the entries written.
func (r *runner) writeAudit(rep *report, sr *sizeRun) {
	ac := sr.audit
	if ac == nil {
		return
	}
	if ac.Fill > 0 {
		rep.f("The audit log filled before measuring (not measured) with %d entries through `AuditLogRepository.Append`, one a call (the port has no batch append), "+
			"%d at once, in **%s** (%.0f entries/s): spread over the 365 days before the last hour, by %d staff actors, over %d actions, about the school's students.\n\n",
			ac.Entries, r.o.seedWorkers, ac.Fill.Round(time.Millisecond), float64(ac.Entries)/max(ac.Fill.Seconds(), 1e-9), len(auditActors), auditActionCount())
	}
	if ac.Plain.N == 0 {
		return
	}
	rep.f("Check-out `POST /api/library/loans` of a fresh copy at one client, the two sides alternating in %d rounds (due date chosen: %s):\n\n", auditRounds, ac.Due)
	rep.f("| check-out | requests | p50 | p99 | max | failed |\n|---|---|---|---|---|---|\n")
	for _, res := range []result{ac.Plain, ac.Dated} {
		rep.f("| %s | %d | %s | %s | %s | %d |\n", res.Name, res.N, ms(res.Pct(50)), ms(res.Pct(99)), ms(res.Pct(100)), res.Errs)
	}
	added := float64(ac.Dated.Pct(50))/float64(ac.Plain.Pct(50)) - 1
	var rounds []string
	for _, q := range ac.RoundRatios {
		rounds = append(rounds, fmt.Sprintf("%+.0f%%", 100*(q-1)))
	}
	rep.f("\nWhat the audit log adds to a check-out's p50 (audited p50 ÷ plain p50 − 1): **%+.1f%%**; %s. Per round: %s.\n\n",
		100*added, verdict(added <= auditTarget && ac.Plain.Errs == 0 && ac.Dated.Errs == 0, fmt.Sprintf("the target ≤ %.0f%%", 100*auditTarget)),
		strings.Join(rounds, ", "))
	if ac.Verified != "" {
		rep.f("The log, %s.\n\n", ac.Verified)
	}
}

// freeCopies is n copies no one has: the seed's free copies, and when a
// small school has too few, fresh titles of one copy each, titled prefix
// and a number (made through the use case, not measured).
func freeCopies(ctx context.Context, s *svc, sc *school, n int, prefix string) ([]seededCopy, error) {
	free := slices.Clone(sc.free)
	if len(free) >= n {
		return free, nil
	}
	libCtx, _, err := s.asEmail(ctx, demoLibrarian)
	if err != nil {
		return nil, err
	}
	for i := len(free); i < n; i++ {
		b, copies, err := s.App.Library.Holdings.AddBook(libCtx, "", library.BookDraft{Title: fmt.Sprintf("%s %d", prefix, i), Author: "Probe", Copies: 1})
		if err != nil {
			return nil, err
		}
		free = append(free, seededCopy{BookID: b.ID, ID: copies[0].ID, Code: copies[0].Code})
	}
	return free, nil
}
