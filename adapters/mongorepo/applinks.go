package mongorepo

import (
	"context"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

const colAppLinkChoices = "app_link_choices"

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) { r.AppLinks = NewAppLinks(db) },
	collections: []collection{
		// Keyed by school, library book and app book (appLinkChoiceID);
		// the same key as an index serves a page's books, the other the
		// choices naming an app book.
		{colAppLinkChoices, []mongo.IndexModel{
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "book_id", Value: 1}, {Key: "app_book_id", Value: 1}}, Options: options.Index().SetUnique(true)},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "app_book_id", Value: 1}}},
		}},
	},
	records: map[ports.RecordKind]records{
		ports.KindAppLinkChoices: plainRecords(colAppLinkChoices, toAppLinkChoiceDoc, appLinkChoiceDoc.toChoice),
	},
})

var _ ports.AppLinkRepository = (*AppLinks)(nil)

// AppLinks is the MongoDB ports.AppLinkRepository: the isbn13 and work_key
// fields of books and the work_key field of library_books (written with
// each document), and collection app_link_choices. Every method is one
// command.
type AppLinks struct {
	books   *mongo.Collection
	library *mongo.Collection
	choices *mongo.Collection
}

// NewAppLinks returns the app-link store of db. It panics on nil, a wiring
// bug.
func NewAppLinks(db *mongo.Database) *AppLinks {
	mustDB(db, "NewAppLinks")
	return &AppLinks{books: db.Collection(colBooks), library: db.Collection(colLibraryBooks), choices: db.Collection(colAppLinkChoices)}
}

type appLinkChoiceDoc struct {
	ID          string    `bson:"_id"` // appLinkChoiceID
	SchoolID    string    `bson:"school_id"`
	BookID      string    `bson:"book_id"`
	AppBookID   string    `bson:"app_book_id"`
	Same        bool      `bson:"same"`
	ByAccountID string    `bson:"by_account_id"`
	At          time.Time `bson:"at"`
}

// appLinkChoiceID keys a school's choice on a pair of books: a save is one
// replace by _id, the only filter FerretDB 1.24 looks up without reading
// the collection. The ids are UUIDs and prefixed hex, so the separator
// cannot occur in them.
func appLinkChoiceID(schoolID, bookID, appBookID string) string {
	return schoolID + "/" + bookID + "/" + appBookID
}

func toAppLinkChoiceDoc(c library.AppLinkChoice) appLinkChoiceDoc {
	return appLinkChoiceDoc{ID: appLinkChoiceID(c.SchoolID, c.BookID, c.AppBookID), SchoolID: c.SchoolID, BookID: c.BookID,
		AppBookID: c.AppBookID, Same: c.Same, ByAccountID: c.ByAccountID, At: c.At.UTC()}
}

func (d appLinkChoiceDoc) toChoice() library.AppLinkChoice {
	return library.AppLinkChoice{SchoolID: d.SchoolID, BookID: d.BookID, AppBookID: d.AppBookID, Same: d.Same,
		ByAccountID: d.ByAccountID, At: d.At.UTC()}
}

// lookupValues is values without "", which stands for no value and
// matches nothing (yet every book without one stores it).
func lookupValues(values []string) []string {
	return slices.DeleteFunc(slices.Clone(values), func(v string) bool { return v == "" })
}

// AppBooksByISBN13 implements ports.AppLinkRepository: one find on the
// isbn13 index. No ISBNs, or a limit below 1, is no command.
func (r *AppLinks) AppBooksByISBN13(ctx context.Context, isbns []string, limit int) ([]catalog.Book, error) {
	return r.appBooks(ctx, "isbn13", isbns, limit)
}

// AppBooksByWorkKeys implements ports.AppLinkRepository: one find on the
// work_key index. No keys, or a limit below 1, is no command.
func (r *AppLinks) AppBooksByWorkKeys(ctx context.Context, keys []string, limit int) ([]catalog.Book, error) {
	return r.appBooks(ctx, "work_key", keys, limit)
}

