package mongorepo

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ ports.HoldingsImportRepository = (*Holdings)(nil)

// BooksByISBNs implements ports.HoldingsImportRepository: one find on the
// unique {school_id, isbn_key} index (a book's isbn_key is its ISBN when
// it has one).
func (r *Holdings) BooksByISBNs(ctx context.Context, schoolID string, isbns []string) ([]library.Book, error) {
	if len(isbns) == 0 {
		return nil, nil
	}
	filter := visible(bson.D{{Key: "school_id", Value: schoolID}, {Key: "isbn_key", Value: in(isbns)}})
	return findAll(ctx, r.books, "read the books", filter, options.Find().SetBatchSize(wholeBatch), libraryBookDoc.toBook)
}

// BooksByMatchKeys implements ports.HoldingsImportRepository: one find on
// the {school_id, match_key} index.
func (r *Holdings) BooksByMatchKeys(ctx context.Context, schoolID string, keys []string) ([]library.Book, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	filter := visible(bson.D{{Key: "school_id", Value: schoolID}, {Key: "match_key", Value: in(keys)}})
	return findAll(ctx, r.books, "read the books", filter, options.Find().SetBatchSize(wholeBatch), libraryBookDoc.toBook)
}

// CopiesByCodes implements ports.HoldingsImportRepository: one find on
// the unique {school_id, code} index.
func (r *Holdings) CopiesByCodes(ctx context.Context, schoolID string, codes []string) ([]library.Copy, error) {
	if len(codes) == 0 {
		return nil, nil
	}
	filter := visible(bson.D{{Key: "school_id", Value: schoolID}, {Key: "code", Value: in(codes)}})
	return findAll(ctx, r.copies, "read the copies", filter, options.Find().SetBatchSize(wholeBatch), copyDoc.toCopy)
}

// CopiesOfBooks implements ports.HoldingsImportRepository: one find on the
// {school_id, book_id, code} index.
func (r *Holdings) CopiesOfBooks(ctx context.Context, schoolID string, bookIDs []string) ([]library.Copy, error) {
	if len(bookIDs) == 0 {
		return nil, nil
	}
	filter := visible(bson.D{{Key: "school_id", Value: schoolID}, {Key: "book_id", Value: in(bookIDs)}})
	opts := options.Find().SetSort(bson.D{{Key: "book_id", Value: 1}, {Key: "code", Value: 1}, {Key: "_id", Value: 1}}).SetBatchSize(wholeBatch)
	return findAll(ctx, r.copies, "list the copies", filter, opts, copyDoc.toCopy)
}

// ImportHoldings implements ports.HoldingsImportRepository as a batch of
// imports.go: the start document, one ordered insertMany of the books and
// one of the copies (all carrying import_batch, so no read sees them), the
// commit insert, then the publication. A duplicate key (a taken ISBN or
// code), an error or the request ending before the commit drops the
// batch; a crash leaves it to finishImports.
func (r *Holdings) ImportHoldings(ctx context.Context, books []library.Book, copies []library.Copy) error {
	if len(books) == 0 && len(copies) == 0 {
		return nil
	}
	write := func(wctx context.Context, batch string) error {
		bookDocs := make([]any, len(books))
		for i, b := range books {
			d := toLibraryBookDoc(b)
			d.ImportBatch = batch
			bookDocs[i] = d
		}
		if err := insertChunks(ctx, wctx, r.books, bookDocs, "import the books", library.ErrISBNExists); err != nil {
			return err
		}
		copyDocs := make([]any, len(copies))
		for i, c := range copies {
			d := toCopyDoc(c)
			d.ImportBatch = batch
			copyDocs[i] = d
		}
		return insertChunks(ctx, wctx, r.copies, copyDocs, "import the copies", library.ErrCopyCodeExists)
	}
	// Publishing is one updateMany per collection, which FerretDB 1.24 runs
	// a document at a time (about 4 s per 1,000 here), so it has a deadline
	// of its own, long enough for the largest file; a start after a crash
	// finishes it (finishImports).
	publish := func(_ context.Context, batch string) error {
		pctx, pcancel := context.WithTimeout(context.WithoutCancel(ctx), publishTimeout(len(books)+len(copies)))
		defer pcancel()
		return publishImport(pctx, r.books.Database(), batch)
	}
	return stageImport(ctx, r.imports, write, publish, r.abandon)
}

// publishTimeout bounds the publication of a committed batch of n
// documents: holdingsCleanupTimeout, or more for a large batch (a
// background import job of 20,000 records is 40,000 documents, which
// FerretDB 1.24 publishes one at a time), at 20 ms a document.
func publishTimeout(n int) time.Duration {
	return max(holdingsCleanupTimeout, time.Duration(n)*20*time.Millisecond)
}

// holdingsCleanupTimeout bounds the publication or the deletion of a
// holdings batch: up to tens of thousands of documents, which FerretDB
// updates and deletes one by one.
const holdingsCleanupTimeout = 5 * time.Minute

// abandon returns cause at once and deletes what the batch stored in the
// background: the batch is invisible already, and a large one takes longer
// to delete than a client waits. If the process ends first, the next start
// drops the batch (finishImports).
func (r *Holdings) abandon(ctx context.Context, batch string, cause error) error {
	go func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), holdingsCleanupTimeout)
		defer cancel()
		_ = dropImport(cctx, r.books.Database(), batch)
	}()
	return cause
}

// importChunk is how many documents one insertMany of an import writes:
// the request's context is checked between chunks, so an import that
// cannot finish before the request's deadline stops (and is dropped)
// soon after it instead of writing to the end.
const importChunk = 1000

// insertChunks inserts docs in order, importChunk at a time, on wctx (the
// import's own context), checking ctx (the request's) before each chunk.
// A duplicate key is conflict.
func insertChunks(ctx, wctx context.Context, c *mongo.Collection, docs []any, op string, conflict func() error) error {
	for start := 0; start < len(docs); start += importChunk {
		if err := ctx.Err(); err != nil {
			return mapErr(err, op, nil, nil)
		}
		if _, err := c.InsertMany(wctx, docs[start:min(start+importChunk, len(docs))]); err != nil {
			return mapInsertManyErr(err, op, conflict)
		}
	}
	return mapErr(ctx.Err(), op, nil, nil)
}
