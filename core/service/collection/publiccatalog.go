package collection

import (
	"context"
	"strings"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/ports"
)

// PublicCatalog serves a school's catalog to anyone, when the school makes
// it public: titles and availability, never borrowers.
type PublicCatalog struct {
	schools    ports.SchoolRepository
	holdings   ports.HoldingsRepository
	reviews    ports.ReviewRepository
	loanReader circulation.LoanReader
	desk       *circulation.HoldDesk
	links      *AppLinks
}

// NewPublicCatalog builds PublicCatalog. It panics on a nil dependency.
func NewPublicCatalog(schools ports.SchoolRepository, holdings ports.HoldingsRepository, reviews ports.ReviewRepository,
	loans circulation.LoanReader, desk *circulation.HoldDesk, links *AppLinks) *PublicCatalog {
	usecase.MustHave("NewPublicCatalog", struct {
		Schools  ports.SchoolRepository
		Holdings ports.HoldingsRepository
		Reviews  ports.ReviewRepository
		Loans    circulation.LoanReader
		Desk     *circulation.HoldDesk
		Links    *AppLinks
	}{schools, holdings, reviews, loans, desk, links})
	return &PublicCatalog{schools: schools, holdings: holdings, reviews: reviews, loanReader: loans, desk: desk, links: links}
}

// CatalogEntry is one book of a catalog page with its availability.
type CatalogEntry struct {
	Book      library.Book
	Total     int
	Available int
	Holds     int // holds waiting for a copy
	// Rating counts the title's approved reviews (the public catalogue's
	// pages only).
	Rating library.RatingSummary
	// InApp is the reading app's book that is the same work, when there is
	// one (the public catalogue's pages only).
	InApp *library.AppLink
}

// CatalogPage is one page of a school's catalog.
type CatalogPage struct {
	School  library.School
	Entries []CatalogEntry
	Page    int
	Limit   int
	Total   int // books matching the query in all pages
}

// Page returns one page of a school's catalog for anyone, with copy counts
// and nothing about borrowers. A private or unknown school is NotFound
// "school_not_found", the same answer for both. The work of a request does
// not grow with the catalog: the school, one page of books and their
// count, the copy counts and the open claims of those books only, and the
// loans behind those claims.
// Errors: NotFound "school_not_found" (unknown or private school), Invalid
// with details.fields for a page, limit or search out of range.
func (s *PublicCatalog) Page(ctx context.Context, domain string, q usecase.ListQuery) (CatalogPage, error) {
	terms, err := q.Validate()
	if err != nil {
		return CatalogPage{}, err
	}
	school, err := publicSchool(ctx, s.schools, domain)
	if err != nil {
		return CatalogPage{}, err
	}
	page, err := catalogPage(ctx, s.holdings, s.loanReader, school, q, terms)
	if err != nil {
		return CatalogPage{}, err
	}
	if err := forReaders(ctx, s.desk, s.reviews, school.ID, page.Entries); err != nil {
		return CatalogPage{}, err
	}
	return page, s.links.annotate(ctx, school.ID, page.Entries)
}

// forReaders completes catalogue entries as readers see them: the holds
// waiting for each title, its copies put aside for a hold taken off the
// shelf, and its approved reviews' rating; two reads for all the entries.
func forReaders(ctx context.Context, desk *circulation.HoldDesk, reviews ports.ReviewRepository, schoolID string, entries []CatalogEntry) error {
	ids := usecase.Pluck(entries, func(e CatalogEntry) string { return e.Book.ID })
	waiting, trapped, err := desk.HoldCounts(ctx, schoolID, ids)
	if err != nil {
		return err
	}
	ratings, err := reviews.Summaries(ctx, schoolID, ids)
	if err != nil {
		return err
	}
	for i := range entries {
		e := &entries[i]
		e.Rating = ratings[e.Book.ID]
		e.Holds = waiting[e.Book.ID]
		// A copy put aside for a hold is not on the shelf.
		e.Available = max(0, e.Available-trapped[e.Book.ID])
	}
	return nil
}

// readerStores are what readerEntries reads.
type readerStores struct {
	holdings ports.HoldingsRepository
	loans    circulation.LoanReader
	desk     *circulation.HoldDesk
	reviews  ports.ReviewRepository
	links    *AppLinks
}

