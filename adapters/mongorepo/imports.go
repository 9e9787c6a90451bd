package mongorepo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/core/errs"
)

const colStudentImports = "student_imports"

var _ = register(entity{
	collections: []collection{
		{colStudentImports, []mongo.IndexModel{
			{Keys: bson.D{{Key: "batch", Value: 1}}},
			{Keys: bson.D{{Key: "started_at", Value: 1}}},
		}},
	},
})

// How a student import, and a holdings import (holdingsimport.go: books
// and copies instead of accounts and numbers, recorded in the same
// student_imports collection), is all or nothing without transactions
// (FerretDB 1.24 has none, and standalone MongoDB servers neither):
//
//   - The import is a batch with a random id. Its accounts and student
//     numbers are inserted carrying import_batch, and no read of accounts
//     returns an account that carries it (visible), so until the end nobody
//     sees any of them.
//   - The batch is committed by one insert, of the document
//     "<batch>#committed" in student_imports: a single-document write,
//     atomic on every store. Before it the batch is nothing; after it the
//     batch is everything, and import_batch is removed from its documents.
//   - A batch that fails before its commit (a taken email or number, a
//     cancelled request, a database error) deletes its documents at once.
//     Its writes, and the clean-up, run on a context of their own and the
//     request's is checked between them, so no write cut off in flight
//     lands after the clean-up.
//   - A crash leaves the batch's documents invisible; the next start
//     (EnsureIndexes) finishes every batch older than staleImport: it
//     publishes committed ones and deletes the others. A batch younger
//     than that may still be running on another replica, so it is left
//     alone; requests end long before (their deadline is 15 s).
//
// Removing import_batch from a committed batch's documents is one
// updateMany per collection, not atomic as a whole: for the few
// milliseconds it takes, a list may show part of the batch. What a failed
// or cut-off import leaves is always nothing.

// staleImport is the age past which an unfinished batch is certainly no
// request's any more.
const staleImport = 10 * time.Minute

// importCleanupTimeout bounds the clean-up of a failed batch, which runs
// after the request's own deadline may have passed; importWriteTimeout
// bounds the import's own writes (a file of the largest size the service
// takes is a few thousand students).
const (
	importCleanupTimeout = 10 * time.Second
	importWriteTimeout   = time.Minute
)

// writeContext is the context of an import's own writes: free of ctx's
// cancellation, so a caller that goes away cannot leave half of it, and
// bounded by importWriteTimeout, or by ctx's deadline when that is later:
// a background job gives its work far longer than a request (FerretDB
// takes over a minute for a roster of 5,000 students).
func writeContext(ctx context.Context) (context.Context, context.CancelFunc) {
	d := importWriteTimeout
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) > d {
		d = time.Until(dl)
	}
	return context.WithTimeout(context.WithoutCancel(ctx), d)
}

// importDoc records a batch in student_imports: one document when it
// starts (_id = the batch id) and one when it commits (_id = the batch id
// and "#committed").
type importDoc struct {
	ID        string    `bson:"_id"`
	Batch     string    `bson:"batch"`
	Committed bool      `bson:"committed"`
	StartedAt time.Time `bson:"started_at"`
}

// importedCollections are the collections an import batch writes to: a
// student import's accounts and numbers, a holdings import's books and
// copies. Publishing or dropping a batch visits each (an empty
// import_batch index range where the batch wrote nothing).
var importedCollections = []string{colAccounts, colStudentNumbers, colLibraryBooks, colCopies}

var inBatch = func(batch string) bson.D { return bson.D{{Key: "import_batch", Value: batch}} }

