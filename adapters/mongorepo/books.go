package mongorepo

import (
	"context"
	"errors"
	"math"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

const (
	colBooks        = "books"
	colChapterTexts = "chapter_texts"
)

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) { r.Books = NewBooks(db) },
	collections: []collection{
		// One index per List shape: search, each filter in title order,
		// and each order; every order ends with sort_title and _id.
		{colBooks, []mongo.IndexModel{
			{Keys: bson.D{{Key: "search_terms", Value: 1}}},
			// AppLinks' lookups.
			{Keys: bson.D{{Key: "isbn13", Value: 1}}},
			{Keys: bson.D{{Key: "work_key", Value: 1}}},
			{Keys: bson.D{{Key: "genre", Value: 1}, {Key: "sort_title", Value: 1}, {Key: "_id", Value: 1}}},
			{Keys: bson.D{{Key: "reading_level", Value: 1}, {Key: "sort_title", Value: 1}, {Key: "_id", Value: 1}}},
			{Keys: bson.D{{Key: "sort_title", Value: 1}, {Key: "_id", Value: 1}}},
			{Keys: bson.D{{Key: "rating", Value: -1}, {Key: "sort_title", Value: 1}, {Key: "_id", Value: 1}}},
			{Keys: bson.D{{Key: "published_date", Value: -1}, {Key: "sort_title", Value: 1}, {Key: "_id", Value: 1}}},
		}},
		{colChapterTexts, []mongo.IndexModel{
			{Keys: bson.D{{Key: "book_id", Value: 1}, {Key: "position", Value: 1}}},
		}},
	},
	records: map[ports.RecordKind]records{
		ports.KindBooks: func(db *mongo.Database, k ports.RecordKind) recordKind {
			return bookRecords(db, k)
		},
	},
})

var _ ports.BookRepository = (*Books)(nil)

// Books is the MongoDB ports.BookRepository: collection books, keyed by the
// book id, with the chapters embedded without their text, and collection
// chapter_texts, keyed by the chapter id. Every method is a fixed number of
// commands; List is one find and one count.
type Books struct {
	books *mongo.Collection
	texts *mongo.Collection
}

// NewBooks returns the book store of db. It panics on nil, a wiring bug.
func NewBooks(db *mongo.Database) *Books {
	mustDB(db, "NewBooks")
	return &Books{books: db.Collection(colBooks), texts: db.Collection(colChapterTexts)}
}

type bookDoc struct {
	ID            string       `bson:"_id"`
	Title         string       `bson:"title"`
	Author        string       `bson:"author"`
	Cover         string       `bson:"cover"`
	Genre         string       `bson:"genre"`
	ReadingLevel  string       `bson:"reading_level"`
	Pages         int          `bson:"pages"`
	Description   string       `bson:"description"`
	Rating        float64      `bson:"rating"`
	PublishedDate string       `bson:"published_date,omitempty"` // absent when unknown; sorts last descending
	ISBN          string       `bson:"isbn"`
	Language      string       `bson:"language"`
	Access        string       `bson:"access"`
	Chapters      []chapterDoc `bson:"chapters"`
	SearchTerms   []string     `bson:"search_terms"`
	SortTitle     string       `bson:"sort_title"`
	WordCount     int          `bson:"word_count"`
	CreatedAt     time.Time    `bson:"created_at"`
	UpdatedAt     time.Time    `bson:"updated_at"`
	// ISBN13 is library.ISBN13(isbn) and WorkKey catalog.WorkKey(title,
	// author): AppLinks finds the book by them. Both are "" for none, and
	// absent only in books stored before them (backfillAppBookKeys).
	ISBN13  string `bson:"isbn13"`
	WorkKey string `bson:"work_key"`
}

// chapterDoc has catalog.Chapter's fields, in its order, so each converts
// to the other.
type chapterDoc struct {
	ID        string `bson:"id"`
	Title     string `bson:"title"`
	PageStart int    `bson:"page_start"`
	PageEnd   int    `bson:"page_end"`
	WordCount int    `bson:"word_count"`
}

type chapterTextDoc struct {
	ChapterID string `bson:"_id"`
	BookID    string `bson:"book_id"`
	Position  int    `bson:"position"`
	Text      string `bson:"text"`
}

