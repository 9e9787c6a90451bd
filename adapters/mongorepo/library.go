package mongorepo

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// The school library's stores share one database and these collections:
//
//   - library_books, keyed by the book id, unique on {school_id, isbn_key}
//     (isbnKey: the ISBN, or "none:" and the id, since FerretDB 1.24 has no
//     partial indexes), with the folded word prefixes of title and author
//     in search_terms for search;
//   - copies, keyed by the copy id, unique on {school_id, code};
//   - loans, keyed by the loan id; returned_at is null until the return;
//   - copy_claims, keyed by copy id + "#" + loan id, unique on copy_id:
//     the insert that takes the copy id is the one claim of the copy (a
//     unique-key insert has exactly one winner on FerretDB 1.24, where a
//     conditional update does not). The _id names the loan too so that
//     Release can delete by _id alone: FerretDB 1.24 deletes by reading the
//     matching documents and then deleting their _ids, so a delete filtered
//     on {_id: copy, loan_id} could remove a newer loan's claim that was
//     inserted in between under the same _id;
//   - renewals, keyed by loan id + "#" + number, likewise;
//   - student_numbers, keyed by school id + "#" + the lowercased number,
//     likewise;
//   - invites, keyed by the token hash, and invite_redemptions, keyed the
//     same, whose insert is the one redemption.
//
// Every method is a fixed number of commands (one, except CreateBook
// refused by a duplicate key, which looks the ISBN up to name the cause,
// and the lists, which count as well).

var (
	_ ports.HoldingsRepository   = (*Holdings)(nil)
	_ ports.LoanRepository       = (*Loans)(nil)
	_ ports.ActiveLoanRepository = (*ActiveLoans)(nil)
	_ ports.StudentRepository    = (*Students)(nil)
	_ ports.InviteRepository     = (*Invites)(nil)
)

// Holdings is the MongoDB ports.HoldingsRepository.
type Holdings struct {
	books   *mongo.Collection
	copies  *mongo.Collection
	imports *mongo.Collection // the batches of holdings imports (imports.go)
}

// Loans is the MongoDB ports.LoanRepository.
type Loans struct {
	loans    *mongo.Collection
	renewals *mongo.Collection
	endings  *mongo.Collection // keyed by the loan id: one ending wins
}

// ActiveLoans is the MongoDB ports.ActiveLoanRepository.
type ActiveLoans struct {
	claims *mongo.Collection
}

// Students is the MongoDB ports.StudentRepository: students are accounts
// (collection accounts) and their numbers are claims in student_numbers;
// an import is recorded in student_imports while it runs (imports.go).
type Students struct {
	accounts  *mongo.Collection
	numbers   *mongo.Collection
	imports   *mongo.Collection
	externals *mongo.Collection
	rollovers *mongo.Collection
	journals  *mongo.Collection
}

// Invites is the MongoDB ports.InviteRepository.
type Invites struct {
	invites     *mongo.Collection
	redemptions *mongo.Collection
}

func mustDB(db *mongo.Database, what string) {
	if db == nil {
		panic("mongorepo: " + what + ": nil database")
	}
}

// NewHoldings returns the holdings store of db. It panics on nil, a wiring bug.
func NewHoldings(db *mongo.Database) *Holdings {
	mustDB(db, "NewHoldings")
	return &Holdings{books: db.Collection(colLibraryBooks), copies: db.Collection(colCopies), imports: db.Collection(colStudentImports)}
}

// NewLoans returns the loan store of db. It panics on nil, a wiring bug.
func NewLoans(db *mongo.Database) *Loans {
	mustDB(db, "NewLoans")
	return &Loans{loans: db.Collection(colLoans), renewals: db.Collection(colRenewals), endings: db.Collection(colLoanEndings)}
}

// NewActiveLoans returns the claim store of db. It panics on nil, a wiring bug.
func NewActiveLoans(db *mongo.Database) *ActiveLoans {
	mustDB(db, "NewActiveLoans")
	return &ActiveLoans{claims: db.Collection(colCopyClaims)}
}

// NewStudents returns the student store of db. It panics on nil, a wiring bug.
func NewStudents(db *mongo.Database) *Students {
	mustDB(db, "NewStudents")
	return &Students{accounts: db.Collection(colAccounts), numbers: db.Collection(colStudentNumbers), imports: db.Collection(colStudentImports),
		externals: db.Collection(colExternalIDs), rollovers: db.Collection(colRosterRollovers), journals: db.Collection(colRosterJournals)}
}

