package mongorepo

import (
	"context"
	"errors"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/holdingsfile"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

// A school's books and copies are two collections:
//
//   - library_books, keyed by the book id, unique on {school_id, isbn_key}
//     (isbnKey: the ISBN, or "none:" and the id, since FerretDB 1.24 has no
//     partial indexes), with the folded word prefixes of title and author
//     in search_terms for search;
//   - copies, keyed by the copy id, unique on {school_id, code}.
//
// Every method is a fixed number of commands (one, except CreateBook
// refused by a duplicate key, which looks the ISBN up to name the cause,
// and the lists, which count as well).

var _ ports.HoldingsRepository = (*Holdings)(nil)

const (
	colLibraryBooks = "library_books"
	colCopies       = "copies"
)

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) {
		h := NewHoldings(db)
		r.Holdings, r.HoldingsImports = h, h
	},
	collections: []collection{
		// The library: see Library for the keys.
		{colLibraryBooks, []mongo.IndexModel{
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "isbn_key", Value: 1}}, Options: options.Index().SetUnique(true)},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "title", Value: 1}, {Key: "_id", Value: 1}}},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "search_terms", Value: 1}}},
			// An imported record's book by title and author.
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "match_key", Value: 1}}},
			// The reading app's book's library books (AppLinks).
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "work_key", Value: 1}}},
			// The books of a holdings import, published or dropped at its end.
			{Keys: bson.D{{Key: "import_batch", Value: 1}}, Options: options.Index().SetSparse(true)},
			// A stocktake's call-number range and the collection reports
			// (by genre, reading level and year of publication).
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "call_number", Value: 1}, {Key: "_id", Value: 1}}},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "genre", Value: 1}, {Key: "_id", Value: 1}}},
			// A student's recommendations: a genre's books at the levels
			// of the student's reading range (Shelf).
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "genre", Value: 1}, {Key: "reading_level", Value: 1}, {Key: "_id", Value: 1}}},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "reading_level", Value: 1}, {Key: "_id", Value: 1}}},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "published_year", Value: 1}, {Key: "_id", Value: 1}}},
		}},
		{colCopies, []mongo.IndexModel{
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "code", Value: 1}}, Options: options.Index().SetUnique(true)},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "book_id", Value: 1}, {Key: "code", Value: 1}}},
			// The copies of a holdings import, published or dropped at its end.
			{Keys: bson.D{{Key: "import_batch", Value: 1}}, Options: options.Index().SetSparse(true)},
		}},
	},
	records: map[ports.RecordKind]records{
		ports.KindLibraryBooks: plainRecords(colLibraryBooks, toLibraryBookDoc, libraryBookDoc.toBook),
		ports.KindCopies:       plainRecords(colCopies, toCopyDoc, copyDoc.toCopy),
	},
})

// Holdings is the MongoDB ports.HoldingsRepository.
type Holdings struct {
	books   *mongo.Collection
	copies  *mongo.Collection
	imports *mongo.Collection // the batches of holdings imports (imports.go)
}

// NewHoldings returns the holdings store of db. It panics on nil, a wiring bug.
func NewHoldings(db *mongo.Database) *Holdings {
	mustDB(db, "NewHoldings")
	return &Holdings{books: db.Collection(colLibraryBooks), copies: db.Collection(colCopies), imports: db.Collection(colStudentImports)}
}

type libraryBookDoc struct {
	ID       string `bson:"_id"`
	SchoolID string `bson:"school_id"`
	ISBN     string `bson:"isbn"`
	ISBNKey  string `bson:"isbn_key"` // isbnKey: unique per school
	Title    string `bson:"title"`
	Author   string `bson:"author"`
	// SearchTerms are catalog.SearchTerms of title and author.
	SearchTerms []string  `bson:"search_terms"`
	CoverURL    string    `bson:"cover_url"`
	CreatedAt   time.Time `bson:"created_at"`
	// Absent (no price of its own) in books stored before prices.
	PriceCents int64 `bson:"price_cents,omitempty"`
	// LoanCategory is absent for standard books (and in books stored
	// before categories existed).
	LoanCategory string `bson:"loan_category,omitempty"`
	// MatchKey is library.MatchKey(title, author): an imported record
	// finds the book by it (index {school_id, match_key}).
	MatchKey string `bson:"match_key"`
	// WorkKey is catalog.WorkKey(title, author), "" for none: AppLinks
	// finds the book by it (index {school_id, work_key}). Absent only in
	// books stored before it (backfillWorkKeys).
	WorkKey string `bson:"work_key"`
	// ImportBatch is set while the book belongs to an uncommitted holdings
	// import (imports.go).
	ImportBatch string `bson:"import_batch,omitempty"`
	// Details is exported so the driver sees it (it ignores unexported
	// fields, inline ones too).
	Details bookDetailsDoc `bson:",inline"`
}

