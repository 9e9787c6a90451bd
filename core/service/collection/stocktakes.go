package collection

import (
	"context"
	"fmt"
	"io"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// Stocktakes serve the checks of a school's shelves: opening one for the
// whole collection or a range of call numbers, scanning the copies found
// (one at a time at the desk, or a scanner's file), closing it, its report
// (missing, scanned while on loan, misplaced) and the two actions of the
// report (check in a copy found on the shelf while on loan, mark the
// missing copies lost).
//
// Several stocktakes of a school may be open at once (two librarians on
// two ranges). A copy's scan is a unique-key insert keyed by the stocktake
// and the copy, so it counts once however often, or from however many
// desks, it is sent. The report walks the school's books in call number
// order a page at a time and looks up their copies, scans and loans in
// batches, so it never reads the whole school at once.
type Stocktakes struct {
	scope      usecase.SchoolScope
	stocktakes ports.StocktakeRepository
	active     ports.ActiveLoanRepository
	// holdings finds copies by code exactly as the desk's check-out does.
	holdings *Holdings
	// circulation returns the loans checked in from a report.
	circulation *circulation.Circulation
	books       ports.HoldingsRepository
	// jobs runs a mark-lost asked for as a job; slots bounds the scanner
	// files read at once.
	jobs       *usecase.ImportJobs
	slots      *usecase.ImportSlots
	loanReader circulation.LoanReader
	clock      *usecase.Clock
}

// StocktakesDeps are what Stocktakes is built with; none may be nil.
type StocktakesDeps struct {
	Schools     ports.SchoolRepository
	Stocktakes  ports.StocktakeRepository
	ActiveLoans ports.ActiveLoanRepository
	Books       ports.HoldingsRepository
	Holdings    *Holdings
	Circulation *circulation.Circulation
	Loans       circulation.LoanReader
	Jobs        *usecase.ImportJobs
	Slots       *usecase.ImportSlots
	Clock       *usecase.Clock
}

// NewStocktakes builds Stocktakes. It panics on a nil dependency.
func NewStocktakes(d StocktakesDeps) *Stocktakes {
	usecase.MustHave("NewStocktakes", d)
	return &Stocktakes{scope: usecase.NewSchoolScope(d.Schools), stocktakes: d.Stocktakes, active: d.ActiveLoans, holdings: d.Holdings, circulation: d.Circulation,
		books: d.Books, jobs: d.Jobs, slots: d.Slots, loanReader: d.Loans, clock: d.Clock}
}

// Stocktake report pages and lists.
const (
	stocktakeBookPage   = 500
	stocktakeBatch      = 500
	stocktakesListed    = 50
	DefaultReportLimit  = 200
	MaxReportLimit      = 1000
	stocktakeLostNote   = "missing at the stocktake of %s"
	stocktakeDateLayout = "2006-01-02"
)

// StocktakeView is a stocktake with how many copies it has scanned.
type StocktakeView struct {
	Stocktake library.Stocktake
	Scanned   int
}

// Scan outcomes.
const (
	ScanCounted = "scanned"
	ScanAgain   = "already_scanned"
)

// ScanResult is the answer to one scan.
type ScanResult struct {
	Status string // ScanCounted or ScanAgain
	Copy   library.Copy
	Book   library.Book
	// OnLoan: the copy was found on the shelf although a loan holds it.
	OnLoan bool
	// Misplaced: its book's call number is outside the stocktake's range.
	Misplaced bool
	Scanned   int // the stocktake's scans after this one
}

// UploadResult is the answer to a scanner file.
type UploadResult struct {
	Counted int // codes that counted now
	Again   int // codes scanned before (in the file or earlier)
	// Unknown are the codes no copy of the school has, with their lines;
	// they are not stored, and the other codes still count.
	Unknown []library.ScanLine
	Scanned int // the stocktake's scans after the file
}

// ReportCopy is one copy of a stocktake report.
type ReportCopy struct {
	Copy library.Copy
	Book library.Book
	Loan *library.Loan // the active loan, in the on-loan list
}

// StocktakeReportCopies is one list of a stocktake report.
type StocktakeReportCopies = []ReportCopy

// StocktakeReport is what a stocktake found. Each list holds at most Limit
// copies; the totals count them all.
type StocktakeReport struct {
	Stocktake      StocktakeView
	Missing        []ReportCopy
	MissingTotal   int
	OnLoan         []ReportCopy
	OnLoanTotal    int
	Misplaced      []ReportCopy
	MisplacedTotal int
	Limit          int
}

// Open starts a stocktake of the school's books whose call numbers run
// from..to (both empty: the whole collection).
// Errors: Invalid (from, to), as scope.
func (s *Stocktakes) Open(ctx context.Context, schoolParam, from, to string) (library.Stocktake, error) {
	if err := library.ValidateStocktakeRange(from, to); err != nil {
		return library.Stocktake{}, err
	}
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return library.Stocktake{}, err
	}
	st := library.Stocktake{ID: s.clock.NewID(), SchoolID: school.ID, From: library.NormalizeCallNumber(from),
		To: library.NormalizeCallNumber(to), OpenedBy: user.PrincipalFrom(ctx).AccountID, OpenedAt: s.clock.Now().UTC()}
	if err := s.stocktakes.Create(ctx, st); err != nil {
		return library.Stocktake{}, err
	}
	return st, nil
}