// NewInvites returns the invitation store of db. It panics on nil, a wiring bug.
func NewInvites(db *mongo.Database) *Invites {
	mustDB(db, "NewInvites")
	return &Invites{invites: db.Collection(colInvites), redemptions: db.Collection(colRedemptions)}
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

type loanDoc struct {
	ID         string     `bson:"_id"`
	SchoolID   string     `bson:"school_id"`
	BookID     string     `bson:"book_id"`
	CopyID     string     `bson:"copy_id"`
	CopyCode   string     `bson:"copy_code"`
	StudentID  string     `bson:"student_id"`
	LoanedAt   time.Time  `bson:"loaned_at"`
	DueAt      string     `bson:"due_at"`
	ReturnedAt *time.Time `bson:"returned_at"` // null until returned
	BookTitle  string     `bson:"book_title"`
	BookAuthor string     `bson:"book_author"`
	// Absent for a loan returned at the desk (or still active).
	Outcome string `bson:"outcome,omitempty"`
}

type copyClaimDoc struct {
	ID        string    `bson:"_id"`     // claimID(copy, loan)
	CopyID    string    `bson:"copy_id"` // unique
	LoanID    string    `bson:"loan_id"`
	SchoolID  string    `bson:"school_id"`
	BookID    string    `bson:"book_id"`
	ClaimedAt time.Time `bson:"claimed_at"`
}

type renewalDoc struct {
	ID        string    `bson:"_id"` // renewalID(loan, number)
	LoanID    string    `bson:"loan_id"`
	Number    int       `bson:"number"`
	DueAt     string    `bson:"due_at"`
	RenewedAt time.Time `bson:"renewed_at"`
}

type studentNumberDoc struct {
	ID        string `bson:"_id"` // studentNumberID(school, number)
	SchoolID  string `bson:"school_id"`
	Number    string `bson:"number"`
	AccountID string `bson:"account_id"`
	// ImportBatch is set while the number belongs to an uncommitted import.
	ImportBatch string `bson:"import_batch,omitempty"`
}

type inviteDoc struct {
	TokenHash string    `bson:"_id"`
	AccountID string    `bson:"account_id"`
	ExpiresAt time.Time `bson:"expires_at"`
	CreatedAt time.Time `bson:"created_at"`
}

// claimID is the _id of the claim of copyID by loanID. Copy ids are UUIDs,
// without "#".
func claimID(copyID, loanID string) string { return copyID + "#" + loanID }

// renewalID is the _id of renewal number of loanID. Loan ids are UUIDs,
// without "#".
func renewalID(loanID string, number int) string { return loanID + "#" + strconv.Itoa(number) }

// studentNumberID is the _id of a student number of a school: numbers
// that differ only in case are one number. School ids are UUIDs, without
// "#", so the first "#" ends the school id.
func studentNumberID(schoolID, number string) string { return schoolID + "#" + strings.ToLower(number) }

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
		MatchKey:     library.MatchKey(b.Title, b.Author),
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

func toLoanDoc(l library.Loan) loanDoc {
	d := loanDoc{
		ID:         l.ID,
		SchoolID:   l.SchoolID,
		BookID:     l.BookID,
		CopyID:     l.CopyID,
		CopyCode:   l.CopyCode,
		StudentID:  l.StudentID,
		LoanedAt:   l.LoanedAt.UTC(),
		DueAt:      l.DueAt,
		BookTitle:  l.BookTitle,
		BookAuthor: l.BookAuthor,
		Outcome:    l.Outcome,
	}
	if l.Returned() {
		at := l.ReturnedAt.UTC()
		d.ReturnedAt = &at
	}
	return d
}

func (d loanDoc) toLoan() library.Loan {
	l := library.Loan{
		ID:         d.ID,
		SchoolID:   d.SchoolID,
		BookID:     d.BookID,
		CopyID:     d.CopyID,
		CopyCode:   d.CopyCode,
		StudentID:  d.StudentID,
		LoanedAt:   d.LoanedAt.UTC(),
		DueAt:      d.DueAt,
		BookTitle:  d.BookTitle,
		BookAuthor: d.BookAuthor,
		Outcome:    d.Outcome,
	}
	if d.ReturnedAt != nil {
		l.ReturnedAt = d.ReturnedAt.UTC()
	}
	return l
}

func toCopyClaimDoc(c library.CopyClaim) copyClaimDoc {
	return copyClaimDoc{ID: claimID(c.CopyID, c.LoanID), CopyID: c.CopyID, LoanID: c.LoanID, SchoolID: c.SchoolID, BookID: c.BookID, ClaimedAt: c.ClaimedAt.UTC()}
}

func (d copyClaimDoc) toCopyClaim() library.CopyClaim {
	return library.CopyClaim{CopyID: d.CopyID, LoanID: d.LoanID, SchoolID: d.SchoolID, BookID: d.BookID, ClaimedAt: d.ClaimedAt.UTC()}
}

func toRenewalDoc(r library.Renewal) renewalDoc {
	return renewalDoc{ID: renewalID(r.LoanID, r.Number), LoanID: r.LoanID, Number: r.Number, DueAt: r.DueAt, RenewedAt: r.RenewedAt.UTC()}
}

func (d renewalDoc) toRenewal() library.Renewal {
	return library.Renewal{LoanID: d.LoanID, Number: d.Number, DueAt: d.DueAt, RenewedAt: d.RenewedAt.UTC()}
}

func toInviteDoc(inv library.Invite) inviteDoc {
	return inviteDoc{TokenHash: inv.TokenHash, AccountID: inv.AccountID, ExpiresAt: inv.ExpiresAt.UTC(), CreatedAt: inv.CreatedAt.UTC()}
}

func (d inviteDoc) toInvite() library.Invite {
	return library.Invite{TokenHash: d.TokenHash, AccountID: d.AccountID, ExpiresAt: d.ExpiresAt.UTC(), CreatedAt: d.CreatedAt.UTC()}
}

// insertOne inserts doc in c; a duplicate key is conflict (nil where no
// key can clash, so a clash is Internal). A unique-key insert is the one
// write FerretDB 1.24 applies atomically, which makes it every claim's.
func insertOne(ctx context.Context, c *mongo.Collection, op string, doc any, conflict func() error) error {
	_, err := c.InsertOne(ctx, doc)
	return mapErr(err, op, nil, conflict)
}

// updateMatched runs one updateOne on c; a filter that matches no
// document is notFound.
func updateMatched(ctx context.Context, c *mongo.Collection, filter, update bson.D, op string, notFound func() error) error {
	res, err := c.UpdateOne(ctx, filter, update)
	if err != nil {
		return mapErr(err, op, nil, nil)
	}
	if res.MatchedCount == 0 {
		return notFound()
	}
	return nil
}

// setUnset is the update that sets set and unsets unset, leaving out an
// empty operator (the server refuses one).
func setUnset(set, unset bson.D) bson.D {
	update := bson.D{}
	if len(set) > 0 {
		update = append(update, bson.E{Key: "$set", Value: set})
	}
	if len(unset) > 0 {
		update = append(update, bson.E{Key: "$unset", Value: unset})
	}
	return update
}

// findAll runs one find on c and converts every document with conv.
func findAll[D, T any](ctx context.Context, c *mongo.Collection, op string, filter bson.D, opts *options.FindOptionsBuilder, conv func(D) T) ([]T, error) {
	docs, err := findDocs[D](ctx, c, op, filter, opts)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(docs))
	for _, d := range docs {
		out = append(out, conv(d))
	}
	return out, nil
}

