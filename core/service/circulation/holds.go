package circulation

import (
	"context"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// How holds stay exactly-once with unique-key inserts alone (the records
// are in ports.HoldRepository):
//
//   - Placing writes the hold record, then its queue entry, keyed by
//     student and book: of racing placements one entry wins (201), the
//     others remove their record (409 hold_exists). A record without an
//     entry or an end never opened and is invisible.
//   - A hold ends once: its end record is keyed by the hold. Whoever ends it
//     (a cancellation, a loan to its student, an expiry) writes the end
//     first, then removes the entry (the student may hold the title again)
//     and the trap, and passes the trapped copy on (trapCopy).
//   - A copy that comes back, or whose trap ends, is passed to the first
//     waiting hold of its title's queue in (placed_at, id) order: one trap
//     record is unique by copy AND by hold, so of racing returns and
//     expiries each copy goes to one hold and each hold gets one copy; a
//     losing insert tries the next hold, or stops when the copy is taken.
//   - A trap and the end of its hold can race: the trapper writes the trap
//     then reads the end, the ender writes the end then reads the trap, so
//     one of them always sees the other, and the trap is undone. A trap and
//     a loan of the copy race the same way (trap then claim, claim then
//     trap): the trapper gives way to an active loan; the lender gives way
//     to a trap for another student and passes the copy on again. When both
//     gave way, the trapper (which reads the claim again after undoing its
//     trap) or the lender (which traps after releasing its claim) finds the
//     copy free, so it is not left on the shelf while a hold waits.
//   - A placement and a return race the same way: the placement writes its
//     entry, then counts the copies on the shelf (serveShelf); the return
//     releases its claim, then reads the queue. One of them puts the copy
//     aside for the queue's first hold.
//   - Renewing reads the title's queue count and its traps (two index
//     reads): any hold without a copy refuses the renewal.

// holdScanBatch is how many queue entries one read of a title's queue
// takes: a return walks its title's queue in batches, never a school's
// holds.
const holdScanBatch = 50

// maxStudentHolds bounds the holds a student's list shows (newest first).
const maxStudentHolds = 200

// HoldView is a hold with what is derived from its records.
type HoldView struct {
	Hold        library.Hold
	Status      string // waiting, ready, cancelled, fulfilled, expired
	Trap        *library.HoldTrap
	EndedAt     time.Time
	Book        library.Book
	StudentName string
	CopyCode    string // of the copy put aside, when ready
	// Position is a waiting hold's place in its title's queue (1 is next)
	// in the student's own views (Place, StudentHolds); 0 otherwise.
	Position int
}

// Holds serves holds: placing, listing and cancelling them.
type Holds struct {
	scope usecase.SchoolScope
	desk  *HoldDesk
}

// NewHolds builds Holds over the hold desk. It panics on a nil one.
func NewHolds(schools ports.SchoolRepository, desk *HoldDesk) *Holds {
	usecase.MustHave("NewHolds", struct{ Desk *HoldDesk }{desk})
	return &Holds{scope: usecase.NewSchoolScope(schools), desk: desk}
}

// HoldInput is a request to place a hold.
type HoldInput struct {
	SchoolID  string // admins only
	BookID    string
	StudentID string // librarians: the student; students: themselves or empty
}

// Place places a hold on a title with no copy on the shelf, for the
// calling student or, by a librarian, for a student of the school.
// Errors: Invalid (ids), Forbidden (a student for another), NotFound
// "book_not_found", "student_not_found", Conflict "hold_exists",
// "copy_available", "already_borrowing".
func (s *Holds) Place(ctx context.Context, in HoldInput) (HoldView, error) {
	p := user.PrincipalFrom(ctx)
	if p.Role == user.RoleStudent {
		if in.StudentID != "" && in.StudentID != p.AccountID {
			return HoldView{}, errs.E(errs.Forbidden, errs.CodeForbidden, "Students place holds for themselves only.")
		}
		in.StudentID = p.AccountID
	}
	if err := usecase.RequireUUIDs(map[string]string{"book_id": in.BookID, "student_id": in.StudentID}); err != nil {
		return HoldView{}, err
	}
	school, err := s.scope.Scope(ctx, in.SchoolID, "school_id")
	if err != nil {
		return HoldView{}, err
	}
	book, err := s.desk.holdings.Book(ctx, school.ID, in.BookID)
	if err != nil {
		return HoldView{}, err
	}
	student, err := schoolStudent(ctx, s.desk.accounts, school.ID, in.StudentID)
	if err != nil {
		return HoldView{}, err
	}
	if student.Inactive {
		return HoldView{}, library.ErrStudentInactive()
	}
	// A reference book is never lent, so a hold on it could never be met.
	if library.BookCategory(book) == library.CategoryReference {
		return HoldView{}, library.ErrNotForLoan()
	}
	open, err := s.desk.loans.Open(ctx, school.ID, student.ID, book.ID)
	if err != nil {
		return HoldView{}, err
	}
	if mine, err := s.desk.claimed(ctx, open); err != nil {
		return HoldView{}, err
	} else if len(mine) > 0 {
		return HoldView{}, library.ErrAlreadyBorrowing()
	}
	if _, err := s.desk.holds.OpenHold(ctx, student.ID, book.ID); err == nil {
		return HoldView{}, library.ErrHoldExists()
	} else if !errs.Is(err, errs.NotFound) {
		return HoldView{}, err
	}
	if free, err := s.desk.shelfCopies(ctx, school, book.ID); err != nil {
		return HoldView{}, err
	} else if free > 0 {
		return HoldView{}, library.ErrCopyAvailable()
	}
	h := library.Hold{ID: s.desk.clock.NewID(), SchoolID: school.ID, BookID: book.ID, StudentID: student.ID, PlacedAt: s.desk.clock.Now().UTC()}
	if err := s.desk.holds.Insert(ctx, h); err != nil {
		return HoldView{}, err
	}
	e := library.HoldQueueEntry{HoldID: h.ID, SchoolID: h.SchoolID, BookID: h.BookID, StudentID: h.StudentID, PlacedAt: h.PlacedAt}
	if err := s.desk.holds.Enqueue(ctx, e); err != nil {
		// The record never became a hold; removing it is tidiness only.
		_ = s.desk.holds.Delete(ctx, h.ID)
		return HoldView{}, err
	}
	// A copy returned while this hold was being placed found no queue:
	// give it to the queue now.
	if err := s.desk.ServeShelf(ctx, school, book.ID); err != nil {
		return HoldView{}, err
	}
	views, err := s.Views(ctx, []library.Hold{h}, true)
	if err != nil {
		return HoldView{}, err
	}
	if err := s.withPositions(ctx, views); err != nil {
		return HoldView{}, err
	}
	return views[0], nil
}

// Cancel ends a hold: a student their own, a librarian one of the school
// (of schoolParam's school when it names one, as a web page does). A copy
// put aside for it goes to the next hold.
// Errors: NotFound "hold_not_found", Conflict "hold_not_active", as scope.
func (s *Holds) Cancel(ctx context.Context, schoolParam, holdID string) (HoldView, error) {
	h, err := s.holdInScope(ctx, schoolParam, holdID)
	if err != nil {
		return HoldView{}, err
	}
	school, err := s.desk.schools.Get(ctx, h.SchoolID)
	if err != nil {
		return HoldView{}, err
	}
	if err := s.desk.endHold(ctx, school, h.ID, library.HoldCancelled, ""); err != nil {
		if errs.Is(err, errs.Conflict) {
			return HoldView{}, library.ErrHoldNotActive()
		}
		return HoldView{}, err
	}
	views, err := s.Views(ctx, []library.Hold{h}, true)
	if err != nil {
		return HoldView{}, err
	}
	return views[0], nil
}

// holdInScope finds a hold the caller may reach: a student their own, other
// roles their school's (admins any; within schoolParam when it names a
// school, see reaches). Others are NotFound, as is a record that never
// opened.
func (s *Holds) holdInScope(ctx context.Context, schoolParam, holdID string) (library.Hold, error) {
	if !usecase.IsUUID(holdID) {
		return library.Hold{}, library.ErrHoldNotFound()
	}
	holds, err := s.desk.holds.ByIDs(ctx, []string{holdID})
	if err != nil {
		return library.Hold{}, err
	}
	p := user.PrincipalFrom(ctx)
	if len(holds) == 0 || (p.Role == user.RoleStudent && holds[0].StudentID != p.AccountID) {
		return library.Hold{}, library.ErrHoldNotFound()
	}
	if ok, err := s.scope.Reaches(ctx, schoolParam, holds[0].SchoolID); err != nil || !ok {
		if err == nil {
			err = library.ErrHoldNotFound()
		}
		return library.Hold{}, err
	}
	return holds[0], nil
}

// views derives the status of each hold and adds its book, its student's
// name and the code of a copy put aside; holds that never opened are left
// out. A trap past its window is expired on the way (with expire).
// Queries are a fixed number per call, whatever the number of holds.
func (s *Holds) Views(ctx context.Context, holds []library.Hold, expire bool) ([]HoldView, error) {
	ids := usecase.Pluck(holds, func(h library.Hold) string { return h.ID })
	traps, err := s.desk.holds.TrapsOfHolds(ctx, ids)
	if err != nil {
		return nil, err
	}
	if expire && len(holds) > 0 {
		school, err := s.desk.schools.Get(ctx, holds[0].SchoolID)
		if err != nil {
			return nil, err
		}
		if n, err := s.desk.expireDue(ctx, school, traps); err != nil {
			return nil, err
		} else if n > 0 {
			return s.Views(ctx, holds, false)
		}
	}
	ends, err := s.desk.ended(ctx, ids)
	if err != nil {
		return nil, err
	}
	entries, err := s.desk.holds.Entries(ctx, ids)
	if err != nil {
		return nil, err
	}
	queued := map[string]bool{}
	for _, e := range entries {
		queued[e.HoldID] = true
	}
	trapOf := map[string]library.HoldTrap{}
	for _, t := range traps {
		trapOf[t.HoldID] = t
	}
	byBook := map[string][]string{}
	students := map[string]bool{}
	for _, h := range holds {
		byBook[h.SchoolID] = append(byBook[h.SchoolID], h.BookID)
		students[h.StudentID] = true
	}
	books := map[string]library.Book{}
	for school, bookIDs := range byBook {
		bs, err := s.desk.holdings.BooksByID(ctx, school, bookIDs)
		if err != nil {
			return nil, err
		}
		for _, b := range bs {
			books[b.ID] = b
		}
	}
	accountIDs := make([]string, 0, len(students))
	for id := range students {
		accountIDs = append(accountIDs, id)
	}
	accounts, err := s.desk.accounts.GetMany(ctx, accountIDs)
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	for _, a := range accounts {
		names[a.ID] = a.Name
	}
	out := make([]HoldView, 0, len(holds))
	for _, h := range holds {
		v := HoldView{Hold: h, Book: books[h.BookID], StudentName: names[h.StudentID]}
		switch end, done := ends[h.ID]; {
		case done:
			v.Status, v.EndedAt = end.Outcome, end.EndedAt
		case !queued[h.ID]:
			continue // never opened
		default:
			v.Status = library.HoldWaiting
			if t, ok := trapOf[h.ID]; ok {
				v.Status, v.Trap, v.CopyCode = library.HoldReady, &t, t.CopyCode
			}
		}
		out = append(out, v)
	}
	return out, nil
}

// StudentHolds returns the calling student's holds, newest first.
// Errors: Forbidden for other roles.
func (s *Holds) StudentHolds(ctx context.Context) ([]HoldView, error) {
	p, err := usecase.Student(ctx, "Only students have holds of their own.")
	if err != nil {
		return nil, err
	}
	holds, err := s.desk.holds.OfStudent(ctx, p.AccountID, maxStudentHolds)
	if err != nil {
		return nil, err
	}
	views, err := s.Views(ctx, holds, true)
	if err != nil {
		return nil, err
	}
	return views, s.withPositions(ctx, views)
}

// queueReadPage is how many entries of a title's queue one read takes
// while withPositions looks for a hold's place.
const queueReadPage = 100

// withPositions sets each waiting hold's place in its title's queue: one
// more than the open holds placed before it, those whose copy waits on the
// pickup shelf included (theirs goes on to the next if not collected).
// Each title's queue is read once, in its order through its index, up to
// the last of the holds asked about.
func (s *Holds) withPositions(ctx context.Context, views []HoldView) error {
	type title struct{ schoolID, bookID string }
	wanted := map[title]map[string]int{} // hold id -> index in views
	for i, v := range views {
		if v.Status != library.HoldWaiting {
			continue
		}
		t := title{v.Hold.SchoolID, v.Hold.BookID}
		if wanted[t] == nil {
			wanted[t] = map[string]int{}
		}
		wanted[t][v.Hold.ID] = i
	}
	for t, holds := range wanted {
		after, place, left := library.HoldQueueEntry{}, 0, len(holds)
		for left > 0 {
			page, err := s.desk.holds.Queue(ctx, t.schoolID, t.bookID, after, queueReadPage)
			if err != nil {
				return err
			}
			for _, e := range page {
				place++
				if i, ok := holds[e.HoldID]; ok {
					views[i].Position = place
					left--
				}
			}
			if len(page) < queueReadPage {
				break
			}
			after = page[len(page)-1]
		}
	}
	return nil
}

// HoldFilter narrows a school's list of open holds.
type HoldFilter struct {
	BookID string
	Status string // "", waiting, ready
}

// HoldPage is one page of a school's open holds.
type HoldPage struct {
	Book  library.Book // the book of HoldFilter.BookID, when one was named
	Holds []HoldView
	Page  int
	Limit int
	Total int
}

// Queue lists a school's open holds (of one book with BookID) in queue
// order, placed_at then id, one page at a time.
// Errors: Invalid (book_id, status, page, limit), NotFound
// "book_not_found", as scope.
func (s *Holds) Queue(ctx context.Context, schoolParam string, f HoldFilter, q usecase.ListQuery) (HoldPage, error) {
	fields := errs.FieldErrors{}
	if f.Status != "" && f.Status != library.HoldWaiting && f.Status != library.HoldReady {
		fields.Add("status", "must be waiting or ready")
	}
	if f.BookID != "" && !usecase.IsUUID(f.BookID) {
		fields.Add("book_id", "must be a UUID")
	}
	if _, err := q.Validate(); err != nil {
		return HoldPage{}, err
	}
	if err := fields.Err(); err != nil {
		return HoldPage{}, err
	}
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return HoldPage{}, err
	}
	var book library.Book
	if f.BookID != "" {
		if book, err = s.desk.holdings.Book(ctx, school.ID, f.BookID); err != nil {
			return HoldPage{}, err
		}
	}
	// A copy whose pickup window has passed is not ready any more: its hold
	// expires before the page is read, wherever it stands in the queue.
	if err := s.expireSchool(ctx, school); err != nil {
		return HoldPage{}, err
	}
	entries, total, err := s.desk.holds.QueuePage(ctx, school.ID, ports.QueueFilter{BookID: f.BookID, Status: f.Status}, q.Offset(), q.Limit)
	if err != nil {
		return HoldPage{}, err
	}
	page := HoldPage{Book: book, Page: q.Page, Limit: q.Limit, Total: total}
	if len(entries) == 0 {
		return page, nil
	}
	pageIDs := usecase.Pluck(entries, func(e library.HoldQueueEntry) string { return e.HoldID })
	holds, err := s.desk.holds.ByIDs(ctx, pageIDs)
	if err != nil {
		return HoldPage{}, err
	}
	byID := map[string]library.Hold{}
	for _, h := range holds {
		byID[h.ID] = h
	}
	ordered := make([]library.Hold, 0, len(pageIDs))
	for _, id := range pageIDs {
		if h, ok := byID[id]; ok {
			ordered = append(ordered, h)
		}
	}
	if page.Holds, err = s.Views(ctx, ordered, false); err != nil {
		return HoldPage{}, err
	}
	return page, nil
}

