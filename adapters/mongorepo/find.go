package mongorepo

// The command shapes the repositories of this package are written with:
// one insert, one matched update, and the finds, generic over the stored
// document and the value it becomes.

import (
	"context"
	"errors"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

func mustDB(db *mongo.Database, what string) {
	if db == nil {
		panic("mongorepo: " + what + ": nil database")
	}
}

// insertOne inserts doc in c; a duplicate key is conflict (nil where no
// key can clash, so a clash is Internal). A unique-key insert is the one
// write FerretDB 1.24 applies atomically, which makes it every claim's.
func insertOne(ctx context.Context, c *mongo.Collection, op string, doc any, conflict func() error) error {
	_, err := c.InsertOne(ctx, doc)
	return mapErr(err, op, nil, conflict)
}

// findCountedPage is one page of a list and its total: a count of filter,
// then, unless the page lies past the end, a find sorted by sort.
func findCountedPage[D, T any](ctx context.Context, c *mongo.Collection, op string, filter, sort bson.D, offset, limit int, conv func(D) T) ([]T, int, error) {
	total, err := c.CountDocuments(ctx, filter)
	if err != nil {
		return nil, 0, mapErr(err, op, nil, nil)
	}
	if int(total) <= offset {
		return nil, int(total), nil
	}
	opts := options.Find().SetSort(sort).SetSkip(int64(offset)).SetLimit(int64(limit)).SetBatchSize(oneBatch(limit))
	page, err := findAll(ctx, c, op, filter, opts, conv)
	return page, int(total), err
}

// replaceByID stores doc whole as the document with _id id, inserting it
// when there is none; a first write that loses a race on the key is made
// again as a plain replace.
func replaceByID(ctx context.Context, c *mongo.Collection, op, id string, doc any) error {
	_, err := c.ReplaceOne(ctx, byID(id), doc, options.Replace().SetUpsert(true))
	if mongo.IsDuplicateKeyError(err) {
		_, err = c.ReplaceOne(ctx, byID(id), doc)
	}
	return mapErr(err, op, nil, nil)
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

// findVisibleByID reads the document with _id id, and answers notFound
// when there is none or when it belongs to an uncommitted import. The
// filter is byID alone, so FerretDB pushes it down; the import is checked on
// the document rather than in the filter (visible), which would have made
// FerretDB decode every document of the collection for one lookup.
func findVisibleByID[D importable, T any](ctx context.Context, c *mongo.Collection, op, id string, notFound func() error, conv func(D) T) (T, error) {
	var zero T
	var d D
	if err := c.FindOne(ctx, byID(id)).Decode(&d); err != nil {
		return zero, mapErr(err, op, notFound, nil)
	}
	if d.pendingImport() {
		return zero, notFound()
	}
	return conv(d), nil
}

// importable is a document that an uncommitted import may have written:
// pendingImport says whether it still belongs to one.
type importable interface{ pendingImport() bool }

// byID is the filter {_id: id} and nothing else. The school of a looked-up
// object is compared in Go instead of in the filter: same answer, and
// FerretDB (SQLite) pushes down only a filter that is exactly {_id: v}, so a
// lookup no longer decodes every document of the collection (bench/README.md).
func byID(id string) bson.D { return bson.D{{Key: "_id", Value: id}} }

// in is the filter value "one of ids".
func in(ids []string) bson.D { return bson.D{{Key: "$in", Value: ids}} }

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