func toBookDoc(b catalog.Book) bookDoc {
	chapters := make([]chapterDoc, 0, len(b.Chapters))
	for _, c := range b.Chapters {
		chapters = append(chapters, chapterDoc(c))
	}
	terms := b.SearchTerms
	if terms == nil {
		terms = []string{} // an array, never null, so $all always has one to look at
	}
	return bookDoc{
		ID:            b.ID,
		Title:         b.Title,
		Author:        b.Author,
		Cover:         b.Cover,
		Genre:         b.Genre,
		ReadingLevel:  b.ReadingLevel,
		Pages:         b.Pages,
		Description:   b.Description,
		Rating:        b.Rating,
		PublishedDate: b.PublishedDate,
		ISBN:          b.ISBN,
		Language:      b.Language,
		Access:        string(b.Access),
		Chapters:      chapters,
		SearchTerms:   terms,
		SortTitle:     b.SortTitle,
		WordCount:     b.WordCount,
		CreatedAt:     b.CreatedAt.UTC(),
		UpdatedAt:     b.UpdatedAt.UTC(),
		ISBN13:        library.ISBN13(b.ISBN),
		WorkKey:       catalog.WorkKey(b.Title, b.Author),
	}
}

func (d bookDoc) toBook() catalog.Book {
	var chapters []catalog.Chapter
	for _, c := range d.Chapters {
		chapters = append(chapters, catalog.Chapter(c))
	}
	var terms []string
	if len(d.SearchTerms) > 0 {
		terms = d.SearchTerms
	}
	return catalog.Book{
		ID:            d.ID,
		Title:         d.Title,
		Author:        d.Author,
		Cover:         d.Cover,
		Genre:         d.Genre,
		ReadingLevel:  d.ReadingLevel,
		Pages:         d.Pages,
		Description:   d.Description,
		Rating:        d.Rating,
		PublishedDate: d.PublishedDate,
		ISBN:          d.ISBN,
		Language:      d.Language,
		Access:        catalog.Access(d.Access),
		Chapters:      chapters,
		SearchTerms:   terms,
		SortTitle:     d.SortTitle,
		WordCount:     d.WordCount,
		CreatedAt:     d.CreatedAt.UTC(),
		UpdatedAt:     d.UpdatedAt.UTC(),
	}
}

func toChapterTextDoc(t catalog.ChapterText) chapterTextDoc {
	return chapterTextDoc{ChapterID: t.ChapterID, BookID: t.BookID, Position: t.Position, Text: t.Text}
}

func (d chapterTextDoc) toChapterText() catalog.ChapterText {
	return catalog.ChapterText{ChapterID: d.ChapterID, BookID: d.BookID, Position: d.Position, Text: d.Text}
}

// chapterIDs returns the chapter ids of texts.
func chapterIDs(texts []catalog.ChapterText) []string {
	ids := make([]string, len(texts))
	for i, t := range texts {
		ids[i] = t.ChapterID
	}
	return ids
}

// Create implements ports.BookRepository: the texts (one unordered
// insertMany), then the book. When the book cannot be stored, the texts this
// call inserted are removed again, so a taken book id does not leave texts
// that ChapterTexts of the existing book would return.
func (r *Books) Create(ctx context.Context, b catalog.Book, texts []catalog.ChapterText) error {
	if len(texts) > 0 {
		docs := make([]chapterTextDoc, len(texts))
		for i, t := range texts {
			docs[i] = toChapterTextDoc(t)
		}
		_, err := r.texts.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
		if err != nil {
			r.removeInserted(ctx, b.ID, texts, err)
			if mongo.IsDuplicateKeyError(err) && r.exists(ctx, b.ID) {
				return catalog.ErrBookExists()
			}
			return mapErr(err, "store the chapter texts", nil, nil)
		}
	}
	_, err := r.books.InsertOne(ctx, toBookDoc(b))
	if err != nil && len(texts) > 0 {
		r.removeInserted(ctx, b.ID, texts, nil)
	}
	return mapErr(err, "create the book", nil, catalog.ErrBookExists)
}

// removeInserted deletes the texts of a failed Create that insertErr (nil:
// all of them were inserted) did not refuse. Only texts of book bookID with
// those ids are touched, so a clash with a text of another book keeps it.
// It is best effort: a failure leaves unreachable texts, which the port
// allows.
func (r *Books) removeInserted(ctx context.Context, bookID string, texts []catalog.ChapterText, insertErr error) {
	refused := map[int]bool{}
	if insertErr != nil {
		var bwe mongo.BulkWriteException
		if !errors.As(insertErr, &bwe) {
			return // nothing known to be inserted (network error and the like)
		}
		for _, we := range bwe.WriteErrors {
			refused[we.Index] = true
		}
	}
	var ids []string
	for i, t := range texts {
		if !refused[i] {
			ids = append(ids, t.ChapterID)
		}
	}
	if len(ids) == 0 {
		return
	}
	filter := bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}, {Key: "book_id", Value: bookID}}
	_, _ = r.texts.DeleteMany(context.WithoutCancel(ctx), filter)
}