// List returns the school's latest stocktakes, newest first.
// Errors: as scope.
func (s *Stocktakes) List(ctx context.Context, schoolParam string) ([]StocktakeView, error) {
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return nil, err
	}
	sts, err := s.stocktakes.OfSchool(ctx, school.ID, stocktakesListed)
	if err != nil {
		return nil, err
	}
	out := make([]StocktakeView, 0, len(sts))
	for _, st := range sts {
		v, err := s.view(ctx, st)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// Get returns one stocktake of the school with its count of scans.
// Errors: NotFound "stocktake_not_found", as scope.
func (s *Stocktakes) Get(ctx context.Context, schoolParam, id string) (StocktakeView, error) {
	st, err := s.inScope(ctx, schoolParam, id)
	if err != nil {
		return StocktakeView{}, err
	}
	return s.view(ctx, st)
}

func (s *Stocktakes) view(ctx context.Context, st library.Stocktake) (StocktakeView, error) {
	n, err := s.stocktakes.CountScans(ctx, st.ID)
	if err != nil {
		return StocktakeView{}, err
	}
	return StocktakeView{Stocktake: st, Scanned: n}, nil
}

// inScope finds a stocktake of the school the request acts on.
func (s *Stocktakes) inScope(ctx context.Context, schoolParam, id string) (library.Stocktake, error) {
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return library.Stocktake{}, err
	}
	if !usecase.IsUUID(id) {
		return library.Stocktake{}, library.ErrStocktakeNotFound()
	}
	return s.stocktakes.Get(ctx, school.ID, id)
}

// Scan records a copy found on the shelf by its printed code, found as
// check-out finds it. A copy scanned before answers ScanAgain and counts
// once.
// Errors: NotFound "stocktake_not_found", "copy_not_found" (no copy of
// the school has the code; nothing is stored), Conflict "stocktake_closed",
// as scope.
func (s *Stocktakes) Scan(ctx context.Context, schoolParam, id, code string) (ScanResult, error) {
	st, err := s.inScope(ctx, schoolParam, id)
	if err != nil {
		return ScanResult{}, err
	}
	if st.Closed() {
		return ScanResult{}, library.ErrStocktakeClosed()
	}
	res, err := s.scan(ctx, st, code)
	if err != nil {
		return ScanResult{}, err
	}
	if res.Scanned, err = s.stocktakes.CountScans(ctx, st.ID); err != nil {
		return ScanResult{}, err
	}
	return res, nil
}

