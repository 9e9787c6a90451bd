package mongorepo

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) { r.Reports = NewReports(db) },
})

var _ ports.ReportRepository = (*Reports)(nil)

// Reports is the MongoDB ports.ReportRepository. Loans are counted on the
// {school_id, loaned_at} index (a count per month, a $match then $group
// for the books); the collection from the school's books and copies on
// their school-first indexes; never-borrowed books by walking the school's
// books in title order and asking the {book_id} index of the loans which
// of each batch were lent; hold queues from the school's traps and queue
// entries on their school-first indexes. Only the stages FerretDB 1.24
// runs ($match, $group with $sum) are used.
type Reports struct {
	books, copies, loans *mongo.Collection
	queue, traps         *mongo.Collection
}

// NewReports returns the report store of db. It panics on nil, a wiring
// bug.
func NewReports(db *mongo.Database) *Reports {
	mustDB(db, "NewReports")
	return &Reports{books: db.Collection(colLibraryBooks), copies: db.Collection(colCopies), loans: db.Collection(colLoans),
		queue: db.Collection(colHoldQueue), traps: db.Collection(colHoldTraps)}
}

func loanedBetween(schoolID string, from, to time.Time) bson.D {
	return bson.D{{Key: "school_id", Value: schoolID},
		{Key: "loaned_at", Value: bson.D{{Key: "$gte", Value: from.UTC()}, {Key: "$lt", Value: to.UTC()}}}}
}

// LoanCounts implements ports.ReportRepository: one count per bucket.
func (r *Reports) LoanCounts(ctx context.Context, schoolID string, bounds []time.Time) ([]int, error) {
	if len(bounds) < 2 {
		return []int{}, nil
	}
	out := make([]int, len(bounds)-1)
	for i := range out {
		n, err := r.loans.CountDocuments(ctx, loanedBetween(schoolID, bounds[i], bounds[i+1]))
		if err != nil {
			return nil, mapErr(err, "count the loans", nil, nil)
		}
		out[i] = int(n)
	}
	return out, nil
}

// groupCount is a row of a $group by a field with {$sum: 1}.
type groupCount struct {
	Key string `bson:"_id"`
	N   int    `bson:"n"`
}

// countBy groups the documents of c that match by field, counting them,
// batch rows per reply.
func countBy(ctx context.Context, c *mongo.Collection, op string, match bson.D, field string, batch int32) ([]groupCount, error) {
	pipeline := mongo.Pipeline{
		{{Key: "$match", Value: match}},
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$" + field}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
	}
	cur, err := c.Aggregate(ctx, pipeline, options.Aggregate().SetBatchSize(batch))
	if err != nil {
		return nil, mapErr(err, op, nil, nil)
	}
	var rows []groupCount
	if err := cur.All(ctx, &rows); err != nil {
		return nil, mapErr(err, op, nil, nil)
	}
	return rows, nil
}

// countPerBook counts the documents of c that match per book_id, batch
// rows per reply.
func countPerBook(ctx context.Context, c *mongo.Collection, op string, match bson.D, batch int32) (map[string]int, error) {
	rows, err := countBy(ctx, c, op, match, "book_id", batch)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int, len(rows))
	for _, row := range rows {
		out[row.Key] = row.N
	}
	return out, nil
}

