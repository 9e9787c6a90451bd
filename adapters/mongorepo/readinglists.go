package mongorepo

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/ports"
)

const colReadingList = "reading_list"

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) { r.ReadingLists = NewReadingLists(db) },
	collections: []collection{
		{colReadingList, []mongo.IndexModel{
			{Keys: bson.D{{Key: "account_id", Value: 1}, {Key: "book_id", Value: 1}}, Options: options.Index().SetUnique(true)},
		}},
	},
	records: map[ports.RecordKind]records{
		ports.KindReadingList: plainRecords(colReadingList, toListItemDoc, listItemDoc.toListItem),
	},
})

var _ ports.ReadingListRepository = (*ReadingLists)(nil)

// addAttempts bounds how often Add starts over when the item it collided
// with is removed before it could be read or updated.
const addAttempts = 3

// ReadingLists is the MongoDB ports.ReadingListRepository: collection
// reading_list, keyed by the item id, with a unique index on
// {account_id, book_id}. That index, not a conditional update, is what
// keeps one item per account and book under concurrent Adds: FerretDB 1.24
// applies a conditional update as an unguarded read-modify-write.
type ReadingLists struct {
	c *mongo.Collection
}

// NewReadingLists returns the reading-list store of db. It panics on nil, a
// wiring bug.
func NewReadingLists(db *mongo.Database) *ReadingLists {
	mustDB(db, "NewReadingLists")
	return &ReadingLists{c: db.Collection(colReadingList)}
}

type listItemDoc struct {
	ID        string    `bson:"_id"`
	AccountID string    `bson:"account_id"`
	BookID    string    `bson:"book_id"`
	Status    string    `bson:"status"`
	Priority  string    `bson:"priority"`
	AddedAt   time.Time `bson:"added_at"`
	UpdatedAt time.Time `bson:"updated_at"`
}

func toListItemDoc(it catalog.ListItem) listItemDoc {
	return listItemDoc{
		ID:        it.ID,
		AccountID: it.AccountID,
		BookID:    it.BookID,
		Status:    string(it.Status),
		Priority:  string(it.Priority),
		AddedAt:   it.AddedAt.UTC(),
		UpdatedAt: it.UpdatedAt.UTC(),
	}
}

func (d listItemDoc) toListItem() catalog.ListItem {
	return catalog.ListItem{
		ID:        d.ID,
		AccountID: d.AccountID,
		BookID:    d.BookID,
		Status:    catalog.ListStatus(d.Status),
		Priority:  catalog.Priority(d.Priority),
		AddedAt:   d.AddedAt.UTC(),
		UpdatedAt: d.UpdatedAt.UTC(),
	}
}

// Add implements ports.ReadingListRepository. The insert decides who
// creates the item: of any number of racing Adds exactly one gets no
// duplicate key. The others read the stored item and set its status,
// priority and updated_at with a plain $set by _id (last writer wins).
// When that item is removed in between, Add starts over.
func (r *ReadingLists) Add(ctx context.Context, item catalog.ListItem) (catalog.ListItem, bool, error) {
	for range addAttempts {
		_, err := r.c.InsertOne(ctx, toListItemDoc(item))
		if err == nil {
			return item, true, nil
		}
		if !mongo.IsDuplicateKeyError(err) {
			return catalog.ListItem{}, false, mapErr(err, "add the reading-list item", nil, nil)
		}
		existing, err := r.Get(ctx, item.AccountID, item.BookID)
		if errs.Is(err, errs.NotFound) {
			continue // removed since, or the clash was the item id: try again
		}
		if err != nil {
			return catalog.ListItem{}, false, err
		}
		set := bson.D{{Key: "$set", Value: bson.D{
			{Key: "status", Value: string(item.Status)},
			{Key: "priority", Value: string(item.Priority)},
			{Key: "updated_at", Value: item.UpdatedAt.UTC()},
		}}}
		res, err := r.c.UpdateOne(ctx, bson.D{{Key: "_id", Value: existing.ID}}, set)
		if err != nil {
			return catalog.ListItem{}, false, mapErr(err, "update the reading-list item", nil, nil)
		}
		if res.MatchedCount == 0 {
			continue // removed since
		}
		existing.Status, existing.Priority, existing.UpdatedAt = item.Status, item.Priority, item.UpdatedAt.UTC()
		return existing, false, nil
	}
	// Every insert clashed and no item of the account and book exists: the
	// item id belongs to another item. Ids are generated, so this is a bug.
	return catalog.ListItem{}, false, errs.Wrap(fmt.Errorf("reading-list item id %q is taken", item.ID), "The database failed to add the reading-list item.")
}

// Get implements ports.ReadingListRepository.
func (r *ReadingLists) Get(ctx context.Context, accountID, bookID string) (catalog.ListItem, error) {
	var d listItemDoc
	filter := bson.D{{Key: "account_id", Value: accountID}, {Key: "book_id", Value: bookID}}
	if err := r.c.FindOne(ctx, filter).Decode(&d); err != nil {
		return catalog.ListItem{}, mapErr(err, "read the reading-list item", catalog.ErrListItemNotFound, nil)
	}
	return d.toListItem(), nil
}

// List implements ports.ReadingListRepository: newest first, by added_at
// and then _id, both descending.
func (r *ReadingLists) List(ctx context.Context, accountID string, status catalog.ListStatus) ([]catalog.ListItem, error) {
	filter := bson.D{{Key: "account_id", Value: accountID}}
	if status != "" {
		filter = append(filter, bson.E{Key: "status", Value: string(status)})
	}
	opts := options.Find().SetSort(bson.D{{Key: "added_at", Value: -1}, {Key: "_id", Value: -1}})
	return findAll(ctx, r.c, "list the reading list", filter, opts, listItemDoc.toListItem)
}

// Remove implements ports.ReadingListRepository.
func (r *ReadingLists) Remove(ctx context.Context, accountID, bookID string) error {
	filter := bson.D{{Key: "account_id", Value: accountID}, {Key: "book_id", Value: bookID}}
	res, err := r.c.DeleteOne(ctx, filter)
	if err != nil {
		return mapErr(err, "remove the reading-list item", nil, nil)
	}
	if res.DeletedCount == 0 {
		return catalog.ErrListItemNotFound()
	}
	return nil
}

// DeleteByAccount implements ports.ReadingListRepository: one deleteMany on
// account_id, the prefix of the unique {account_id, book_id} index.
func (r *ReadingLists) DeleteByAccount(ctx context.Context, accountID string) error {
	_, err := r.c.DeleteMany(ctx, bson.D{{Key: "account_id", Value: accountID}})
	return mapErr(err, "delete the account's reading list", nil, nil)
}

// ReadersByBook implements ports.ReadingListRepository with one aggregate:
// $match on the books, $group by book with $sum 1 (an accumulator FerretDB
// 1.24 implements). No ids is no command.
func (r *ReadingLists) ReadersByBook(ctx context.Context, bookIDs []string) (map[string]int, error) {
	if len(bookIDs) == 0 {
		return map[string]int{}, nil
	}
	match := bson.D{{Key: "book_id", Value: bson.D{{Key: "$in", Value: bookIDs}}}}
	return countPerBook(ctx, r.c, "count the readers", match, oneBatch(len(bookIDs)))
}