func (s *Stocktakes) scan(ctx context.Context, st library.Stocktake, code string) (ScanResult, error) {
	found, err := s.holdings.CopyByCode(ctx, st.SchoolID, code)
	if err != nil {
		return ScanResult{}, err
	}
	res := ScanResult{Status: ScanCounted, Copy: found.Copy, Book: found.Book, OnLoan: found.Loan != nil,
		Misplaced: !st.Covers(found.Book.CallNumber)}
	sc := library.StocktakeScan{StocktakeID: st.ID, CopyID: found.Copy.ID, SchoolID: st.SchoolID, BookID: found.Copy.BookID,
		Code: found.Copy.Code, By: user.PrincipalFrom(ctx).AccountID, ScannedAt: s.clock.Now().UTC()}
	switch err := s.stocktakes.AddScan(ctx, sc); {
	case errs.Is(err, errs.Conflict):
		res.Status = ScanAgain
	case err != nil:
		return ScanResult{}, err
	}
	return res, nil
}

// Upload records the codes of a scanner's text file (see
// library.ReadScanFile). A file that cannot be read is refused whole with
// its lines; otherwise every known code counts (once), and the codes no
// copy has are answered with their lines and not stored.
// Errors: Invalid with details.lines, NotFound "stocktake_not_found",
// Conflict "stocktake_closed", as scope.
func (s *Stocktakes) Upload(ctx context.Context, schoolParam, id string, file library.Upload) (UploadResult, error) {
	st, err := s.inScope(ctx, schoolParam, id)
	if err != nil {
		return UploadResult{}, err
	}
	if st.Closed() {
		return UploadResult{}, library.ErrStocktakeClosed()
	}
	release, err := s.slots.Take()
	if err != nil {
		return UploadResult{}, err
	}
	defer release()
	var (
		lines    []library.ScanLine
		problems []library.LineError
	)
	if err := usecase.ReadUpload(file, func(r io.Reader) { lines, problems = library.ReadScanFile(r) }); err != nil {
		return UploadResult{}, errs.Wrap(err, "The file could not be read.")
	}
	if len(problems) > 0 {
		return UploadResult{}, usecase.LineErrors(problems, "nothing was scanned")
	}
	out := UploadResult{Unknown: []library.ScanLine{}}
	for _, l := range lines {
		res, err := s.scan(ctx, st, l.Code)
		switch {
		case errs.Is(err, errs.NotFound):
			out.Unknown = append(out.Unknown, l)
		case err != nil:
			return UploadResult{}, err
		case res.Status == ScanAgain:
			out.Again++
		default:
			out.Counted++
		}
	}
	if out.Scanned, err = s.stocktakes.CountScans(ctx, st.ID); err != nil {
		return UploadResult{}, err
	}
	return out, nil
}

// Close ends a stocktake's scanning; closing it again changes nothing.
// Errors: NotFound "stocktake_not_found", as scope.
func (s *Stocktakes) Close(ctx context.Context, schoolParam, id string) (StocktakeView, error) {
	st, err := s.inScope(ctx, schoolParam, id)
	if err != nil {
		return StocktakeView{}, err
	}
	if !st.Closed() {
		if err := s.stocktakes.Close(ctx, st.SchoolID, st.ID, s.clock.Now().UTC()); err != nil {
			return StocktakeView{}, err
		}
		if st, err = s.stocktakes.Get(ctx, st.SchoolID, st.ID); err != nil {
			return StocktakeView{}, err
		}
	}
	return s.view(ctx, st)
}