// expiryBatch and expiryBatches bound the expiries one request makes
// before it reads the queue; the sweep expires the rest.
const (
	expiryBatch   = 50
	expiryBatches = 4
)

// expireSchool expires the school's holds whose copy's pickup window has
// passed, through the index of the school's traps.
func (s *Holds) expireSchool(ctx context.Context, school library.School) error {
	for range expiryBatches {
		traps, err := s.desk.holds.ExpiredTrapsOf(ctx, school.ID, s.desk.clock.Now(), expiryBatch)
		if err != nil {
			return err
		}
		if _, err := s.desk.expireDue(ctx, school, traps); err != nil {
			return err
		}
		if len(traps) < expiryBatch {
			return nil
		}
	}
	return nil
}

// Bounds of the holds one sweep expires: batches of holdSweepBatch traps,
// at most holdSweepBatches of them; the next slot goes on where this one
// stopped (and every read of a copy or a queue expires lazily meanwhile).
const (
	holdSweepBatch   = 100
	holdSweepBatches = 50
)

// ExpireSweep is the sweeper's task (kind "expired_holds"): it expires
// the holds whose copy waited past the pickup window by now, passing each
// copy to the next hold, within the bounds of one sweep.
func (s *Holds) ExpireSweep(ctx context.Context, now time.Time) (int64, error) {
	return s.ExpireDue(ctx, now, holdSweepBatch, holdSweepBatches)
}

