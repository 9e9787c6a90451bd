package collection

import (
	"bytes"
	"context"
	"strings"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/ports"
)

// Cataloguing fills new books from the school's catalogue server: a
// scanned ISBN is looked up on the SRU endpoint the school set
// (Settings.CatalogEndpoint) and its MARCXML record becomes a book draft.
type Cataloguing struct {
	scope    usecase.SchoolScope
	holdings *Holdings
	source   ports.CatalogSource
	codec    ports.RecordCodec
}

// NewCataloguing builds Cataloguing over holdings. source and codec may
// be nil: then every lookup is Unavailable.
func NewCataloguing(schools ports.SchoolRepository, holdings *Holdings, source ports.CatalogSource, codec ports.RecordCodec) *Cataloguing {
	usecase.MustHave("NewCataloguing", struct{ Holdings *Holdings }{holdings})
	return &Cataloguing{scope: usecase.NewSchoolScope(schools), holdings: holdings, source: source, codec: codec}
}

// Lookup returns the draft of a new book the school's catalogue server
// gives for isbn, storing nothing: the librarian checks it before adding
// the book. The ISBN is checked (check digit included) before anything
// else, so a mistyped one never reaches the server.
// Errors: Invalid "isbn"; Conflict "catalog_lookup_off"; NotFound
// "catalog_record_not_found"; BadGateway "catalog_source_unavailable";
// GatewayTimeout "catalog_source_timeout"; as scope.
func (c *Cataloguing) Lookup(ctx context.Context, schoolParam, isbn string) (library.BookDraft, error) {
	isbn = library.NormalizeISBN(strings.TrimSpace(isbn))
	if !library.ValidISBN(isbn) {
		return library.BookDraft{}, errs.InvalidField("isbn", "must be a valid ISBN-10 or ISBN-13")
	}
	school, err := c.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return library.BookDraft{}, err
	}
	return c.lookup(ctx, school, isbn)
}

func (c *Cataloguing) lookup(ctx context.Context, school library.School, isbn string) (library.BookDraft, error) {
	endpoint := school.Settings.CatalogEndpoint
	if endpoint == "" {
		return library.BookDraft{}, library.ErrCatalogLookupOff()
	}
	if c.source == nil || c.codec == nil {
		return library.BookDraft{}, errs.E(errs.Unavailable, errs.CodeUnavailable, "Catalogue lookups are not available on this server; type the book in.")
	}
	answer, err := c.source.LookupISBN(ctx, endpoint, isbn)
	if err != nil {
		return library.BookDraft{}, err
	}
	records, bad, err := decodeRecords(c.codec, ports.FormatMARCXML, bytes.NewReader(answer))
	if err != nil {
		return library.BookDraft{}, err
	}
	for _, rec := range records {
		if d := library.DraftFromRecord(rec, isbn); d.Title != "" {
			return d, nil
		}
	}
	if len(bad) > 0 || len(records) > 0 {
		return library.BookDraft{}, errs.E(errs.BadGateway, errs.CodeCatalogSourceUnavailable,
			"The catalogue server's record of ISBN %s could not be read; type the book in.", isbn)
	}
	return library.BookDraft{}, library.ErrCatalogRecordNotFound(isbn)
}

// AddBook adds a book as Holdings.AddBook does, except that a draft with an
// ISBN but without a title or an author is first filled from the school's
// catalogue server: what the request gives wins, the record gives the rest.
// A book with a title and an author never waits on the server.
// Errors: as Holdings.AddBook, and as Lookup when the record is needed.
func (c *Cataloguing) AddBook(ctx context.Context, schoolParam string, d library.BookDraft) (library.Book, []library.Copy, error) {
	if strings.TrimSpace(d.ISBN) == "" || (strings.TrimSpace(d.Title) != "" && strings.TrimSpace(d.Author) != "") {
		return c.holdings.AddBook(ctx, schoolParam, d)
	}
	found, err := c.Lookup(ctx, schoolParam, d.ISBN)
	if err != nil {
		return library.Book{}, nil, err
	}
	return c.holdings.AddBook(ctx, schoolParam, fillDraft(d, found))
}

// fillDraft returns d with every empty field taken from found.
func fillDraft(d, found library.BookDraft) library.BookDraft {
	fill := func(dst *string, src string) {
		if strings.TrimSpace(*dst) == "" {
			*dst = src
		}
	}
	fill(&d.Title, found.Title)
	fill(&d.Author, found.Author)
	fill(&d.CoverURL, found.CoverURL)
	fill(&d.Publisher, found.Publisher)
	fill(&d.Genre, found.Genre)
	fill(&d.CallNumber, found.CallNumber)
	fill(&d.ReadingLevel, found.ReadingLevel)
	if d.PublishedYear == 0 {
		d.PublishedYear = found.PublishedYear
	}
	if len(d.Subjects) == 0 {
		d.Subjects = found.Subjects
	}
	if d.AgeMin == 0 && d.AgeMax == 0 {
		d.AgeMin, d.AgeMax = found.AgeMin, found.AgeMax
	}
	return d
}