// Report returns what the stocktake found so far (an open one's report
// counts the copies not scanned yet as missing): each list holds at most
// limit copies (1..MaxReportLimit; callers that take none pass
// DefaultReportLimit), the totals count all of them.
// Errors: Invalid (limit), NotFound "stocktake_not_found", as scope.
func (s *Stocktakes) Report(ctx context.Context, schoolParam, id string, limit int) (StocktakeReport, error) {
	if limit < 1 || limit > MaxReportLimit {
		return StocktakeReport{}, errs.InvalidField("limit", fmt.Sprintf("must be between 1 and %d", MaxReportLimit))
	}
	st, err := s.inScope(ctx, schoolParam, id)
	if err != nil {
		return StocktakeReport{}, err
	}
	v, err := s.view(ctx, st)
	if err != nil {
		return StocktakeReport{}, err
	}
	rep := StocktakeReport{Stocktake: v, Limit: limit, Missing: []ReportCopy{}, OnLoan: []ReportCopy{}, Misplaced: []ReportCopy{}}
	err = s.walkMissing(ctx, st, func(missing []ReportCopy) error {
		rep.MissingTotal += len(missing)
		rep.Missing = appendUpTo(rep.Missing, missing, limit)
		return nil
	})
	if err != nil {
		return StocktakeReport{}, err
	}
	err = s.walkScans(ctx, st, func(onLoan, misplaced []ReportCopy) {
		rep.OnLoanTotal += len(onLoan)
		rep.OnLoan = appendUpTo(rep.OnLoan, onLoan, limit)
		rep.MisplacedTotal += len(misplaced)
		rep.Misplaced = appendUpTo(rep.Misplaced, misplaced, limit)
	})
	if err != nil {
		return StocktakeReport{}, err
	}
	return rep, nil
}

func appendUpTo(list, more []ReportCopy, limit int) []ReportCopy {
	if room := limit - len(list); room > 0 {
		list = append(list, more[:min(room, len(more))]...)
	}
	return list
}

// walkMissing calls fn with each page of the copies in the stocktake's
// range that it has not scanned, no loan holds and are not lost already,
// in call number order: a page of books by the call number index, then
// their copies, scans and loans in batches.
func (s *Stocktakes) walkMissing(ctx context.Context, st library.Stocktake, fn func([]ReportCopy) error) error {
	page := ports.CallNumberPage{From: st.From, Before: library.CallRangeEnd(st.To)}
	for {
		books, err := s.stocktakes.BooksByCallNumber(ctx, st.SchoolID, page, stocktakeBookPage)
		if err != nil {
			return err
		}
		if len(books) == 0 {
			return nil
		}
		last := books[len(books)-1]
		page.AfterCallNumber, page.AfterID = last.CallNumber, last.ID
		missing, err := s.missingOf(ctx, st, books)
		if err != nil {
			return err
		}
		if err := fn(missing); err != nil {
			return err
		}
		if len(books) < stocktakeBookPage {
			return nil
		}
	}
}

// missingOf returns the missing copies of some books of the range.
func (s *Stocktakes) missingOf(ctx context.Context, st library.Stocktake, books []library.Book) ([]ReportCopy, error) {
	byID := make(map[string]library.Book, len(books))
	ids := make([]string, 0, len(books))
	for _, b := range books {
		if st.Covers(b.CallNumber) { // the index's byte order, checked against the range's own
			byID[b.ID] = b
			ids = append(ids, b.ID)
		}
	}
	copies, err := s.stocktakes.CopiesOfBooks(ctx, st.SchoolID, ids)
	if err != nil {
		return nil, err
	}
	var out []ReportCopy
	for from := 0; from < len(copies); from += stocktakeBatch {
		batch := copies[from:min(from+stocktakeBatch, len(copies))]
		cids := copyIDs(batch)
		scanned, err := s.stocktakes.Scanned(ctx, st.ID, cids)
		if err != nil {
			return nil, err
		}
		lent, err := s.loanReader.ActiveLoans(ctx, cids)
		if err != nil {
			return nil, err
		}
		for _, c := range batch {
			_, onLoan := lent[c.ID]
			if !scanned[c.ID] && !onLoan && c.Condition.Condition != library.ConditionLost {
				out = append(out, ReportCopy{Copy: c, Book: byID[c.BookID]})
			}
		}
	}
	return out, nil
}