// ExpireDue expires the holds whose pickup window has passed by now, in
// batches of batch, at most batches of them, through the index on the
// traps' expiry; each copy goes to the next hold of its title. It returns
// how many holds it expired.
func (s *Holds) ExpireDue(ctx context.Context, now time.Time, batch, batches int) (int64, error) {
	var n int64
	schools := map[string]library.School{}
	for i := 0; i < batches; i++ {
		traps, err := s.desk.holds.ExpiredTraps(ctx, now, batch)
		if err != nil {
			return n, err
		}
		for _, t := range traps {
			school, ok := schools[t.SchoolID]
			if !ok {
				if school, err = s.desk.schools.Get(ctx, t.SchoolID); err != nil {
					if !errs.Is(err, errs.NotFound) {
						return n, err
					}
					school = library.School{ID: t.SchoolID, Settings: library.DefaultSettings()}
				}
				schools[t.SchoolID] = school
			}
			// A hold ended otherwise had only its trap left over, which
			// endHold removes all the same.
			err := s.desk.endHold(ctx, school, t.HoldID, library.HoldExpired, "")
			if err != nil && !errs.Is(err, errs.Conflict) {
				return n, err
			}
			if err == nil {
				n++
			}
		}
		if len(traps) < batch {
			break
		}
	}
	return n, nil
}