// bookDetailsDoc is a book's catalogue details; each is absent when not
// known (and in books stored before details), so old and new books read
// alike.
type bookDetailsDoc struct {
	Publisher     string   `bson:"publisher,omitempty"`
	PublishedYear int      `bson:"published_year,omitempty"`
	Subjects      []string `bson:"subjects,omitempty"`
	Genre         string   `bson:"genre,omitempty"`
	CallNumber    string   `bson:"call_number,omitempty"`
	ReadingLevel  string   `bson:"reading_level,omitempty"`
	AgeMin        int      `bson:"age_min,omitempty"`
	AgeMax        int      `bson:"age_max,omitempty"`
}

func toBookDetailsDoc(d library.BookDetails) bookDetailsDoc {
	return bookDetailsDoc{Publisher: d.Publisher, PublishedYear: d.PublishedYear, Subjects: d.Subjects, Genre: d.Genre,
		CallNumber: d.CallNumber, ReadingLevel: d.ReadingLevel, AgeMin: d.AgeMin, AgeMax: d.AgeMax}
}

func (d bookDetailsDoc) toDetails() library.BookDetails {
	var subjects []string
	if len(d.Subjects) > 0 {
		subjects = d.Subjects
	}
	return library.BookDetails{Publisher: d.Publisher, PublishedYear: d.PublishedYear, Subjects: subjects, Genre: d.Genre,
		CallNumber: d.CallNumber, ReadingLevel: d.ReadingLevel, AgeMin: d.AgeMin, AgeMax: d.AgeMax}
}

// isbnKey is the unique key of a book's ISBN within its school: the ISBN,
// or "none:" and the book id when it has none, so books without an ISBN
// never clash. ISBNs are digits and X, so the two kinds cannot meet.
func isbnKey(b library.Book) string {
	if b.ISBN == "" {
		return "none:" + b.ID
	}
	return b.ISBN
}

type copyDoc struct {
	ID        string    `bson:"_id"`
	SchoolID  string    `bson:"school_id"`
	BookID    string    `bson:"book_id"`
	Code      string    `bson:"code"`
	CreatedAt time.Time `bson:"created_at"`
	// The copy's own call number and location, from a holdings file's
	// item; absent when it has none. Written only with the copy.
	CallNumber string `bson:"call_number,omitempty"`
	Location   string `bson:"location,omitempty"`
	// The copy's condition; absent on the shelf (copyConditionUpdate). In
	// the order an update adds new fields (by name), so a copy written
	// whole (Records) is stored exactly as one updated.
	Condition     string     `bson:"condition,omitempty"`
	ConditionAt   *time.Time `bson:"condition_at,omitempty"`
	ConditionLoan string     `bson:"condition_loan_id,omitempty"`
	ConditionNote string     `bson:"condition_note,omitempty"`
	// ImportBatch is set while the copy belongs to an uncommitted holdings
	// import (imports.go).
	ImportBatch string `bson:"import_batch,omitempty"`
}

func toLibraryBookDoc(b library.Book) libraryBookDoc {
	return libraryBookDoc{
		ID:          b.ID,
		SchoolID:    b.SchoolID,
		ISBN:        b.ISBN,
		ISBNKey:     isbnKey(b),
		Title:       b.Title,
		Author:      b.Author,
		SearchTerms: libraryBookTerms(b.Title, b.Author),
		CoverURL:    b.CoverURL,
		CreatedAt:   b.CreatedAt.UTC(),
		PriceCents:  b.PriceCents,
		// Standard is stored as absent, as SetBookCategory stores it.
		LoanCategory: bookCategoryField(library.BookCategory(b)),
		MatchKey:     holdingsfile.MatchKey(b.Title, b.Author),
		WorkKey:      catalog.WorkKey(b.Title, b.Author),
		Details:      toBookDetailsDoc(b.BookDetails),
	}
}