// walkScans calls fn with each page of the stocktake's scans: the copies
// a loan holds, and those whose book is outside the range (a copy may be
// in both).
func (s *Stocktakes) walkScans(ctx context.Context, st library.Stocktake, fn func(onLoan, misplaced []ReportCopy)) error {
	after := ""
	for {
		scans, err := s.stocktakes.ScansPage(ctx, st.ID, after, stocktakeBatch)
		if err != nil || len(scans) == 0 {
			return err
		}
		after = scans[len(scans)-1].CopyID
		cids := make([]string, 0, len(scans))
		bids := make([]string, 0, len(scans))
		for _, sc := range scans {
			cids, bids = append(cids, sc.CopyID), append(bids, sc.BookID)
		}
		books, err := s.books.BooksByID(ctx, st.SchoolID, bids)
		if err != nil {
			return err
		}
		byID := make(map[string]library.Book, len(books))
		for _, b := range books {
			byID[b.ID] = b
		}
		lent, err := s.loanReader.ActiveLoans(ctx, cids)
		if err != nil {
			return err
		}
		var onLoan, misplaced []ReportCopy
		for _, sc := range scans {
			c := ReportCopy{Copy: library.Copy{ID: sc.CopyID, SchoolID: sc.SchoolID, BookID: sc.BookID, Code: sc.Code}, Book: byID[sc.BookID]}
			if l, ok := lent[sc.CopyID]; ok {
				c.Loan = &l
				onLoan = append(onLoan, c)
			}
			if !st.Covers(c.Book.CallNumber) {
				c.Loan = nil
				misplaced = append(misplaced, c)
			}
		}
		fn(onLoan, misplaced)
		if len(scans) < stocktakeBatch {
			return nil
		}
	}
}

func copyIDs(copies []library.Copy) []string {
	out := usecase.Pluck(copies, func(c library.Copy) string { return c.ID })
	return out
}

// CheckIn returns the loan of a copy the stocktake found on the shelf
// while on loan, through the desk's return.
// Errors: NotFound "stocktake_not_found", "scan_not_found" (the stocktake
// has not scanned the copy), Conflict "loan_not_active" (no loan holds the
// copy: returned meanwhile), as scope.
func (s *Stocktakes) CheckIn(ctx context.Context, schoolParam, id, copyID string) (circulation.LoanView, error) {
	st, err := s.inScope(ctx, schoolParam, id)
	if err != nil {
		return circulation.LoanView{}, err
	}
	if !usecase.IsUUID(copyID) {
		return circulation.LoanView{}, library.ErrScanNotFound()
	}
	if _, err := s.stocktakes.Scan(ctx, st.ID, copyID); err != nil {
		return circulation.LoanView{}, err
	}
	loan, lent, err := s.loanReader.ActiveLoanOf(ctx, copyID)
	if err != nil {
		return circulation.LoanView{}, err
	}
	if !lent {
		return circulation.LoanView{}, library.ErrLoanNotActive()
	}
	return s.circulation.ReturnLoan(ctx, loan.ID)
}

// MarkMissingLost marks every missing copy of a closed stocktake lost, as
// a copy off the shelf without a loan: nobody borrowed it, so nobody is
// charged (charges follow a loan, see Circulation.EndLoan), and a check-in
// puts it back on the shelf. A copy marked once is lost, so no longer
// missing: asking again marks nothing more. It returns how many copies
// this call marked.
//
// Each copy is marked exactly once, and never while lent: the copies of a
// page are claimed first (one batch of unique-key inserts, as a loan
// claims its copy), so of a mark and a check-out racing for a copy exactly
// one goes ahead, and of racing marks one marks it; the claims are
// released once the condition is written.
// Errors: NotFound "stocktake_not_found", Conflict "stocktake_open", as
// scope.
func (s *Stocktakes) MarkMissingLost(ctx context.Context, schoolParam, id string) (int, error) {
	st, err := s.closedInScope(ctx, schoolParam, id)
	if err != nil {
		return 0, err
	}
	return s.markMissing(ctx, st)
}

