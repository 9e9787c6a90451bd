package collection

import (
	"context"
	"slices"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// Reviews serves the students' ratings and short reviews of titles they
// borrowed: written by students, shown in the catalogue once a librarian
// approves them, and hidden again at any time.
type Reviews struct {
	scope    usecase.SchoolScope
	holdings ports.HoldingsRepository
	reviews  ports.ReviewRepository
	loans    ports.LoanRepository
	accounts ports.AccountRepository
	clock    *usecase.Clock
}

// ReviewsDeps are the stores Reviews uses.
type ReviewsDeps struct {
	Schools  ports.SchoolRepository
	Holdings ports.HoldingsRepository
	Reviews  ports.ReviewRepository
	Loans    ports.LoanRepository
	Accounts ports.AccountRepository
	Clock    *usecase.Clock
}

// NewReviews builds Reviews. It panics on a nil dependency.
func NewReviews(d ReviewsDeps) *Reviews {
	usecase.MustHave("NewReviews", d)
	return &Reviews{scope: usecase.NewSchoolScope(d.Schools), holdings: d.Holdings, reviews: d.Reviews, loans: d.Loans,
		accounts: d.Accounts, clock: d.Clock}
}

// ReviewView is a review with its title, and for the desk its writer.
type ReviewView struct {
	Review library.Review
	Book   library.Book
	// StudentName is the writer's name on the desk's lists; "" elsewhere
	// (the catalogue shows reviews without names).
	StudentName string
}

// maxOwnReviews caps the student's list of their own reviews.
const maxOwnReviews = 200

func reviewer(ctx context.Context) (user.Principal, error) {
	return usecase.Student(ctx, "Only students write reviews.")
}

// Write saves the calling student's review of a title of their school they
// have borrowed (a loan out or ended that still names them). It waits for
// a librarian's approval, and so does every later edit of it.
// Errors: Forbidden (the caller is no student), Invalid book_id, rating or
// text, NotFound "book_not_found", Conflict "not_borrowed",
// "review_changed" (racing writes of it kept taking its next revision).
func (s *Reviews) Write(ctx context.Context, bookID string, d library.ReviewDraft) (ReviewView, error) {
	p, err := reviewer(ctx)
	if err != nil {
		return ReviewView{}, err
	}
	if err := usecase.RequireUUIDs(map[string]string{"book_id": bookID}); err != nil {
		return ReviewView{}, err
	}
	if d, err = d.Clean(); err != nil {
		return ReviewView{}, err
	}
	book, err := s.holdings.Book(ctx, p.SchoolID, bookID)
	if err != nil {
		return ReviewView{}, err
	}
	borrowed, err := s.loans.HasBorrowed(ctx, p.AccountID, bookID)
	if err != nil {
		return ReviewView{}, err
	}
	if !borrowed {
		return ReviewView{}, library.ErrNotBorrowed()
	}
	now, id := s.clock.Now().UTC(), library.ReviewID(p.AccountID, bookID)
	rv, err := s.saveNext(ctx, p.SchoolID, id, func(old library.Review, found bool) (library.Review, bool) {
		rv := library.Review{ID: id, SchoolID: p.SchoolID, BookID: bookID, StudentID: p.AccountID,
			Rating: d.Rating, Text: d.Text, Status: library.ReviewPending, CreatedAt: now, UpdatedAt: now}
		if found && old.Status != library.ReviewWithdrawn {
			rv.CreatedAt = old.CreatedAt
		}
		return rv, true
	})
	if err != nil {
		return ReviewView{}, err
	}
	return ReviewView{Review: rv, Book: book}, nil
}

// writeAttempts bounds the saves of one write or withdrawal. A refused
// save lost its revision to a racing write of the same review (another
// tab, a double submit), which was stored, or to one that stopped
// half-way; either way the next attempt takes a later number.
const writeAttempts = 4

// saveNext saves, as the revision after the stored one, the review next
// makes of the school's review id as stored (found false: none). Every
// revision is written once, so a number a racing write took is refused;
// it then reads again and tries the number after both. next returning
// false saves nothing.
// Errors: as ReviewRepository.Get and Save; Conflict "review_changed"
// once every attempt was refused.
func (s *Reviews) saveNext(ctx context.Context, schoolID, id string,
	next func(old library.Review, found bool) (library.Review, bool)) (library.Review, error) {
	tried := 0
	for attempt := 1; ; attempt++ {
		old, err := s.reviews.Get(ctx, schoolID, id)
		found := err == nil
		if !found {
			if !errs.Is(err, errs.NotFound) {
				return library.Review{}, err
			}
			old = library.Review{}
		}
		rv, ok := next(old, found)
		if !ok {
			return library.Review{}, nil
		}
		// Past the stored revision and past any tried: a number refused
		// stays taken even when its save never got stored.
		rv.Revision = max(old.Revision, tried) + 1
		tried = rv.Revision
		err = s.reviews.Save(ctx, rv)
		switch {
		case err == nil:
			return rv, nil
		case !errs.Is(err, errs.Conflict) || attempt == writeAttempts:
			return library.Review{}, err
		}
	}
}

// Withdraw takes back the calling student's review of a title; none is
// not an error. The rating and text go at once; what stays is a withdrawn
// record of the revision, so a review written again later has a revision
// no librarian has read (a decision on the old one is refused).
// Errors: Forbidden (the caller is no student), Invalid book_id, Conflict
// "review_changed" (racing writes of it kept taking its next revision).
func (s *Reviews) Withdraw(ctx context.Context, bookID string) error {
	p, err := reviewer(ctx)
	if err != nil {
		return err
	}
	if err := usecase.RequireUUIDs(map[string]string{"book_id": bookID}); err != nil {
		return err
	}
	now := s.clock.Now().UTC()
	_, err = s.saveNext(ctx, p.SchoolID, library.ReviewID(p.AccountID, bookID), func(old library.Review, found bool) (library.Review, bool) {
		if !found || old.Status == library.ReviewWithdrawn {
			return library.Review{}, false
		}
		return library.Review{ID: old.ID, SchoolID: old.SchoolID, BookID: old.BookID, StudentID: old.StudentID,
			Status: library.ReviewWithdrawn, CreatedAt: now, UpdatedAt: now}, true
	})
	return err
}

// Mine returns the calling student's reviews, newest first, in every state
// (capped).
// Errors: Forbidden (the caller is no student).
func (s *Reviews) Mine(ctx context.Context) ([]ReviewView, error) {
	p, err := reviewer(ctx)
	if err != nil {
		return nil, err
	}
	list, err := s.reviews.OfStudent(ctx, p.AccountID, maxOwnReviews)
	if err != nil {
		return nil, err
	}
	list = slices.DeleteFunc(list, func(r library.Review) bool { return r.Status == library.ReviewWithdrawn })
	return s.views(ctx, p.SchoolID, list, false)
}

// TitleReviews is a page of a title's approved reviews.
type TitleReviews struct {
	School  library.School
	Book    library.Book
	Reviews []ReviewView
	Summary library.RatingSummary
	Page    int
	Limit   int
	Total   int // approved reviews on all pages
}

// OfTitle returns a page of the approved reviews of a title in a school's
// public catalogue, newest first, without their writers' names: children
// write them, and the catalogue is open to anyone.
// Errors: NotFound "school_not_found" (unknown or private school),
// "book_not_found"; Invalid book_id, page or limit.
func (s *Reviews) OfTitle(ctx context.Context, domain, bookID string, q usecase.ListQuery) (TitleReviews, error) {
	if err := usecase.RequireUUIDs(map[string]string{"book_id": bookID}); err != nil {
		return TitleReviews{}, err
	}
	school, err := publicSchool(ctx, s.scope.Schools, domain)
	if err != nil {
		return TitleReviews{}, err
	}
	book, err := s.holdings.Book(ctx, school.ID, bookID)
	if err != nil {
		return TitleReviews{}, err
	}
	out, err := s.Approved(ctx, school, book, q)
	if err != nil {
		return TitleReviews{}, err
	}
	sums, err := s.reviews.Summaries(ctx, school.ID, []string{bookID})
	if err != nil {
		return TitleReviews{}, err
	}
	out.Summary = sums[bookID]
	return out, nil
}

// Approved is OfTitle for a title of a public catalogue its caller has
// already found (PublicCatalog.Title, which also gives its rating): the
// page of reviews alone, without looking the school and the book up again.
// Summary is left empty. Errors: Invalid page or limit.
func (s *Reviews) Approved(ctx context.Context, school library.School, book library.Book, q usecase.ListQuery) (TitleReviews, error) {
	q.Search = ""
	if _, err := q.Validate(); err != nil {
		return TitleReviews{}, err
	}
	list, total, err := s.reviews.OfBook(ctx, school.ID, book.ID, library.ReviewApproved, q.Offset(), q.Limit)
	if err != nil {
		return TitleReviews{}, err
	}
	out := TitleReviews{School: school, Book: book, Page: q.Page, Limit: q.Limit, Total: total}
	for _, rv := range list {
		out.Reviews = append(out.Reviews, ReviewView{Review: rv, Book: book})
	}
	return out, nil
}

// ReviewPage is a page of a school's reviews in one state, for the desk.
type ReviewPage struct {
	Reviews []ReviewView
	Status  string
	Page    int
	Limit   int
	Total   int
}

// Queue returns a page of the school's reviews in status (pending by
// default: the moderation queue, longest waiting first), with their titles
// and writers.
// Errors: Invalid status, page or limit, as scope.
func (s *Reviews) Queue(ctx context.Context, schoolParam, status string, q usecase.ListQuery) (ReviewPage, error) {
	if status == "" {
		status = library.ReviewPending
	}
	q.Search = ""
	if _, err := q.Validate(); err != nil {
		return ReviewPage{}, err
	}
	if !slices.Contains(library.ReviewStatuses, status) {
		return ReviewPage{}, errs.InvalidField("status", "must be pending, approved or hidden")
	}
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return ReviewPage{}, err
	}
	list, total, err := s.reviews.ByStatus(ctx, school.ID, status, q.Offset(), q.Limit)
	if err != nil {
		return ReviewPage{}, err
	}
	views, err := s.views(ctx, school.ID, list, true)
	return ReviewPage{Reviews: views, Status: status, Page: q.Page, Limit: q.Limit, Total: total}, err
}