// findByKeys reads, in one batch, the documents of filter, which asks for
// n keys; no keys is no command.
func findByKeys[D, T any](ctx context.Context, c *mongo.Collection, op string, n int, filter bson.D, conv func(D) T) ([]T, error) {
	if n == 0 {
		return []T{}, nil
	}
	return findAll(ctx, c, op, filter, options.Find().SetBatchSize(oneBatch(n)), conv)
}

// findDocs runs one find on c and decodes every document.
func findDocs[D any](ctx context.Context, c *mongo.Collection, op string, filter bson.D, opts ...options.Lister[options.FindOptions]) ([]D, error) {
	cur, err := c.Find(ctx, filter, opts...)
	if err != nil {
		return nil, mapErr(err, op, nil, nil)
	}
	var docs []D
	if err := cur.All(ctx, &docs); err != nil {
		return nil, mapErr(err, op, nil, nil)
	}
	return docs, nil
}

// idDoc is a document read for its _id alone.
type idDoc[K any] struct {
	ID K `bson:"_id"`
}

// findIDs runs one find on c, whose opts project _id alone, and returns
// the ids.
func findIDs[K any](ctx context.Context, c *mongo.Collection, op string, filter bson.D, opts *options.FindOptionsBuilder) ([]K, error) {
	return findAll(ctx, c, op, filter, opts, func(d idDoc[K]) K { return d.ID })
}