// exists reports whether a book with id is stored; a failed lookup counts
// as no.
func (r *Books) exists(ctx context.Context, id string) bool {
	n, err := r.books.CountDocuments(ctx, bson.D{{Key: "_id", Value: id}}, options.Count().SetLimit(1))
	return err == nil && n > 0
}

// Get implements ports.BookRepository.
func (r *Books) Get(ctx context.Context, id string) (catalog.Book, error) {
	var d bookDoc
	if err := r.books.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&d); err != nil {
		return catalog.Book{}, mapErr(err, "read the book", catalog.ErrBookNotFound, nil)
	}
	return d.toBook(), nil
}

// GetMany implements ports.BookRepository. No ids is no command.
func (r *Books) GetMany(ctx context.Context, ids []string) ([]catalog.Book, error) {
	if len(ids) == 0 {
		return []catalog.Book{}, nil
	}
	filter := bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}}
	return r.find(ctx, "read the books", filter, options.Find().SetBatchSize(oneBatch(len(ids))))
}

// oneBatch is the batch size that returns up to n documents in the reply
// to the command itself: the server's default first batch is 101 documents,
// and more would cost getMore round trips. The one extra matters on FerretDB
// 1.24: a batch filled exactly leaves the cursor open even when the limit is
// reached, and the driver then sends an empty getMore.
func oneBatch(n int) int32 {
	return int32(min(n+1, math.MaxInt32))
}

// wholeBatch is the batch size of lists whose length is not known in
// advance (a school's books, loans, claims, accounts): up to that many
// documents come in the reply to the command itself instead of the
// server's default 101 (the server still splits batches over 16 MiB). It
// is not larger because FerretDB 1.24 allocates room for a whole batch
// before it reads anything.
const wholeBatch int32 = 10_000

// find runs one find on books and converts the result.
func (r *Books) find(ctx context.Context, op string, filter bson.D, opts *options.FindOptionsBuilder) ([]catalog.Book, error) {
	return findAll(ctx, r.books, op, filter, opts, bookDoc.toBook)
}

// listFilter is the filter of q: every term among search_terms, and the
// exact genre and reading level when given.
func listFilter(q catalog.Query) bson.D {
	filter := bson.D{}
	if len(q.Terms) > 0 {
		filter = append(filter, bson.E{Key: "search_terms", Value: bson.D{{Key: "$all", Value: q.Terms}}})
	}
	if q.Genre != "" {
		filter = append(filter, bson.E{Key: "genre", Value: q.Genre})
	}
	if q.ReadingLevel != "" {
		filter = append(filter, bson.E{Key: "reading_level", Value: q.ReadingLevel})
	}
	return filter
}

// listSort is the order of s; every order ends with sort_title and _id, as
// the indexes do. An unknown order is the title order.
func listSort(s catalog.Sort) bson.D {
	tail := bson.D{{Key: "sort_title", Value: 1}, {Key: "_id", Value: 1}}
	switch s {
	case catalog.SortRatingDesc:
		return append(bson.D{{Key: "rating", Value: -1}}, tail...)
	case catalog.SortPublishedDesc:
		return append(bson.D{{Key: "published_date", Value: -1}}, tail...)
	}
	return tail
}

// List implements ports.BookRepository: one find for the page and one
// count for the total, with the same filter. A limit of 0 or less means no
// limit and a negative skip none.
func (r *Books) List(ctx context.Context, q catalog.Query) ([]catalog.Book, int64, error) {
	filter := listFilter(q)
	opts := options.Find().SetSort(listSort(q.Sort)).SetSkip(int64(max(q.Skip(), 0)))
	if q.Limit > 0 {
		opts.SetLimit(int64(q.Limit)).SetBatchSize(oneBatch(q.Limit))
	}
	return findPage(ctx, r.books, "list books", "count books", filter, opts, bookDoc.toBook)
}

