package mongorepo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) { r.Shelf = NewShelf(db) },
})

var _ ports.ShelfRepository = (*Shelf)(nil)

// Shelf is the MongoDB ports.ShelfRepository, over the library_books
// indexes {school_id, genre, reading_level, _id}, {school_id,
// reading_level, _id} and {school_id, title, _id}.
type Shelf struct {
	library *mongo.Collection
}

// NewShelf returns the shelf lookups of db.
func NewShelf(db *mongo.Database) *Shelf {
	return &Shelf{library: db.Collection(colLibraryBooks)}
}

// BooksForReader implements ports.ShelfRepository with one find, without
// the books of uncommitted imports.
func (r *Shelf) BooksForReader(ctx context.Context, q library.ShelfQuery) ([]library.Book, error) {
	if q.Limit < 1 {
		return []library.Book{}, nil
	}
	filter := bson.D{{Key: "school_id", Value: q.SchoolID}}
	if genres := lookupValues(q.Genres); len(genres) > 0 {
		filter = append(filter, bson.E{Key: "genre", Value: in(genres)})
	}
	sort := bson.D{{Key: "_id", Value: 1}}
	if len(q.Levels) > 0 {
		// A book without a level has no reading_level field: null finds it.
		levels := make(bson.A, 0, len(q.Levels))
		for _, l := range q.Levels {
			if l == "" {
				levels = append(levels, nil)
			} else {
				levels = append(levels, l)
			}
		}
		filter = append(filter, bson.E{Key: "reading_level", Value: bson.D{{Key: "$in", Value: levels}}})
	} else if len(q.Genres) == 0 {
		sort = bson.D{{Key: "title", Value: 1}, {Key: "_id", Value: 1}}
	}
	opts := options.Find().SetSort(sort).SetLimit(int64(q.Limit)).SetBatchSize(oneBatch(q.Limit))
	return findAll(ctx, r.library, "look up the books", visible(filter), opts, libraryBookDoc.toBook)
}