// findPage runs one find on c for a page (opts' skip and limit) and one
// count of the same filter for the total.
func findPage[D, T any](ctx context.Context, c *mongo.Collection, op, countOp string, filter bson.D, opts *options.FindOptionsBuilder, conv func(D) T) ([]T, int64, error) {
	page, err := findAll(ctx, c, op, filter, opts, conv)
	if err != nil {
		return nil, 0, err
	}
	total, err := c.CountDocuments(ctx, filter)
	if err != nil {
		return nil, 0, mapErr(err, countOp, nil, nil)
	}
	return page, total, nil
}

// findOne runs one findOne on c and converts the document with conv;
// no document is notFound.
func findOne[D, T any](ctx context.Context, c *mongo.Collection, op string, filter bson.D, notFound func() error, conv func(D) T) (T, error) {
	var d D
	if err := c.FindOne(ctx, filter).Decode(&d); err != nil {
		var zero T
		return zero, mapErr(err, op, notFound, nil)
	}
	return conv(d), nil
}

// byID is the filter {_id: id} and nothing else. The school of a looked-up
// object is compared in Go instead of in the filter: same answer, and
// FerretDB (SQLite) pushes down only a filter that is exactly {_id: v}, so a
// lookup no longer decodes every document of the collection (bench/README.md).
func byID(id string) bson.D { return bson.D{{Key: "_id", Value: id}} }

// in is the filter value "one of ids".
func in(ids []string) bson.D { return bson.D{{Key: "$in", Value: ids}} }

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
	b, err := findOne(ctx, r.books, "read the book", visible(byID(bookID)), library.ErrBookNotFound, libraryBookDoc.toBook)
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
	c, err := findOne(ctx, r.copies, "read the copy", visible(byID(copyID)), library.ErrCopyNotFound, copyDoc.toCopy)
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

// Insert implements ports.LoanRepository. A taken loan id is a bug
// (ids are generated), so Internal.
func (r *Loans) Insert(ctx context.Context, l library.Loan) error {
	return insertOne(ctx, r.loans, "store the loan", toLoanDoc(l), nil)
}

// Get implements ports.LoanRepository.
func (r *Loans) Get(ctx context.Context, schoolID, loanID string) (library.Loan, error) {
	l, err := findOne(ctx, r.loans, "read the loan", byID(loanID), library.ErrLoanNotFound, loanDoc.toLoan)
	if err == nil && l.SchoolID != schoolID {
		return library.Loan{}, library.ErrLoanNotFound()
	}
	return l, err
}

// ByIDs implements ports.LoanRepository with one find by _id. No
// ids is no command.
func (r *Loans) ByIDs(ctx context.Context, ids []string) ([]library.Loan, error) {
	return findByKeys(ctx, r.loans, "read the loans", len(ids), bson.D{{Key: "_id", Value: in(ids)}}, loanDoc.toLoan)
}

// Open implements ports.LoanRepository with one find: returned_at
// null (matched by the {school_id, returned_at, loaned_at} index), ordered
// by loaned_at, then _id.
func (r *Loans) Open(ctx context.Context, schoolID, studentID, bookID string) ([]library.Loan, error) {
	filter := bson.D{{Key: "school_id", Value: schoolID}, {Key: "returned_at", Value: nil}}
	if studentID != "" {
		filter = append(filter, bson.E{Key: "student_id", Value: studentID})
	}
	if bookID != "" {
		filter = append(filter, bson.E{Key: "book_id", Value: bookID})
	}
	opts := options.Find().SetSort(bson.D{{Key: "loaned_at", Value: 1}, {Key: "_id", Value: 1}}).SetBatchSize(wholeBatch)
	return findAll(ctx, r.loans, "list the open loans", filter, opts, loanDoc.toLoan)
}

