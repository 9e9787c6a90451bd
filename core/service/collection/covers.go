package collection

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/ports"
)

// Covers serves the titles' covers from the service itself: uploaded by a
// librarian, or fetched once by ISBN from the school's cover source and
// kept, so students' browsers never call a third party.
type Covers struct {
	scope    usecase.SchoolScope
	holdings ports.HoldingsRepository
	covers   ports.CoverRepository
	images   ports.CoverImages
	source   ports.CoverSource
	clock    *usecase.Clock
	// working bounds the covers decoded at once: a large photo takes tens
	// of MB while it is decoded.
	working chan struct{}
}

// CoversDeps are what Covers uses. Images and Source are optional:
// without a source only uploaded covers are served, and without images no
// cover is taken at all (Unavailable), as a service built without them.
type CoversDeps struct {
	Schools  ports.SchoolRepository
	Holdings ports.HoldingsRepository
	Covers   ports.CoverRepository
	Images   ports.CoverImages `deps:"optional"`
	Source   ports.CoverSource `deps:"optional"`
	Clock    *usecase.Clock
}

// maxCoversAtOnce is how many covers are fetched or decoded at once; one
// more finds none for now (a page's image) or waits (an upload).
const maxCoversAtOnce = 2

// coverRetry is how long a title whose source had no cover waits before
// the source is asked again.
const coverRetry = 30 * 24 * time.Hour

// NewCovers builds Covers. It panics on a nil dependency.
func NewCovers(d CoversDeps) *Covers {
	usecase.MustHave("NewCovers", d)
	return &Covers{scope: usecase.NewSchoolScope(d.Schools), holdings: d.Holdings, covers: d.Covers, images: d.Images, source: d.Source,
		clock: d.Clock, working: make(chan struct{}, maxCoversAtOnce)}
}

// Image returns the cover of a title of a school's public catalogue:
// the stored one, or, the first time, the one its cover source has for its
// ISBN, kept for the next time. A title the source has no cover for is
// not asked about again for a month, nor is one whose cover a librarian
// removed.
// Errors: NotFound "school_not_found" (unknown or private), "book_not_found",
// "cover_not_found" (none now; a busy or failing source is asked again
// later).
func (s *Covers) Image(ctx context.Context, domain, bookID string) (library.Cover, error) {
	if !usecase.IsUUID(bookID) {
		return library.Cover{}, library.ErrBookNotFound()
	}
	school, err := publicSchool(ctx, s.scope.Schools, domain)
	if err != nil {
		return library.Cover{}, err
	}
	c, err := s.covers.Get(ctx, school.ID, bookID)
	switch {
	case err == nil && c.Image.JPEG != nil:
		return c, nil
	case err == nil && (c.Removed || s.clock.Now().Sub(c.UpdatedAt) < coverRetry):
		return library.Cover{}, library.ErrCoverNotFound()
	case err != nil && !errs.Is(err, errs.NotFound):
		return library.Cover{}, err
	}
	book, err := s.holdings.Book(ctx, school.ID, bookID)
	if err != nil {
		return library.Cover{}, err
	}
	if s.source == nil || s.images == nil || book.ISBN == "" {
		return library.Cover{}, library.ErrCoverNotFound()
	}
	select {
	case s.working <- struct{}{}:
		defer func() { <-s.working }()
	default:
		return library.Cover{}, library.ErrCoverNotFound() // busy: the next view asks again
	}
	return s.fetch(ctx, book)
}