// Update implements ports.BookRepository. New texts are written first (an
// upsert per chapter id, in one command, so an id the book already had is
// rewritten), then the book is replaced, then the book's other texts are
// removed. An upsert only matches a text of this book, so it can never
// take over another book's chapter.
func (r *Books) Update(ctx context.Context, b catalog.Book, texts []catalog.ChapterText) error {
	if len(texts) > 0 {
		models := make([]mongo.WriteModel, len(texts))
		for i, t := range texts {
			models[i] = mongo.NewReplaceOneModel().
				SetFilter(bson.D{{Key: "_id", Value: t.ChapterID}, {Key: "book_id", Value: b.ID}}).
				SetReplacement(toChapterTextDoc(t)).
				SetUpsert(true)
		}
		if _, err := r.texts.BulkWrite(ctx, models); err != nil {
			return mapErr(err, "store the chapter texts", nil, nil)
		}
	}
	res, err := r.books.ReplaceOne(ctx, bson.D{{Key: "_id", Value: b.ID}}, toBookDoc(b))
	if err != nil {
		return mapErr(err, "update the book", nil, nil)
	}
	if res.MatchedCount == 0 {
		if len(texts) > 0 {
			r.removeInserted(ctx, b.ID, texts, nil) // no book: they are unreachable
		}
		return catalog.ErrBookNotFound()
	}
	if texts == nil {
		return nil
	}
	filter := bson.D{{Key: "book_id", Value: b.ID}, {Key: "_id", Value: bson.D{{Key: "$nin", Value: chapterIDs(texts)}}}}
	if _, err := r.texts.DeleteMany(ctx, filter); err != nil {
		return mapErr(err, "remove the old chapter texts", nil, nil)
	}
	return nil
}

// Delete implements ports.BookRepository: the book, then its texts.
func (r *Books) Delete(ctx context.Context, id string) error {
	res, err := r.books.DeleteOne(ctx, bson.D{{Key: "_id", Value: id}})
	if err != nil {
		return mapErr(err, "delete the book", nil, nil)
	}
	if res.DeletedCount == 0 {
		return catalog.ErrBookNotFound()
	}
	if _, err := r.texts.DeleteMany(ctx, bson.D{{Key: "book_id", Value: id}}); err != nil {
		return mapErr(err, "delete the chapter texts", nil, nil)
	}
	return nil
}

// ChapterText implements ports.BookRepository. The filter names the book
// too, so another book's chapter is not found.
func (r *Books) ChapterText(ctx context.Context, bookID, chapterID string) (catalog.ChapterText, error) {
	var d chapterTextDoc
	filter := bson.D{{Key: "_id", Value: chapterID}, {Key: "book_id", Value: bookID}}
	if err := r.texts.FindOne(ctx, filter).Decode(&d); err != nil {
		return catalog.ChapterText{}, mapErr(err, "read the chapter text", catalog.ErrChapterNotFound, nil)
	}
	return d.toChapterText(), nil
}

// ChapterTexts implements ports.BookRepository. A book has at most
// catalog.MaxChapters texts, all asked for in the first batch (the server
// still splits batches over 16 MiB).
func (r *Books) ChapterTexts(ctx context.Context, bookID string) ([]catalog.ChapterText, error) {
	opts := options.Find().
		SetSort(bson.D{{Key: "position", Value: 1}, {Key: "_id", Value: 1}}).
		SetBatchSize(oneBatch(catalog.MaxChapters))
	return findAll(ctx, r.texts, "read the chapter texts", bson.D{{Key: "book_id", Value: bookID}}, opts, chapterTextDoc.toChapterText)
}

// Candidates implements ports.BookRepository with one find: an $or of the
// genres, the authors and the level, minus the excluded ids, best rated
// first. A query without genres, authors or level matches nothing, and a
// limit below 1 asks for nothing; neither sends a command.
func (r *Books) Candidates(ctx context.Context, q catalog.CandidateQuery) ([]catalog.Book, error) {
	var or bson.A
	if len(q.Genres) > 0 {
		or = append(or, bson.D{{Key: "genre", Value: bson.D{{Key: "$in", Value: q.Genres}}}})
	}
	if len(q.Authors) > 0 {
		or = append(or, bson.D{{Key: "author", Value: bson.D{{Key: "$in", Value: q.Authors}}}})
	}
	if q.Level != "" {
		or = append(or, bson.D{{Key: "reading_level", Value: q.Level}})
	}
	if q.Limit < 1 || len(or) == 0 {
		return []catalog.Book{}, nil
	}
	filter := bson.D{{Key: "$or", Value: or}}
	if len(q.Exclude) > 0 {
		filter = append(filter, bson.E{Key: "_id", Value: bson.D{{Key: "$nin", Value: q.Exclude}}})
	}
	opts := options.Find().
		SetSort(bson.D{{Key: "rating", Value: -1}, {Key: "_id", Value: 1}}).
		SetLimit(int64(q.Limit)).
		SetBatchSize(oneBatch(q.Limit))
	return r.find(ctx, "find candidate books", filter, opts)
}