// OpenOfStudents implements ports.LoanRepository with one find on the
// {student_id, loaned_at} index. No students is no command.
func (r *Loans) OpenOfStudents(ctx context.Context, schoolID string, studentIDs []string) ([]library.Loan, error) {
	if len(studentIDs) == 0 {
		return nil, nil
	}
	filter := bson.D{{Key: "student_id", Value: in(studentIDs)}, {Key: "school_id", Value: schoolID}, {Key: "returned_at", Value: nil}}
	opts := options.Find().SetSort(bson.D{{Key: "loaned_at", Value: 1}, {Key: "_id", Value: 1}}).SetBatchSize(wholeBatch)
	return findAll(ctx, r.loans, "list the students' open loans", filter, opts, loanDoc.toLoan)
}

// OfStudent implements ports.LoanRepository: newest first, by
// loaned_at and then _id, both descending (the {student_id, loaned_at}
// index read backwards).
func (r *Loans) OfStudent(ctx context.Context, studentID string) ([]library.Loan, error) {
	opts := options.Find().SetSort(bson.D{{Key: "loaned_at", Value: -1}, {Key: "_id", Value: -1}}).SetBatchSize(wholeBatch)
	return findAll(ctx, r.loans, "list the student's loans", bson.D{{Key: "student_id", Value: studentID}}, opts, loanDoc.toLoan)
}

// MarkReturned implements ports.LoanRepository with one updateOne whose
// filter wants returned_at null, so a returned loan keeps its first return
// time. A missing loan matches nothing, which is not an error either: the
// update cannot tell it from a returned one.
//
// That filter is not a compare-and-swap on FerretDB 1.24, which applies an
// update as an unguarded read-modify-write: two returns racing may both
// match, and the later write then leaves its own time, a moment after the
// first. That is acceptable: both are the time the copy came back, and
// nothing exactly-once hangs on it (the claim, a unique-key insert, decides
// which loan holds a copy).
func (r *Loans) MarkReturned(ctx context.Context, loanID string, at time.Time) error {
	filter := bson.D{{Key: "_id", Value: loanID}, {Key: "returned_at", Value: nil}}
	update := bson.D{{Key: "$set", Value: bson.D{{Key: "returned_at", Value: at.UTC()}}}}
	_, err := r.loans.UpdateOne(ctx, filter, update)
	return mapErr(err, "mark the loan returned", nil, nil)
}

// EndLoan implements ports.LoanRepository with one updateOne whose filter
// wants returned_at null, as MarkReturned (whose comment says why a race
// on FerretDB 1.24 is acceptable there). A loan's ending racing another
// ending is decided by the service, not here: a lost copy's charge is a
// unique-key insert, and the copy's condition is set before the claim is
// released.
func (r *Loans) EndLoan(ctx context.Context, loanID string, at time.Time, outcome string) error {
	filter := bson.D{{Key: "_id", Value: loanID}, {Key: "returned_at", Value: nil}}
	set := bson.D{{Key: "returned_at", Value: at.UTC()}}
	if outcome != "" {
		set = append(set, bson.E{Key: "outcome", Value: outcome})
	}
	_, err := r.loans.UpdateOne(ctx, filter, bson.D{{Key: "$set", Value: set}})
	return mapErr(err, "end the loan", nil, nil)
}

type loanEndingDoc struct {
	LoanID  string    `bson:"_id"`
	Outcome string    `bson:"outcome"`
	At      time.Time `bson:"ended_at"`
}

func toLoanEndingDoc(e library.LoanEnding) loanEndingDoc {
	return loanEndingDoc{LoanID: e.LoanID, Outcome: e.Outcome, At: e.At.UTC()}
}

func (d loanEndingDoc) toLoanEnding() library.LoanEnding {
	return library.LoanEnding{LoanID: d.LoanID, Outcome: d.Outcome, At: d.At.UTC()}
}

// ClaimEnding implements ports.LoanRepository with one insert keyed by the
// loan id: exactly one of racing endings is stored on every backend.
func (r *Loans) ClaimEnding(ctx context.Context, e library.LoanEnding) error {
	return insertOne(ctx, r.endings, "record the loan's ending", toLoanEndingDoc(e), library.ErrLoanEnded)
}

// Ending implements ports.LoanRepository: one find by _id.
func (r *Loans) Ending(ctx context.Context, loanID string) (library.LoanEnding, error) {
	return findOne(ctx, r.endings, "read the loan's ending", byID(loanID), library.ErrEndingNotFound, loanEndingDoc.toLoanEnding)
}