// bookCategoryField is the stored loan_category of category: "" (absent)
// for standard.
func bookCategoryField(category string) string {
	if category == library.CategoryStandard {
		return ""
	}
	return category
}

// libraryBookTerms are the search terms of a library book.
func libraryBookTerms(title, author string) []string {
	return searchTermsOf(title + " " + author)
}

// searchTermsOf is catalog.SearchTerms, never nil, so that a document
// always has the field and a backfill can tell it from an old one.
func searchTermsOf(text string) []string {
	if terms := catalog.SearchTerms(text); terms != nil {
		return terms
	}
	return []string{}
}

func (d libraryBookDoc) pendingImport() bool { return d.ImportBatch != "" }

func (d libraryBookDoc) toBook() library.Book {
	return library.Book{
		ID:           d.ID,
		SchoolID:     d.SchoolID,
		ISBN:         d.ISBN,
		Title:        d.Title,
		Author:       d.Author,
		CoverURL:     d.CoverURL,
		CreatedAt:    d.CreatedAt.UTC(),
		LoanCategory: library.BookCategory(library.Book{LoanCategory: d.LoanCategory}),

		PriceCents:  d.PriceCents,
		BookDetails: d.Details.toDetails(),
	}
}

func toCopyDoc(c library.Copy) copyDoc {
	d := copyDoc{ID: c.ID, SchoolID: c.SchoolID, BookID: c.BookID, Code: c.Code, CreatedAt: c.CreatedAt.UTC(),
		CallNumber: c.CallNumber, Location: c.Location, Condition: c.Condition.Condition, ConditionNote: c.Condition.Note, ConditionLoan: c.Condition.LoanID}
	if !c.Condition.At.IsZero() {
		at := c.Condition.At.UTC()
		d.ConditionAt = &at
	}
	return d
}

func (d copyDoc) pendingImport() bool { return d.ImportBatch != "" }

func (d copyDoc) toCopy() library.Copy {
	c := library.Copy{ID: d.ID, SchoolID: d.SchoolID, BookID: d.BookID, Code: d.Code, CreatedAt: d.CreatedAt.UTC(),
		CallNumber: d.CallNumber, Location: d.Location, Condition: library.CopyCondition{Condition: d.Condition, Note: d.ConditionNote, LoanID: d.ConditionLoan}}
	if d.ConditionAt != nil {
		c.Condition.At = d.ConditionAt.UTC()
	}
	return c
}

// copyConditionUpdate sets the fields of c that have a value and removes
// the others, so a copy stores exactly what toCopyDoc would write.
func copyConditionUpdate(c library.CopyCondition) bson.D {
	set, unset := bson.D{}, bson.D{}
	field := func(name string, v any, empty bool) {
		if empty {
			unset = append(unset, bson.E{Key: name, Value: ""})
		} else {
			set = append(set, bson.E{Key: name, Value: v})
		}
	}
	field("condition", c.Condition, c.Condition == "")
	field("condition_note", c.Note, c.Note == "")
	field("condition_loan_id", c.LoanID, c.LoanID == "")
	field("condition_at", c.At.UTC(), c.At.IsZero())
	return setUnset(set, unset)
}

// CreateBook implements ports.HoldingsRepository with one insert. A
// duplicate key is either the school's ISBN (isbn_exists) or a taken id (a
// bug: ids are generated, so Internal); the driver's error does not say
// which index refused on every backend, so a refused book with an ISBN is
// followed by one count that names the cause.
func (r *Holdings) CreateBook(ctx context.Context, b library.Book) error {
	_, err := r.books.InsertOne(ctx, toLibraryBookDoc(b))
	if mongo.IsDuplicateKeyError(err) && b.ISBN != "" && r.isbnTaken(ctx, b.SchoolID, b.ISBN) {
		return library.ErrISBNExists()
	}
	return mapErr(err, "create the book", nil, nil)
}