// Count implements ports.BookRepository.
func (r *Books) Count(ctx context.Context) (int64, error) {
	n, err := r.books.CountDocuments(ctx, bson.D{})
	if err != nil {
		return 0, mapErr(err, "count books", nil, nil)
	}
	return n, nil
}

// ChapterTextsByID implements ports.BookRepository with one find by _id.
// No ids is no command. Each id matches at most one text, so the reply to
// the find holds them all (oneBatch; the server still splits batches over
// 16 MiB).
func (r *Books) ChapterTextsByID(ctx context.Context, chapterIDs []string) ([]catalog.ChapterText, error) {
	return findByKeys(ctx, r.texts, "read the chapter texts", len(chapterIDs), bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: chapterIDs}}}}, chapterTextDoc.toChapterText)
}

// books is the handling of KindBooks: a book document and, in
// chapter_texts, one document per chapter text. Texts that no book names
// (left behind by a failed Books.Create) are unreachable through the
// repository, so they are neither counted nor read.
func bookRecords(db *mongo.Database, kind ports.RecordKind) recordKind {
	books, texts := db.Collection(colBooks), db.Collection(colChapterTexts)
	return recordKind{
		counted: books,
		read: func(ctx context.Context, batchSize int, fn func([]any) error) error {
			return readBatches(ctx, books, kind, batchSize, func(docs []bookDoc) error {
				ids := make([]string, len(docs))
				for i, d := range docs {
					ids[i] = d.ID
				}
				byBook, err := textsOfBooks(ctx, texts, ids)
				if err != nil {
					return err
				}
				return fn(anys(docs, func(d bookDoc) ports.BookRecord {
					return ports.BookRecord{Book: d.toBook(), Texts: byBook[d.ID]}
				}))
			})
		},
		// The texts go first, as Books.Create writes them: a book is never
		// visible without its texts, and a failure in between leaves only
		// texts that no book reaches.
		write: func(ctx context.Context, records []any) error {
			recs, err := ports.RecordsAs[ports.BookRecord](kind, records)
			if err != nil {
				return err
			}
			var textDocs []any
			bookDocs := make([]any, len(recs))
			for i, rec := range recs {
				for _, t := range rec.Texts {
					textDocs = append(textDocs, toChapterTextDoc(t))
				}
				bookDocs[i] = toBookDoc(rec.Book)
			}
			if err := insertAll(ctx, texts, kind, textDocs); err != nil {
				return err
			}
			return insertAll(ctx, books, kind, bookDocs)
		},
	}
}

// textsOfBooks returns the texts of the given books by book id, each
// book's in position order, with one find for the whole batch of books
// rather than one per book. MongoDB serves it from the {book_id, position}
// index; FerretDB 1.24 uses no index for it and reads every text once per
// batch, so there fewer, larger batches copy a big catalog much faster.
func textsOfBooks(ctx context.Context, texts *mongo.Collection, bookIDs []string) (map[string][]catalog.ChapterText, error) {
	const op = "read the chapter texts"
	opts := options.Find().
		SetSort(bson.D{{Key: "book_id", Value: 1}, {Key: "position", Value: 1}, {Key: "_id", Value: 1}}).
		SetBatchSize(wholeBatch)
	cur, err := texts.Find(ctx, bson.D{{Key: "book_id", Value: in(bookIDs)}}, opts)
	if err != nil {
		return nil, mapErr(err, op, nil, nil)
	}
	defer cur.Close(ctx)
	out := make(map[string][]catalog.ChapterText, len(bookIDs))
	for cur.Next(ctx) {
		var d chapterTextDoc
		if err := cur.Decode(&d); err != nil {
			return nil, mapErr(err, op, nil, nil)
		}
		out[d.BookID] = append(out[d.BookID], d.toChapterText())
	}
	if err := cur.Err(); err != nil {
		return nil, mapErr(err, op, nil, nil)
	}
	return out, nil
}