// ClaimsReturned implements ports.LoanRepository with one count on the
// {student_id, outcome} index.
func (r *Loans) ClaimsReturned(ctx context.Context, studentID string) (int, error) {
	n, err := r.loans.CountDocuments(ctx, bson.D{{Key: "student_id", Value: studentID}, {Key: "outcome", Value: library.OutcomeClaimsReturned}})
	return int(n), mapErr(err, "count the claimed returns", nil, nil)
}

// Delete implements ports.LoanRepository: one delete by _id.
func (r *Loans) Delete(ctx context.Context, loanID string) error {
	_, err := r.loans.DeleteOne(ctx, bson.D{{Key: "_id", Value: loanID}})
	return mapErr(err, "delete the loan", nil, nil)
}

// AnonymizeStudent implements ports.LoanRepository with one updateMany
// on student_id. A failure part-way leaves loans that a repeated call
// finds.
//
// FerretDB 1.24 applies an update by reading the whole document and
// writing the whole document back, so an AnonymizeStudent and a
// MarkReturned racing on one loan can undo each other: the return or the
// anonymization is lost (in a probe of 200 such races, about half lost
// one of them). MongoDB updates fields in place. Only these two methods
// update loans, and both are idempotent: repeating the lost one once the
// other has finished repairs the loan.
func (r *Loans) AnonymizeStudent(ctx context.Context, studentID string) error {
	update := bson.D{{Key: "$set", Value: bson.D{{Key: "student_id", Value: ""}}}}
	_, err := r.loans.UpdateMany(ctx, bson.D{{Key: "student_id", Value: studentID}}, update)
	return mapErr(err, "anonymize the student's loans", nil, nil)
}

// AnonymizeReturned implements ports.LoanRepository: a find of at most
// limit ids on the {school_id, returned_at, ...} index (a date range leaves
// out the open loans, whose returned_at is null), then one updateMany of
// those ids. Only returned loans are changed, which nothing else updates
// but AnonymizeStudent, to the same value.
func (r *Loans) AnonymizeReturned(ctx context.Context, schoolID string, returnedBefore time.Time, limit int) (int, error) {
	filter := bson.D{
		{Key: "school_id", Value: schoolID},
		{Key: "returned_at", Value: bson.D{{Key: "$lt", Value: returnedBefore.UTC()}}},
		{Key: "student_id", Value: bson.D{{Key: "$ne", Value: ""}}},
	}
	opts := options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}).
		SetSort(bson.D{{Key: "returned_at", Value: 1}}).SetLimit(int64(limit))
	ids, err := findIDs[string](ctx, r.loans, "find returned loans to anonymize", filter, opts)
	if err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, nil
	}
	update := bson.D{{Key: "$set", Value: bson.D{{Key: "student_id", Value: ""}}}}
	if _, err := r.loans.UpdateMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}}, update); err != nil {
		return 0, mapErr(err, "anonymize returned loans", nil, nil)
	}
	return len(ids), nil
}

// AddRenewal implements ports.LoanRepository with an insert keyed by
// loan and number: exactly one of any number of racing inserts succeeds.
func (r *Loans) AddRenewal(ctx context.Context, rn library.Renewal) error {
	return insertOne(ctx, r.renewals, "record the renewal", toRenewalDoc(rn), library.ErrRenewalExists)
}

// Renewals implements ports.LoanRepository with one find in the order
// of the {loan_id, number} index. No ids is no command.
func (r *Loans) Renewals(ctx context.Context, loanIDs []string) ([]library.Renewal, error) {
	if len(loanIDs) == 0 {
		return []library.Renewal{}, nil
	}
	opts := options.Find().SetSort(bson.D{{Key: "loan_id", Value: 1}, {Key: "number", Value: 1}}).SetBatchSize(wholeBatch)
	return findAll(ctx, r.renewals, "read the renewals", bson.D{{Key: "loan_id", Value: in(loanIDs)}}, opts, renewalDoc.toRenewal)
}

// Claim implements ports.ActiveLoanRepository with one insert into the
// unique copy_id index: exactly one of any number of racing inserts
// succeeds, on FerretDB as on MongoDB. A duplicate _id (the same loan
// claiming the copy twice) is the same conflict.
func (r *ActiveLoans) Claim(ctx context.Context, c library.CopyClaim) error {
	return insertOne(ctx, r.claims, "claim the copy", toCopyClaimDoc(c), library.ErrCopyClaimed)
}