// fetch asks the source for book's cover and keeps what it answers: the
// image, or the note that it has none. A source that fails is not noted.
func (s *Covers) fetch(ctx context.Context, book library.Book) (library.Cover, error) {
	now := s.clock.Now().UTC()
	data, err := s.source.Cover(ctx, book.ISBN)
	var img library.CoverImage
	if err == nil {
		img, err = s.images.Normalize(data)
	}
	if err != nil {
		if errs.Is(err, errs.NotFound) || errs.Is(err, errs.Invalid) {
			// None, or nothing usable: noted, so the next month's views
			// do not ask again.
			if perr := s.covers.Put(ctx, library.Cover{SchoolID: book.SchoolID, BookID: book.ID, Source: library.CoverFetched, Missing: true, UpdatedAt: now}); perr != nil {
				return library.Cover{}, perr
			}
		}
		return library.Cover{}, library.ErrCoverNotFound()
	}
	c := library.Cover{SchoolID: book.SchoolID, BookID: book.ID, Image: img, ETag: etagOf(img.JPEG), Source: library.CoverFetched, UpdatedAt: now}
	return c, s.covers.Put(ctx, c)
}

// Upload stores a librarian's cover for a title, replacing any other.
// Errors: Invalid "cover_unreadable", "cover_too_large"; NotFound
// "book_not_found"; as scope.
func (s *Covers) Upload(ctx context.Context, schoolParam, bookID string, data []byte) (library.Cover, error) {
	book, err := s.bookOf(ctx, schoolParam, bookID)
	if err != nil {
		return library.Cover{}, err
	}
	if s.images == nil {
		return library.Cover{}, errs.E(errs.Unavailable, errs.CodeUnavailable, "This service takes no covers.")
	}
	select {
	case s.working <- struct{}{}:
		defer func() { <-s.working }()
	case <-ctx.Done():
		return library.Cover{}, errs.E(errs.Unavailable, errs.CodeUnavailable, "The service is busy with other covers; try again in a moment.")
	}
	img, err := s.images.Normalize(data)
	if err != nil {
		return library.Cover{}, err
	}
	c := library.Cover{SchoolID: book.SchoolID, BookID: book.ID, Image: img, ETag: etagOf(img.JPEG), Source: library.CoverUploaded,
		UpdatedAt: s.clock.Now().UTC()}
	return c, s.covers.Put(ctx, c)
}

// Remove takes a title's cover away for good: the source is not asked for
// it again until a librarian uploads one. Removing none is not an error.
// Errors: NotFound "book_not_found"; as scope.
func (s *Covers) Remove(ctx context.Context, schoolParam, bookID string) error {
	book, err := s.bookOf(ctx, schoolParam, bookID)
	if err != nil {
		return err
	}
	return s.covers.Put(ctx, library.Cover{SchoolID: book.SchoolID, BookID: book.ID, Source: library.CoverUploaded, Removed: true,
		UpdatedAt: s.clock.Now().UTC()})
}

// Shown returns, of a page's books, those whose cover the page should ask
// for: a stored image, or, when the school has a source, a title with an
// ISBN nothing is noted about yet (its first view fetches it) or noted
// missing longer ago than coverRetry (its next view asks again).
func (s *Covers) Shown(ctx context.Context, schoolID string, books []library.Book) (map[string]bool, error) {
	known, err := s.covers.Known(ctx, schoolID, usecase.Pluck(books, func(b library.Book) string { return b.ID }))
	if err != nil {
		return nil, err
	}
	now := s.clock.Now()
	fetches := s.source != nil && s.images != nil
	out := map[string]bool{}
	for _, b := range books {
		st, noted := known[b.ID]
		stale := noted && !st.Present && !st.Removed && now.Sub(st.NotedAt) >= coverRetry
		if st.Present || (fetches && b.ISBN != "" && (!noted || stale)) {
			out[b.ID] = true
		}
	}
	return out, nil
}

func (s *Covers) bookOf(ctx context.Context, schoolParam, bookID string) (library.Book, error) {
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return library.Book{}, err
	}
	if !usecase.IsUUID(bookID) {
		return library.Book{}, library.ErrBookNotFound()
	}
	return s.holdings.Book(ctx, school.ID, bookID)
}

// etagOf is a strong validator of a cover's bytes.
func etagOf(jpeg []byte) string {
	sum := sha256.Sum256(jpeg)
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}