// TopBooks implements ports.ReportRepository: the loans of the range
// counted per book with one aggregate, then the titles of the books that
// can make the cut (those with at least the limit-th count) read by _id to
// break ties.
func (r *Reports) TopBooks(ctx context.Context, schoolID string, from, to time.Time, limit int) ([]library.BookLoans, error) {
	rows, err := countBy(ctx, r.loans, "count the loans per book", loanedBetween(schoolID, from, to), "book_id", wholeBatch)
	if err != nil {
		return nil, err
	}
	limit = max(limit, 1)
	slices.SortFunc(rows, func(a, b groupCount) int { return b.N - a.N })
	cut := min(limit, len(rows))
	for cut < len(rows) && rows[cut].N == rows[cut-1].N {
		cut++
	}
	rows = rows[:cut]
	ids := make([]string, len(rows))
	for i, row := range rows {
		ids[i] = row.Key
	}
	titles := make(map[string]string, len(ids))
	if len(ids) > 0 {
		opts := options.Find().SetProjection(bson.D{{Key: "title", Value: 1}}).SetBatchSize(oneBatch(len(ids)))
		docs, err := findAll(ctx, r.books, "read the books' titles", bson.D{{Key: "_id", Value: in(ids)}, {Key: "school_id", Value: schoolID}}, opts,
			func(d struct {
				ID    string `bson:"_id"`
				Title string `bson:"title"`
			}) [2]string {
				return [2]string{d.ID, d.Title}
			})
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			titles[d[0]] = d[1]
		}
	}
	slices.SortFunc(rows, func(a, b groupCount) int {
		if a.N != b.N {
			return b.N - a.N
		}
		return cmp.Or(strings.Compare(titles[a.Key], titles[b.Key]), strings.Compare(a.Key, b.Key))
	})
	out := make([]library.BookLoans, 0, min(limit, len(rows)))
	for _, row := range rows[:min(limit, len(rows))] {
		out = append(out, library.BookLoans{BookID: row.Key, Loans: row.N})
	}
	return out, nil
}

// reportBookDoc is what the collection reports read of a book.
type reportBookDoc struct {
	ID            string `bson:"_id"`
	Genre         string `bson:"genre"`
	ReadingLevel  string `bson:"reading_level"`
	PublishedYear int    `bson:"published_year"`
}

func (d reportBookDoc) value(field string) string {
	switch field {
	case library.CollectionGenre:
		return d.Genre
	case library.CollectionReadingLevel:
		return d.ReadingLevel
	}
	if d.PublishedYear == 0 {
		return ""
	}
	return strconv.Itoa(d.PublishedYear)
}

// Collection implements ports.ReportRepository: the school's copies
// counted per book (one aggregate), then the school's books read for the
// field alone.
func (r *Reports) Collection(ctx context.Context, schoolID, field string) ([]library.CollectionCount, error) {
	switch field {
	case library.CollectionGenre, library.CollectionReadingLevel, library.CollectionPublishedYear:
	default:
		return nil, fmt.Errorf("mongorepo: no collection report by %q", field)
	}
	copies, err := countBy(ctx, r.copies, "count the copies", bson.D{{Key: "school_id", Value: schoolID}}, "book_id", wholeBatch)
	if err != nil {
		return nil, err
	}
	perBook := make(map[string]int, len(copies))
	for _, c := range copies {
		perBook[c.Key] = c.N
	}
	opts := options.Find().SetProjection(bson.D{{Key: "genre", Value: 1}, {Key: "reading_level", Value: 1}, {Key: "published_year", Value: 1}}).
		SetBatchSize(wholeBatch)
	books, err := findAll(ctx, r.books, "read the collection", bson.D{{Key: "school_id", Value: schoolID}}, opts,
		func(d reportBookDoc) reportBookDoc { return d })
	if err != nil {
		return nil, err
	}
	byValue := map[string]*library.CollectionCount{}
	var order []string
	for _, b := range books {
		v := b.value(field)
		c := byValue[v]
		if c == nil {
			c = &library.CollectionCount{Value: v}
			byValue[v] = c
			order = append(order, v)
		}
		c.Titles++
		c.Copies += perBook[b.ID]
	}
	out := make([]library.CollectionCount, 0, len(order))
	for _, v := range order {
		out = append(out, *byValue[v])
	}
	return out, nil
}

// neverBorrowedBatch is how many books of the walk are checked against the
// loans at once.
const neverBorrowedBatch = 500