// Holder implements ports.ActiveLoanRepository.
func (r *ActiveLoans) Holder(ctx context.Context, copyID string) (library.CopyClaim, error) {
	return findOne(ctx, r.claims, "read the claim", bson.D{{Key: "copy_id", Value: copyID}}, library.ErrClaimNotFound, copyClaimDoc.toCopyClaim)
}

// ClaimsOfCopies implements ports.ActiveLoanRepository with one find on the
// unique copy_id index. No ids is no command.
func (r *ActiveLoans) ClaimsOfCopies(ctx context.Context, copyIDs []string) ([]library.CopyClaim, error) {
	return findByKeys(ctx, r.claims, "read the claims", len(copyIDs), bson.D{{Key: "copy_id", Value: in(copyIDs)}}, copyClaimDoc.toCopyClaim)
}

// ClaimsOfBooks implements ports.ActiveLoanRepository with one find on the
// {school_id, book_id} index.
func (r *ActiveLoans) ClaimsOfBooks(ctx context.Context, schoolID string, bookIDs []string) ([]library.CopyClaim, error) {
	if len(bookIDs) == 0 {
		return []library.CopyClaim{}, nil
	}
	filter := bson.D{{Key: "school_id", Value: schoolID}, {Key: "book_id", Value: in(bookIDs)}}
	return findAll(ctx, r.claims, "list the claims", filter, options.Find().SetBatchSize(wholeBatch), copyClaimDoc.toCopyClaim)
}

// Release implements ports.ActiveLoanRepository: one delete by the _id
// that names both the copy and the loan, so a claim another loan holds
// stays. FerretDB 1.24 runs a delete as a read of the matching documents
// followed by a delete of their _ids, not atomically: with the copy id as
// _id and the loan in the filter, two releases of one loan racing with a
// new claim of the copy removed the new claim (ReleaseRace in porttest).
// A newer claim has another _id here, so it is never touched.
func (r *ActiveLoans) Release(ctx context.Context, copyID, loanID string) error {
	_, err := r.claims.DeleteOne(ctx, bson.D{{Key: "_id", Value: claimID(copyID, loanID)}})
	return mapErr(err, "release the claim", nil, nil)
}

// ClaimMany implements ports.ActiveLoanRepository with one unordered
// insert of the batch: the unique copy_id index refuses the copies claimed
// already, one by one, and lets the others in.
func (r *ActiveLoans) ClaimMany(ctx context.Context, claims []library.CopyClaim) ([]int, error) {
	return insertManyWon(ctx, r.claims, "claim the copies", anys(claims, toCopyClaimDoc))
}

// ReleaseMany implements ports.ActiveLoanRepository: one delete by the
// _ids that name each copy and the loan, for the reason Release gives.
func (r *ActiveLoans) ReleaseMany(ctx context.Context, copyIDs []string, loanID string) error {
	if len(copyIDs) == 0 {
		return nil
	}
	ids := make([]string, len(copyIDs))
	for i, c := range copyIDs {
		ids[i] = claimID(c, loanID)
	}
	_, err := r.claims.DeleteMany(ctx, bson.D{{Key: "_id", Value: in(ids)}})
	return mapErr(err, "release the claims", nil, nil)
}

// insertManyWon inserts docs unordered and returns the indexes of those
// stored: a duplicate key refuses its document alone. No documents is no
// command.
func insertManyWon(ctx context.Context, c *mongo.Collection, op string, docs []any) ([]int, error) {
	if len(docs) == 0 {
		return nil, nil
	}
	lost := map[int]bool{}
	_, err := c.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	if err != nil {
		var bwe mongo.BulkWriteException
		if !errors.As(err, &bwe) || bwe.WriteConcernError != nil || len(bwe.WriteErrors) == 0 {
			return nil, mapErr(err, op, nil, nil)
		}
		for _, we := range bwe.WriteErrors {
			if !mongo.IsDuplicateKeyError(we) || we.Index < 0 || we.Index >= len(docs) {
				return nil, mapErr(err, op, nil, nil)
			}
			lost[we.Index] = true
		}
	}
	won := make([]int, 0, len(docs)-len(lost))
	for i := range docs {
		if !lost[i] {
			won = append(won, i)
		}
	}
	return won, nil
}

// Create implements ports.InviteRepository. A taken hash is a bug
// (tokens are random), so Internal.
func (r *Invites) Create(ctx context.Context, inv library.Invite) error {
	return insertOne(ctx, r.invites, "store the invitation", toInviteDoc(inv), nil)
}