// isbnTaken reports whether a book of the school has isbn; a failed lookup
// counts as no.
func (r *Holdings) isbnTaken(ctx context.Context, schoolID, isbn string) bool {
	filter := bson.D{{Key: "school_id", Value: schoolID}, {Key: "isbn_key", Value: isbn}}
	n, err := r.books.CountDocuments(ctx, filter, options.Count().SetLimit(1))
	return err == nil && n > 0
}

// Book implements ports.HoldingsRepository: one find by _id; another
// school's book is not found.
func (r *Holdings) Book(ctx context.Context, schoolID, bookID string) (library.Book, error) {
	b, err := findVisibleByID(ctx, r.books, "read the book", bookID, library.ErrBookNotFound, libraryBookDoc.toBook)
	if err == nil && b.SchoolID != schoolID {
		return library.Book{}, library.ErrBookNotFound()
	}
	return b, err
}

// SetBookCategory implements ports.HoldingsRepository: one updateOne by
// _id and school (standard unsets the field, as a new standard book has
// none).
func (r *Holdings) SetBookCategory(ctx context.Context, schoolID, bookID, category string) error {
	update := bson.D{{Key: "$unset", Value: bson.D{{Key: "loan_category", Value: ""}}}}
	if f := bookCategoryField(category); f != "" {
		update = bson.D{{Key: "$set", Value: bson.D{{Key: "loan_category", Value: f}}}}
	}
	return r.updateBook(ctx, schoolID, bookID, update, "change the book's loan category")
}

// SetBookDetails implements ports.HoldingsRepository: one updateOne by
// _id and school that sets the known details and unsets the others, so the
// document reads as a new book with those details would.
func (r *Holdings) SetBookDetails(ctx context.Context, schoolID, bookID string, d library.BookDetails) error {
	raw, err := bson.Marshal(toBookDetailsDoc(d))
	if err != nil {
		return mapErr(err, "change the book's details", nil, nil)
	}
	var set bson.D
	if err := bson.Unmarshal(raw, &set); err != nil {
		return mapErr(err, "change the book's details", nil, nil)
	}
	unset := bson.D{}
	for _, f := range bookDetailFields {
		if !slices.ContainsFunc(set, func(e bson.E) bool { return e.Key == f }) {
			unset = append(unset, bson.E{Key: f, Value: ""})
		}
	}
	return r.updateBook(ctx, schoolID, bookID, setUnset(set, unset), "change the book's details")
}

// updateBook runs one updateOne of the school's book bookID; no such book
// is NotFound.
func (r *Holdings) updateBook(ctx context.Context, schoolID, bookID string, update bson.D, op string) error {
	filter := bson.D{{Key: "_id", Value: bookID}, {Key: "school_id", Value: schoolID}}
	return updateMatched(ctx, r.books, filter, update, op, library.ErrBookNotFound)
}

// bookDetailFields are bookDetailsDoc's stored names.
var bookDetailFields = []string{"publisher", "published_year", "subjects", "genre", "call_number", "reading_level", "age_min", "age_max"}

// BooksPage implements ports.HoldingsRepository: one find with skip and
// limit and one count. Without terms it reads the {school_id, title, _id}
// index in order; with terms every one must be among the book's
// search_terms (the folded prefixes of its title and author words, a
// multikey index), as the reading catalog's search does, so no search
// scans a school's books.
func (r *Holdings) BooksPage(ctx context.Context, q library.BookQuery) ([]library.Book, int, error) {
	filter := bson.D{{Key: "school_id", Value: q.SchoolID}}
	if len(q.Terms) > 0 {
		filter = append(filter, bson.E{Key: "search_terms", Value: bson.D{{Key: "$all", Value: q.Terms}}})
	}
	filter = visible(filter)
	opts := options.Find().SetSort(bson.D{{Key: "title", Value: 1}, {Key: "_id", Value: 1}}).
		SetSkip(int64(q.Offset)).SetLimit(int64(q.Limit)).SetBatchSize(oneBatch(q.Limit))
	books, total, err := findPage(ctx, r.books, "list the books", "count the books", filter, opts, libraryBookDoc.toBook)
	return books, int(total), err
}