// NeverBorrowed implements ports.ReportRepository: the school's books in
// title order, each batch's lent books found with one aggregate on the
// loans' {book_id} index; the walk goes to the end for the total.
func (r *Reports) NeverBorrowed(ctx context.Context, schoolID string, offset, limit int) ([]library.Book, int, error) {
	const op = "list the never-borrowed books"
	opts := options.Find().SetSort(bson.D{{Key: "title", Value: 1}, {Key: "_id", Value: 1}}).SetBatchSize(neverBorrowedBatch)
	cur, err := r.books.Find(ctx, bson.D{{Key: "school_id", Value: schoolID}}, opts)
	if err != nil {
		return nil, 0, mapErr(err, op, nil, nil)
	}
	defer cur.Close(ctx)
	page := []library.Book{}
	total := 0
	batch := make([]library.Book, 0, neverBorrowedBatch)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		ids := make([]string, len(batch))
		for i, b := range batch {
			ids[i] = b.ID
		}
		lent, err := countBy(ctx, r.loans, op, bson.D{{Key: "book_id", Value: in(ids)}}, "book_id", wholeBatch)
		if err != nil {
			return err
		}
		borrowed := make(map[string]bool, len(lent))
		for _, l := range lent {
			borrowed[l.Key] = true
		}
		for _, b := range batch {
			if borrowed[b.ID] {
				continue
			}
			if total >= offset && len(page) < limit {
				page = append(page, b)
			}
			total++
		}
		batch = batch[:0]
		return nil
	}
	for cur.Next(ctx) {
		var d libraryBookDoc
		if err := cur.Decode(&d); err != nil {
			return nil, 0, mapErr(err, op, nil, nil)
		}
		batch = append(batch, d.toBook())
		if len(batch) == neverBorrowedBatch {
			if err := flush(); err != nil {
				return nil, 0, err
			}
		}
	}
	if err := cur.Err(); err != nil {
		return nil, 0, mapErr(err, op, nil, nil)
	}
	if err := flush(); err != nil {
		return nil, 0, err
	}
	return page, total, nil
}

// HoldQueues implements ports.ReportRepository: the ids of the holds the
// school's traps name (its copies put aside, few; FerretDB 1.24 has no
// $lookup), the school's other queue entries counted per book ($match on
// the {school_id, book_id, ...} index's prefix, $group), then those
// books' copies without a condition counted the same way.
func (r *Reports) HoldQueues(ctx context.Context, schoolID string) ([]library.HoldQueue, error) {
	school := bson.D{{Key: "school_id", Value: schoolID}}
	opts := options.Find().SetProjection(bson.D{{Key: "hold_id", Value: 1}}).SetBatchSize(wholeBatch)
	trapped, err := findAll(ctx, r.traps, "read the traps", school, opts, func(d holdTrapDoc) string { return d.HoldID })
	if err != nil {
		return nil, err
	}
	match := school
	if len(trapped) > 0 {
		match = append(match, bson.E{Key: "_id", Value: bson.D{{Key: "$nin", Value: trapped}}})
	}
	waiting, err := countBy(ctx, r.queue, "count the waiting holds", match, "book_id", wholeBatch)
	if err != nil || len(waiting) == 0 {
		return []library.HoldQueue{}, err
	}
	ids := make([]string, len(waiting))
	for i, w := range waiting {
		ids[i] = w.Key
	}
	copies, err := countPerBook(ctx, r.copies, "count the lendable copies", visible(bson.D{{Key: "school_id", Value: schoolID},
		{Key: "book_id", Value: in(ids)}, {Key: "condition", Value: bson.D{{Key: "$exists", Value: false}}}}), wholeBatch)
	if err != nil {
		return nil, err
	}
	out := make([]library.HoldQueue, len(waiting))
	for i, w := range waiting {
		out[i] = library.HoldQueue{BookID: w.Key, Waiting: w.N, Copies: copies[w.Key]}
	}
	return out, nil
}