// Get implements ports.InviteRepository. A redeemed invitation is still
// returned.
func (r *Invites) Get(ctx context.Context, tokenHash string) (library.Invite, error) {
	return findOne(ctx, r.invites, "read the invitation", bson.D{{Key: "_id", Value: tokenHash}}, library.ErrInviteNotFound, inviteDoc.toInvite)
}

// Redeem implements ports.InviteRepository with an insert keyed by
// the hash into invite_redemptions: exactly one of any number of racing
// calls succeeds. It does not look the invitation up; callers read it
// first.
func (r *Invites) Redeem(ctx context.Context, tokenHash string, at time.Time) error {
	return insertOne(ctx, r.redemptions, "redeem the invitation", toStampDoc(ports.Stamp{ID: tokenHash, At: at}), library.ErrInviteUsed)
}

// ClaimNumber implements ports.StudentRepository with an insert keyed by
// school and lowercased number: exactly one account gets each number,
// whatever case it is typed in.
func (r *Students) ClaimNumber(ctx context.Context, schoolID, number, accountID string) error {
	d := toStudentNumberDoc(ports.StudentNumber{SchoolID: schoolID, Number: number, AccountID: accountID})
	return insertOne(ctx, r.numbers, "claim the student number", d, library.ErrStudentNumberExists)
}

// TakenNumbers implements ports.StudentRepository with one find by _id
// (the keys are lowercased, so the comparison ignores case).
func (r *Students) TakenNumbers(ctx context.Context, schoolID string, numbers []string) ([]string, error) {
	if len(numbers) == 0 {
		return nil, nil
	}
	ids := make([]string, len(numbers))
	for i, n := range numbers {
		ids[i] = studentNumberID(schoolID, n)
	}
	opts := options.Find().SetBatchSize(oneBatch(len(ids)))
	return findAll(ctx, r.numbers, "read the student numbers", bson.D{{Key: "_id", Value: in(ids)}}, opts,
		func(d studentNumberDoc) string { return d.Number })
}

// ReleaseNumbers implements ports.StudentRepository: one delete by
// account_id (rare: only account deletion and a failed creation call it,
// so no index).
func (r *Students) ReleaseNumbers(ctx context.Context, accountID string) error {
	_, err := r.numbers.DeleteMany(ctx, bson.D{{Key: "account_id", Value: accountID}})
	if err != nil {
		return mapErr(err, "delete the account's student numbers", nil, nil)
	}
	// The external id goes with the account too (the SQLite store keeps it
	// on the account's row).
	_, err = r.externals.DeleteMany(ctx, bson.D{{Key: "account_id", Value: accountID}})
	return mapErr(err, "delete the account's external id", nil, nil)
}

// Search implements ports.StudentRepository: one find and one count on
// accounts, with every term among the account's search_terms (the
// multikey {school_id, role, search_terms} index) or, without terms, in the
// order of the {school_id, role, name, _id} index; a class's students by
// the {school_id, role, homeroom_key, name, _id} index.
func (r *Students) Search(ctx context.Context, q library.StudentQuery) ([]user.Account, int, error) {
	filter := bson.D{{Key: "school_id", Value: q.SchoolID}, {Key: "role", Value: string(user.RoleStudent)}, {Key: "deleted", Value: false}}
	if q.HomeroomKey != "" {
		filter = append(filter, bson.E{Key: "homeroom_key", Value: q.HomeroomKey})
	}
	if len(q.Terms) > 0 {
		filter = append(filter, bson.E{Key: "search_terms", Value: bson.D{{Key: "$all", Value: q.Terms}}})
	}
	filter = visible(filter)
	opts := options.Find().SetSort(bson.D{{Key: "name", Value: 1}, {Key: "_id", Value: 1}}).
		SetSkip(int64(q.Offset)).SetLimit(int64(q.Limit)).SetBatchSize(oneBatch(q.Limit))
	list, total, err := findPage(ctx, r.accounts, "search the students", "count the students", filter, opts, accountDoc.toAccount)
	return list, int(total), err
}

// DeleteByAccount implements ports.InviteRepository: one delete by
// account_id (rare: only account deletion calls it, so no index).
func (r *Invites) DeleteByAccount(ctx context.Context, accountID string) error {
	_, err := r.invites.DeleteMany(ctx, bson.D{{Key: "account_id", Value: accountID}})
	return mapErr(err, "delete the account's invitations", nil, nil)
}