func (r *AppLinks) appBooks(ctx context.Context, field string, values []string, limit int) ([]catalog.Book, error) {
	values = lookupValues(values)
	if len(values) == 0 || limit < 1 {
		return []catalog.Book{}, nil
	}
	opts := options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(int64(limit)).SetBatchSize(oneBatch(limit))
	return findAll(ctx, r.books, "look up the reading app's books", bson.D{{Key: field, Value: in(values)}}, opts, bookDoc.toBook)
}

// LibraryBooksByWorkKeys implements ports.AppLinkRepository: one find on
// the {school_id, work_key} index, without the books of uncommitted
// imports. No keys, or a limit below 1, is no command.
func (r *AppLinks) LibraryBooksByWorkKeys(ctx context.Context, schoolID string, keys []string, limit int) ([]library.Book, error) {
	keys = lookupValues(keys)
	if len(keys) == 0 || limit < 1 {
		return []library.Book{}, nil
	}
	filter := visible(bson.D{{Key: "school_id", Value: schoolID}, {Key: "work_key", Value: in(keys)}})
	opts := options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(int64(limit)).SetBatchSize(oneBatch(limit))
	return findAll(ctx, r.library, "look up the books", filter, opts, libraryBookDoc.toBook)
}

// SaveChoice implements ports.AppLinkRepository with one replace by _id
// that inserts when there is none.
func (r *AppLinks) SaveChoice(ctx context.Context, c library.AppLinkChoice) error {
	d := toAppLinkChoiceDoc(c)
	return replaceByID(ctx, r.choices, "store the choice", d.ID, d)
}

// RemoveChoice implements ports.AppLinkRepository with one delete by _id.
func (r *AppLinks) RemoveChoice(ctx context.Context, schoolID, bookID, appBookID string) error {
	_, err := r.choices.DeleteOne(ctx, byID(appLinkChoiceID(schoolID, bookID, appBookID)))
	return mapErr(err, "remove the choice", nil, nil)
}

// ChoicesForBooks implements ports.AppLinkRepository: one find on the
// {school_id, book_id, app_book_id} index. No ids is no command.
func (r *AppLinks) ChoicesForBooks(ctx context.Context, schoolID string, bookIDs []string) ([]library.AppLinkChoice, error) {
	if len(bookIDs) == 0 {
		return []library.AppLinkChoice{}, nil
	}
	filter := bson.D{{Key: "school_id", Value: schoolID}, {Key: "book_id", Value: in(bookIDs)}}
	opts := options.Find().SetBatchSize(min(oneBatch(len(bookIDs)*library.MaxAppLinkChoicesPerBook), wholeBatch))
	return findAll(ctx, r.choices, "read the choices", filter, opts, appLinkChoiceDoc.toChoice)
}

// ChoicesForAppBook implements ports.AppLinkRepository: one find on the
// {school_id, app_book_id} index. A limit below 1 is no command.
func (r *AppLinks) ChoicesForAppBook(ctx context.Context, schoolID, appBookID string, limit int) ([]library.AppLinkChoice, error) {
	if limit < 1 {
		return []library.AppLinkChoice{}, nil
	}
	filter := bson.D{{Key: "school_id", Value: schoolID}, {Key: "app_book_id", Value: appBookID}}
	opts := options.Find().SetLimit(int64(limit)).SetBatchSize(oneBatch(limit))
	return findAll(ctx, r.choices, "read the choices", filter, opts, appLinkChoiceDoc.toChoice)
}

// ChoicesForAppBooks implements ports.AppLinkRepository: one find on the
// {school_id, app_book_id} index. No ids, or a limit below 1, is no
// command.
func (r *AppLinks) ChoicesForAppBooks(ctx context.Context, schoolID string, appBookIDs []string, limit int) ([]library.AppLinkChoice, error) {
	if len(appBookIDs) == 0 || limit < 1 {
		return []library.AppLinkChoice{}, nil
	}
	filter := bson.D{{Key: "school_id", Value: schoolID}, {Key: "app_book_id", Value: in(appBookIDs)}}
	opts := options.Find().SetLimit(int64(limit)).SetBatchSize(min(oneBatch(limit), wholeBatch))
	return findAll(ctx, r.choices, "read the choices", filter, opts, appLinkChoiceDoc.toChoice)
}