// BooksByID implements ports.HoldingsRepository with one find by _id. No
// ids is no command.
func (r *Holdings) BooksByID(ctx context.Context, schoolID string, ids []string) ([]library.Book, error) {
	return findByKeys(ctx, r.books, "read the books", len(ids), visible(bson.D{{Key: "_id", Value: in(ids)}, {Key: "school_id", Value: schoolID}}), libraryBookDoc.toBook)
}

// CreateCopies implements ports.HoldingsRepository with one unordered
// insertMany: every copy that can be stored is, and the write errors of
// the others name their indexes. A duplicate key is reported as a taken
// code; a taken copy id would be reported the same way (the error does not
// say which index refused), but ids are generated. Any other write error
// fails the call, with the copies without error stored.
func (r *Holdings) CreateCopies(ctx context.Context, copies []library.Copy) ([]int, error) {
	if len(copies) == 0 {
		return nil, nil
	}
	docs := make([]copyDoc, len(copies))
	for i, c := range copies {
		docs[i] = toCopyDoc(c)
	}
	_, err := r.copies.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	if err == nil {
		return nil, nil
	}
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) || bwe.WriteConcernError != nil || len(bwe.WriteErrors) == 0 {
		return nil, mapErr(err, "store the copies", nil, nil)
	}
	dups := make([]int, 0, len(bwe.WriteErrors))
	for _, we := range bwe.WriteErrors {
		if !mongo.IsDuplicateKeyError(we) || we.Index < 0 || we.Index >= len(copies) {
			return nil, mapErr(err, "store the copies", nil, nil)
		}
		dups = append(dups, we.Index)
	}
	slices.Sort(dups)
	return slices.Compact(dups), nil
}

// Copy implements ports.HoldingsRepository.
func (r *Holdings) Copy(ctx context.Context, schoolID, copyID string) (library.Copy, error) {
	c, err := findVisibleByID(ctx, r.copies, "read the copy", copyID, library.ErrCopyNotFound, copyDoc.toCopy)
	if err == nil && c.SchoolID != schoolID {
		return library.Copy{}, library.ErrCopyNotFound()
	}
	return c, err
}

// SetBookPrice implements ports.HoldingsRepository with one updateOne by
// _id and school.
func (r *Holdings) SetBookPrice(ctx context.Context, schoolID, bookID string, cents int64) error {
	update := bson.D{{Key: "$set", Value: bson.D{{Key: "price_cents", Value: cents}}}}
	if cents == 0 {
		update = bson.D{{Key: "$unset", Value: bson.D{{Key: "price_cents", Value: ""}}}}
	}
	return r.updateBook(ctx, schoolID, bookID, update, "set the book's price")
}

// SetCopyCondition implements ports.HoldingsRepository with one updateOne
// by _id and school. Nothing exactly-once rests on it: the loan's claim
// keeps the copy until the condition is set, and a check-in's reversal is
// a unique-key insert.
func (r *Holdings) SetCopyCondition(ctx context.Context, schoolID, copyID string, c library.CopyCondition) error {
	filter := bson.D{{Key: "_id", Value: copyID}, {Key: "school_id", Value: schoolID}}
	return updateMatched(ctx, r.copies, filter, copyConditionUpdate(c), "set the copy's condition", library.ErrCopyNotFound)
}

// SetCopyShelf implements ports.HoldingsRepository with one update by the
// copy's id.
func (r *Holdings) SetCopyShelf(ctx context.Context, schoolID, copyID string, shelf library.CopyShelf) error {
	filter := bson.D{{Key: "_id", Value: copyID}, {Key: "school_id", Value: schoolID}}
	update := bson.D{{Key: "$set", Value: bson.D{{Key: "call_number", Value: shelf.CallNumber}, {Key: "location", Value: shelf.Location}}}}
	return updateMatched(ctx, r.copies, filter, update, "set the copy's shelf mark", library.ErrCopyNotFound)
}

// CopyByCode implements ports.HoldingsRepository: one find on the unique
// {school_id, code} index.
func (r *Holdings) CopyByCode(ctx context.Context, schoolID, code string) (library.Copy, error) {
	filter := visible(bson.D{{Key: "school_id", Value: schoolID}, {Key: "code", Value: code}})
	return findOne(ctx, r.copies, "read the copy", filter, library.ErrCopyNotFound, copyDoc.toCopy)
}