// Decide approves or hides one of the school's reviews as of the revision
// the librarian read; an approved review shows in the catalogue, a hidden
// one no longer does.
// Errors: Invalid status or revision, NotFound "review_not_found",
// Conflict "review_changed" (the student edited it since), as scope.
func (s *Reviews) Decide(ctx context.Context, schoolParam, id string, revision int, status string) (ReviewView, error) {
	fields := errs.FieldErrors{}
	if status != library.ReviewApproved && status != library.ReviewHidden {
		fields.Add("status", "must be approved or hidden")
	}
	if revision < 1 {
		fields.Add("revision", "must be the revision of the review you read, from 1")
	}
	if err := fields.Err(); err != nil {
		return ReviewView{}, err
	}
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return ReviewView{}, err
	}
	if !usecase.IsUUID(id) {
		return ReviewView{}, library.ErrReviewNotFound()
	}
	// The stored revision first: an edit the librarian has not read is
	// refused here on every store.
	rv, err := s.reviews.Get(ctx, school.ID, id)
	if err != nil {
		return ReviewView{}, err
	}
	if rv.Status == library.ReviewWithdrawn {
		return ReviewView{}, library.ErrReviewNotFound()
	}
	if rv.Revision != revision {
		return ReviewView{}, library.ErrReviewChanged()
	}
	// The review as read goes back whole with the decision, and only over
	// that revision: a save racing it cannot leave its text approved.
	rv.Status, rv.ModeratedBy, rv.ModeratedAt = status, user.PrincipalFrom(ctx).AccountID, s.clock.Now().UTC()
	if err := s.reviews.Decide(ctx, rv); err != nil {
		return ReviewView{}, err
	}
	views, err := s.views(ctx, school.ID, []library.Review{rv}, true)
	if err != nil || len(views) == 0 {
		return ReviewView{Review: rv}, err
	}
	return views[0], nil
}

// views gives reviews their titles and, for the desk, their writers'
// names: one read of the books and one of the accounts.
func (s *Reviews) views(ctx context.Context, schoolID string, list []library.Review, names bool) ([]ReviewView, error) {
	books, err := s.holdings.BooksByID(ctx, schoolID, usecase.Pluck(list, func(r library.Review) string { return r.BookID }))
	if err != nil {
		return nil, err
	}
	byID := map[string]library.Book{}
	for _, b := range books {
		byID[b.ID] = b
	}
	who := map[string]string{}
	if names && len(list) > 0 {
		accts, err := s.accounts.GetMany(ctx, usecase.Pluck(list, func(r library.Review) string { return r.StudentID }))
		if err != nil {
			return nil, err
		}
		for _, a := range accts {
			who[a.ID] = a.Name
		}
	}
	out := make([]ReviewView, 0, len(list))
	for _, rv := range list {
		out = append(out, ReviewView{Review: rv, Book: byID[rv.BookID], StudentName: who[rv.StudentID]})
	}
	return out, nil
}