// MarkMissingLostJob marks the missing copies lost as MarkMissingLost
// does, in a job of the school: it answers at once with the job, whose
// outcome is the count. A school of thousands of copies on a slow store
// takes longer than a request may.
// Errors: as MarkMissingLost; Conflict "import_running" (a job of the
// school is running).
func (s *Stocktakes) MarkMissingLostJob(ctx context.Context, schoolParam, id string) (library.ImportJob, error) {
	st, err := s.closedInScope(ctx, schoolParam, id)
	if err != nil {
		return library.ImportJob{}, err
	}
	job := s.jobs.NewJob(ctx, st.SchoolID, library.JobKindStocktakeMarkLost, "", 0, false)
	err = s.jobs.Start(ctx, job, func(ctx context.Context) (usecase.ImportOutcome, error) {
		n, err := s.markMissing(ctx, st)
		return usecase.ImportOutcome{Marked: &n}, err
	})
	if err != nil {
		return library.ImportJob{}, err
	}
	return job, nil
}

// closedInScope is the caller's closed stocktake.
func (s *Stocktakes) closedInScope(ctx context.Context, schoolParam, id string) (library.Stocktake, error) {
	st, err := s.inScope(ctx, schoolParam, id)
	if err != nil {
		return library.Stocktake{}, err
	}
	if !st.Closed() {
		return library.Stocktake{}, library.ErrStocktakeOpen()
	}
	return st, nil
}

// markMissing marks the closed stocktake's missing copies lost, a page of
// books at a time, and returns how many it marked.
func (s *Stocktakes) markMissing(ctx context.Context, st library.Stocktake) (int, error) {
	now := s.clock.Now().UTC()
	cond := library.CopyCondition{Condition: library.ConditionLost, At: now,
		Note: fmt.Sprintf(stocktakeLostNote, st.OpenedAt.Format(stocktakeDateLayout))}
	holder := library.ChangeClaimID(library.ChangeLost, s.clock.NewID())
	marked := 0
	err := s.walkMissing(ctx, st, func(missing []ReportCopy) error {
		n, err := s.markLost(ctx, st.SchoolID, missing, holder, cond)
		marked += n
		return err
	})
	return marked, err
}

// markLost marks one page of missing copies lost under claims named
// holder, and returns how many it marked: those it claimed that are still
// on the shelf. A copy a live loan or change holds is left as it is.
func (s *Stocktakes) markLost(ctx context.Context, schoolID string, missing []ReportCopy, holder string, cond library.CopyCondition) (int, error) {
	if len(missing) == 0 {
		return 0, nil
	}
	now := s.clock.Now().UTC()
	claims := make([]library.CopyClaim, len(missing))
	for i, c := range missing {
		claims[i] = library.CopyClaim{CopyID: c.Copy.ID, LoanID: holder, SchoolID: schoolID, BookID: c.Copy.BookID, ClaimedAt: now}
	}
	taken, err := s.claimCopies(ctx, claims)
	ids := usecase.Pluck(taken, func(c library.CopyClaim) string { return c.CopyID })
	// Whatever happens next, the claims go: one write, even if the
	// request has been cancelled meanwhile.
	defer func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), usecase.UndoTimeout)
		defer cancel()
		_ = s.active.ReleaseMany(uctx, ids, holder)
	}()
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	// Under the claims no other writer changes a copy's condition: one
	// write marks those still on the shelf, a page of books at a time, so
	// a whole school's missing copies are marked within the request's
	// deadline.
	return s.stocktakes.MarkShelvedCopies(ctx, schoolID, ids, cond)
}

// claimCopies takes the claims it can, in one batch, and once more for the
// copies whose claim turned out stale (left by an interrupted return or a
// change that stopped), and returns the claims it took.
func (s *Stocktakes) claimCopies(ctx context.Context, claims []library.CopyClaim) ([]library.CopyClaim, error) {
	var taken []library.CopyClaim
	for attempt := 0; attempt < 2 && len(claims) > 0; attempt++ {
		won, err := s.active.ClaimMany(ctx, claims)
		if err != nil {
			return taken, err
		}
		got := make(map[int]bool, len(won))
		for _, i := range won {
			got[i] = true
			taken = append(taken, claims[i])
		}
		var refused []library.CopyClaim
		for i, c := range claims {
			if !got[i] {
				refused = append(refused, c)
			}
		}
		if refused, err = s.circulation.StaleClaims(ctx, refused); err != nil {
			return taken, err
		}
		claims = refused
	}
	return taken, nil
}