// readerEntries are books of a school as a reader's page shows them:
// copies and copies on the shelf (catalogEntries), holds and rating
// (forReaders), and the reading app's book of the same work.
func readerEntries(ctx context.Context, st readerStores, schoolID string, books []library.Book) ([]CatalogEntry, error) {
	entries, err := catalogEntries(ctx, st.holdings, st.loans, schoolID, books)
	if err != nil {
		return nil, err
	}
	if err := forReaders(ctx, st.desk, st.reviews, schoolID, entries); err != nil {
		return nil, err
	}
	return entries, st.links.annotate(ctx, schoolID, entries)
}

// catalogPage reads one page of a school's books with their copies and
// copies on loan: four queries whatever the school's size.
func catalogPage(ctx context.Context, holdings ports.HoldingsRepository, loans circulation.LoanReader, school library.School, q usecase.ListQuery, terms []string) (CatalogPage, error) {
	books, total, err := holdings.BooksPage(ctx, library.BookQuery{SchoolID: school.ID, Terms: terms, Offset: q.Offset(), Limit: q.Limit})
	if err != nil {
		return CatalogPage{}, err
	}
	entries, err := catalogEntries(ctx, holdings, loans, school.ID, books)
	if err != nil {
		return CatalogPage{}, err
	}
	return CatalogPage{School: school, Page: q.Page, Limit: q.Limit, Total: total, Entries: entries}, nil
}

// catalogEntries are books of a school with their copy counts: the copies,
// the open loans and the off-shelf copies of those books only.
func catalogEntries(ctx context.Context, holdings ports.HoldingsRepository, loans circulation.LoanReader, schoolID string, books []library.Book) ([]CatalogEntry, error) {
	ids := usecase.Pluck(books, func(b library.Book) string { return b.ID })
	copies, err := holdings.CopyCounts(ctx, schoolID, ids)
	if err != nil {
		return nil, err
	}
	lent, err := loans.LentByBook(ctx, schoolID, ids)
	if err != nil {
		return nil, err
	}
	// Lost, claimed and damaged copies are held by no loan and still not
	// on the shelf.
	off, err := holdings.OffShelfCounts(ctx, schoolID, ids)
	if err != nil {
		return nil, err
	}
	entries := make([]CatalogEntry, 0, len(books))
	for _, b := range books {
		entries = append(entries, CatalogEntry{Book: b, Total: copies[b.ID], Available: max(copies[b.ID]-lent[b.ID]-off[b.ID], 0)})
	}
	return entries, nil
}

// CatalogTitle is one title of a school's public catalogue with its
// availability and rating.
type CatalogTitle struct {
	School library.School
	Entry  CatalogEntry
}

// Title returns one title of a school's catalogue for anyone, as a page of
// the catalogue shows it: copies, copies on the shelf, holds waiting and
// the approved reviews' rating, nothing about borrowers. A private or
// unknown school is NotFound "school_not_found"; a book the school does not
// have is NotFound "book_not_found".
// Errors: Invalid with details.fields for a book_id that is not a UUID.
func (s *PublicCatalog) Title(ctx context.Context, domain, bookID string) (CatalogTitle, error) {
	if err := usecase.RequireUUIDs(map[string]string{"book_id": bookID}); err != nil {
		return CatalogTitle{}, err
	}
	school, err := publicSchool(ctx, s.schools, domain)
	if err != nil {
		return CatalogTitle{}, err
	}
	book, err := s.holdings.Book(ctx, school.ID, bookID)
	if err != nil {
		return CatalogTitle{}, err
	}
	entries, err := readerEntries(ctx, readerStores{s.holdings, s.loanReader, s.desk, s.reviews, s.links}, school.ID, []library.Book{book})
	if err != nil {
		return CatalogTitle{}, err
	}
	return CatalogTitle{School: school, Entry: entries[0]}, nil
}

// publicSchool is the school at domain when its catalogue is public. A
// private school is NotFound "school_not_found" like an unknown one, so
// the public routes do not tell which schools exist.
func publicSchool(ctx context.Context, schools ports.SchoolRepository, domain string) (library.School, error) {
	school, err := schools.GetByDomain(ctx, strings.ToLower(domain))
	if err != nil {
		return library.School{}, err
	}
	if !school.Settings.AllowPublicCatalog {
		return library.School{}, library.ErrSchoolNotFound()
	}
	return school, nil
}