// CopiesOfBook implements ports.HoldingsRepository with one find in the
// order of the {school_id, book_id, code} index.
func (r *Holdings) CopiesOfBook(ctx context.Context, schoolID, bookID string) ([]library.Copy, error) {
	filter := visible(bson.D{{Key: "school_id", Value: schoolID}, {Key: "book_id", Value: bookID}})
	opts := options.Find().SetSort(bson.D{{Key: "code", Value: 1}, {Key: "_id", Value: 1}}).SetBatchSize(wholeBatch)
	return findAll(ctx, r.copies, "list the copies", filter, opts, copyDoc.toCopy)
}

// CopiesOfBookPage implements ports.HoldingsRepository with one find in
// the order of the {school_id, book_id, code} index, skipping to the page.
func (r *Holdings) CopiesOfBookPage(ctx context.Context, schoolID, bookID string, offset, limit int) ([]library.Copy, error) {
	filter := visible(bson.D{{Key: "school_id", Value: schoolID}, {Key: "book_id", Value: bookID}})
	limit = max(limit, 1)
	opts := options.Find().SetSort(bson.D{{Key: "code", Value: 1}, {Key: "_id", Value: 1}}).
		SetSkip(int64(max(offset, 0))).SetLimit(int64(limit)).SetBatchSize(oneBatch(limit))
	return findAll(ctx, r.copies, "list the copies", filter, opts, copyDoc.toCopy)
}

// CountSchoolCopies implements ports.HoldingsRepository with one
// countDocuments on the {school_id, code} index's prefix, limited to upTo
// so the cap, not the school's size, bounds it.
func (r *Holdings) CountSchoolCopies(ctx context.Context, schoolID string, upTo int) (int, error) {
	if upTo <= 0 {
		return 0, nil
	}
	n, err := r.copies.CountDocuments(ctx, visible(bson.D{{Key: "school_id", Value: schoolID}}), options.Count().SetLimit(int64(upTo)))
	if err != nil {
		return 0, mapErr(err, "count the school's copies", nil, nil)
	}
	return int(n), nil
}

// DeleteCopies implements ports.HoldingsRepository with one deleteMany by
// _id (and school).
func (r *Holdings) DeleteCopies(ctx context.Context, schoolID string, copyIDs []string) error {
	if len(copyIDs) == 0 {
		return nil
	}
	_, err := r.copies.DeleteMany(ctx, bson.D{{Key: "_id", Value: in(copyIDs)}, {Key: "school_id", Value: schoolID}})
	return mapErr(err, "delete the copies", nil, nil)
}

// CopyCounts implements ports.HoldingsRepository with one aggregate:
// $match on the {school_id, book_id, code} index's prefix, $group by book
// with $sum 1 (an accumulator FerretDB 1.24 implements).
func (r *Holdings) CopyCounts(ctx context.Context, schoolID string, bookIDs []string) (map[string]int, error) {
	if len(bookIDs) == 0 {
		return map[string]int{}, nil
	}
	return r.copyCounts(ctx, bson.D{{Key: "school_id", Value: schoolID}, {Key: "book_id", Value: in(bookIDs)}})
}

// OffShelfCounts implements ports.HoldingsRepository with one aggregate on
// the {school_id, book_id, code} index's prefix, keeping the copies that
// have a condition (the field is absent on the shelf).
func (r *Holdings) OffShelfCounts(ctx context.Context, schoolID string, bookIDs []string) (map[string]int, error) {
	if len(bookIDs) == 0 {
		return map[string]int{}, nil
	}
	return r.copyCounts(ctx, bson.D{{Key: "school_id", Value: schoolID}, {Key: "book_id", Value: in(bookIDs)},
		{Key: "condition", Value: bson.D{{Key: "$exists", Value: true}}}})
}

func (r *Holdings) copyCounts(ctx context.Context, match bson.D) (map[string]int, error) {
	return countPerBook(ctx, r.copies, "count the copies", visible(match), wholeBatch)
}