// stageImport runs the steps every import batch shares, on a context of
// its own (writeContext) with the request's checked between them: it
// draws the batch id, inserts the start document, has write insert the
// batch's documents, inserts the commit document, then has publish
// publish the batch. A failure before the commit goes to abandon, which
// deletes what the batch stored; after it the batch is the school's,
// whatever happens to the request.
func stageImport(ctx context.Context, imports *mongo.Collection,
	write, publish func(wctx context.Context, batch string) error,
	abandon func(ctx context.Context, batch string, cause error) error,
) error {
	wctx, cancel := writeContext(ctx)
	defer cancel()
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return mapErr(err, "start the import", nil, nil)
	}
	batch := hex.EncodeToString(raw[:])
	started := time.Now().UTC()
	if _, err := imports.InsertOne(wctx, importDoc{ID: batch, Batch: batch, StartedAt: started}); err != nil {
		return abandon(ctx, batch, mapErr(err, "start the import", nil, nil))
	}
	if err := write(wctx, batch); err != nil {
		return abandon(ctx, batch, err)
	}
	if _, err := imports.InsertOne(wctx, importDoc{ID: batch + "#committed", Batch: batch, Committed: true, StartedAt: started}); err != nil {
		return abandon(ctx, batch, mapErr(err, "commit the import", nil, nil))
	}
	// Past the commit the batch is the school's, and publishing it is
	// idempotent: a publish that fails is tried once more, on a context of
	// its own. A batch still unpublished is published by a later start
	// (finishImports), so the error says the import is stored: "nothing
	// was imported" would be false.
	if err := publish(wctx, batch); err == nil {
		return nil
	}
	pctx, pcancel := context.WithTimeout(context.WithoutCancel(ctx), importWriteTimeout)
	defer pcancel()
	if err := publish(pctx, batch); err != nil {
		e := errs.E(errs.Unavailable, errs.CodeUnavailable, "%s", importNotShownMessage)
		e.Err = fmt.Errorf("publish import batch %s: %w", batch, err)
		return e
	}
	return nil
}

// importNotShownMessage is what the school is told of a committed import
// whose publishing failed.
const importNotShownMessage = "The import is stored, but the database failed before it could be shown; it will show after the service next restarts."

// mapInsertManyErr maps an ordered insertMany's failure: a duplicate key is
// conflict, anything else as mapErr.
func mapInsertManyErr(err error, op string, conflict func() error) error {
	var bwe mongo.BulkWriteException
	if errors.As(err, &bwe) && bwe.WriteConcernError == nil {
		for _, we := range bwe.WriteErrors {
			if mongo.IsDuplicateKeyError(we) {
				return conflict()
			}
		}
	}
	return mapErr(err, op, nil, conflict)
}

// publishImport makes a committed batch's documents ordinary ones and
// forgets the batch. Idempotent.
func publishImport(ctx context.Context, db *mongo.Database, batch string) error {
	unset := bson.D{{Key: "$unset", Value: bson.D{{Key: "import_batch", Value: ""}}}}
	for _, col := range importedCollections {
		if _, err := db.Collection(col).UpdateMany(ctx, inBatch(batch), unset); err != nil {
			return mapErr(err, "publish the import", nil, nil)
		}
	}
	_, err := db.Collection(colStudentImports).DeleteMany(ctx, bson.D{{Key: "batch", Value: batch}})
	return mapErr(err, "publish the import", nil, nil)
}

// dropImport deletes an uncommitted batch's documents and forgets the
// batch. Idempotent.
func dropImport(ctx context.Context, db *mongo.Database, batch string) error {
	for _, col := range importedCollections {
		if _, err := db.Collection(col).DeleteMany(ctx, inBatch(batch)); err != nil {
			return mapErr(err, "drop the import", nil, nil)
		}
	}
	_, err := db.Collection(colStudentImports).DeleteMany(ctx, bson.D{{Key: "batch", Value: batch}})
	return mapErr(err, "drop the import", nil, nil)
}

// finishImports completes the batches a crash interrupted, those started
// before olderThan: committed ones are published, the others dropped. It
// reads student_imports by started_at (its index), a handful of documents.
func finishImports(ctx context.Context, db *mongo.Database, olderThan time.Time) error {
	filter := bson.D{{Key: "started_at", Value: bson.D{{Key: "$lt", Value: olderThan}}}}
	opts := options.Find().SetSort(bson.D{{Key: "started_at", Value: 1}})
	docs, err := findDocs[importDoc](ctx, db.Collection(colStudentImports), "find unfinished imports", filter, opts)
	if err != nil {
		return err
	}
	committed := map[string]bool{}
	var order []string
	for _, d := range docs {
		if _, seen := committed[d.Batch]; !seen {
			order = append(order, d.Batch)
			committed[d.Batch] = false
		}
		if d.Committed {
			committed[d.Batch] = true
		}
	}
	for _, batch := range order {
		finish := dropImport
		if committed[batch] {
			finish = publishImport
		}
		if err := finish(ctx, db, batch); err != nil {
			return err
		}
	}
	return nil
}
