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

const (
	colStocktakes     = "stocktakes"
	colStocktakeScans = "stocktake_scans"
)

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) { r.Stocktakes = NewStocktakes(db) },
	collections: []collection{
		// A school's stocktakes, newest first; a stocktake's scans by copy
		// (Stocktakes). The report walks library_books by
		// {school_id, call_number, _id}.
		{colStocktakes, []mongo.IndexModel{
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "opened_at", Value: 1}, {Key: "_id", Value: 1}}},
		}},
		{colStocktakeScans, []mongo.IndexModel{
			{Keys: bson.D{{Key: "stocktake_id", Value: 1}, {Key: "copy_id", Value: 1}}, Options: options.Index().SetUnique(true)},
		}},
	},
	records: map[ports.RecordKind]records{
		ports.KindStocktakes:     plainRecords(colStocktakes, toStocktakeDoc, stocktakeDoc.toStocktake),
		ports.KindStocktakeScans: plainRecords(colStocktakeScans, toScanDoc, scanDoc.toScan),
	},
})

var _ ports.StocktakeRepository = (*Stocktakes)(nil)

// Stocktakes is the MongoDB ports.StocktakeRepository: collection
// stocktakes, keyed by id and listed by {school_id, opened_at, _id}, and
// stocktake_scans, keyed by stocktake and copy (scanID), so one insert
// wins of racing scans of a copy: a unique-key insert, the one write
// FerretDB 1.24 applies atomically. Closing is a plain update; two racing
// closes both close, the later time standing. The report's walk reads
// library_books by {school_id, call_number, _id} and copies by
// {school_id, book_id, code}.
type Stocktakes struct {
	stocktakes *mongo.Collection
	scans      *mongo.Collection
	books      *mongo.Collection
	copies     *mongo.Collection
}

// NewStocktakes returns the stocktake store of db. It panics on nil, a
// wiring bug.
func NewStocktakes(db *mongo.Database) *Stocktakes {
	mustDB(db, "NewStocktakes")
	return &Stocktakes{stocktakes: db.Collection(colStocktakes), scans: db.Collection(colStocktakeScans),
		books: db.Collection(colLibraryBooks), copies: db.Collection(colCopies)}
}

type stocktakeDoc struct {
	ID       string     `bson:"_id"`
	SchoolID string     `bson:"school_id"`
	From     string     `bson:"from_call"`
	To       string     `bson:"to_call"`
	OpenedBy string     `bson:"opened_by"`
	OpenedAt time.Time  `bson:"opened_at"`
	ClosedAt *time.Time `bson:"closed_at,omitempty"`
}

type scanDoc struct {
	ID          string    `bson:"_id"` // scanID
	StocktakeID string    `bson:"stocktake_id"`
	CopyID      string    `bson:"copy_id"`
	SchoolID    string    `bson:"school_id"`
	BookID      string    `bson:"book_id"`
	Code        string    `bson:"code"`
	By          string    `bson:"scanned_by"`
	ScannedAt   time.Time `bson:"scanned_at"`
}

// scanID keys a copy's scan in a stocktake; both are UUIDs, so the
// separator cannot occur in either.
func scanID(stocktakeID, copyID string) string { return stocktakeID + "/" + copyID }

func toStocktakeDoc(st library.Stocktake) stocktakeDoc {
	d := stocktakeDoc{ID: st.ID, SchoolID: st.SchoolID, From: st.From, To: st.To, OpenedBy: st.OpenedBy, OpenedAt: st.OpenedAt.UTC()}
	if st.Closed() {
		at := st.ClosedAt.UTC()
		d.ClosedAt = &at
	}
	return d
}

func (d stocktakeDoc) toStocktake() library.Stocktake {
	st := library.Stocktake{ID: d.ID, SchoolID: d.SchoolID, From: d.From, To: d.To, OpenedBy: d.OpenedBy, OpenedAt: d.OpenedAt.UTC()}
	if d.ClosedAt != nil {
		st.ClosedAt = d.ClosedAt.UTC()
	}
	return st
}

func toScanDoc(s library.StocktakeScan) scanDoc {
	return scanDoc{ID: scanID(s.StocktakeID, s.CopyID), StocktakeID: s.StocktakeID, CopyID: s.CopyID, SchoolID: s.SchoolID,
		BookID: s.BookID, Code: s.Code, By: s.By, ScannedAt: s.ScannedAt.UTC()}
}

func (d scanDoc) toScan() library.StocktakeScan {
	return library.StocktakeScan{StocktakeID: d.StocktakeID, CopyID: d.CopyID, SchoolID: d.SchoolID, BookID: d.BookID,
		Code: d.Code, By: d.By, ScannedAt: d.ScannedAt.UTC()}
}

// Create implements ports.StocktakeRepository with one insert.
func (r *Stocktakes) Create(ctx context.Context, st library.Stocktake) error {
	return insertOne(ctx, r.stocktakes, "store the stocktake", toStocktakeDoc(st), nil)
}

// Get implements ports.StocktakeRepository with one find by _id; another
// school's stocktake is not found.
func (r *Stocktakes) Get(ctx context.Context, schoolID, id string) (library.Stocktake, error) {
	st, err := findOne(ctx, r.stocktakes, "read the stocktake", byID(id), library.ErrStocktakeNotFound, stocktakeDoc.toStocktake)
	if err == nil && st.SchoolID != schoolID {
		return library.Stocktake{}, library.ErrStocktakeNotFound()
	}
	return st, err
}

// OfSchool implements ports.StocktakeRepository with one find on the
// {school_id, opened_at, _id} index.
func (r *Stocktakes) OfSchool(ctx context.Context, schoolID string, limit int) ([]library.Stocktake, error) {
	opts := options.Find().SetSort(bson.D{{Key: "opened_at", Value: -1}, {Key: "_id", Value: -1}}).
		SetLimit(int64(limit)).SetBatchSize(oneBatch(limit))
	return findAll(ctx, r.stocktakes, "list the stocktakes", bson.D{{Key: "school_id", Value: schoolID}}, opts, stocktakeDoc.toStocktake)
}

// Close implements ports.StocktakeRepository with one update by _id of a
// stocktake not closed, and a read when it matched none.
func (r *Stocktakes) Close(ctx context.Context, schoolID, id string, at time.Time) error {
	filter := bson.D{{Key: "_id", Value: id}, {Key: "school_id", Value: schoolID}, {Key: "closed_at", Value: nil}}
	res, err := r.stocktakes.UpdateOne(ctx, filter, bson.D{{Key: "$set", Value: bson.D{{Key: "closed_at", Value: at.UTC()}}}})
	if err != nil {
		return mapErr(err, "close the stocktake", nil, nil)
	}
	if res.MatchedCount == 0 {
		_, err := r.Get(ctx, schoolID, id)
		return err
	}
	return nil
}

// AddScan implements ports.StocktakeRepository: one insert keyed by the
// stocktake and the copy.
func (r *Stocktakes) AddScan(ctx context.Context, s library.StocktakeScan) error {
	return insertOne(ctx, r.scans, "store the scan", toScanDoc(s), library.ErrScanExists)
}

// Scan implements ports.StocktakeRepository with one find by _id.
func (r *Stocktakes) Scan(ctx context.Context, stocktakeID, copyID string) (library.StocktakeScan, error) {
	return findOne(ctx, r.scans, "read the scan", byID(scanID(stocktakeID, copyID)), library.ErrScanNotFound, scanDoc.toScan)
}

// CountScans implements ports.StocktakeRepository with one count on the
// {stocktake_id, copy_id} index.
func (r *Stocktakes) CountScans(ctx context.Context, stocktakeID string) (int, error) {
	n, err := r.scans.CountDocuments(ctx, bson.D{{Key: "stocktake_id", Value: stocktakeID}})
	return int(n), mapErr(err, "count the scans", nil, nil)
}

// ScansPage implements ports.StocktakeRepository with one find on the
// {stocktake_id, copy_id} index.
func (r *Stocktakes) ScansPage(ctx context.Context, stocktakeID, afterCopyID string, limit int) ([]library.StocktakeScan, error) {
	filter := bson.D{{Key: "stocktake_id", Value: stocktakeID}, {Key: "copy_id", Value: bson.D{{Key: "$gt", Value: afterCopyID}}}}
	opts := options.Find().SetSort(bson.D{{Key: "copy_id", Value: 1}}).SetLimit(int64(limit)).SetBatchSize(oneBatch(limit))
	return findAll(ctx, r.scans, "list the scans", filter, opts, scanDoc.toScan)
}

// Scanned implements ports.StocktakeRepository with one find by _id.
func (r *Stocktakes) Scanned(ctx context.Context, stocktakeID string, copyIDs []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(copyIDs) == 0 {
		return out, nil
	}
	ids := make([]string, 0, len(copyIDs))
	for _, c := range copyIDs {
		ids = append(ids, scanID(stocktakeID, c))
	}
	scans, err := findAll(ctx, r.scans, "read the scans", bson.D{{Key: "_id", Value: in(ids)}},
		options.Find().SetBatchSize(oneBatch(len(ids))), scanDoc.toScan)
	for _, s := range scans {
		out[s.CopyID] = true
	}
	return out, err
}

// BooksByCallNumber implements ports.StocktakeRepository with one find in
// the order of the {school_id, call_number, _id} index, from the last book
// of the page before. A book without a call_number field sorts first (as
// null), as the empty call number does.
func (r *Stocktakes) BooksByCallNumber(ctx context.Context, schoolID string, p ports.CallNumberPage, limit int) ([]library.Book, error) {
	afterCall, afterID := p.AfterCallNumber, p.AfterID
	if afterID == "" {
		afterCall = p.From
	}
	same := bson.A{afterCall}
	if afterCall == "" {
		same = append(same, nil)
	}
	filter := bson.D{{Key: "school_id", Value: schoolID}, {Key: "$or", Value: bson.A{
		bson.D{{Key: "call_number", Value: bson.D{{Key: "$gt", Value: afterCall}}}},
		bson.D{{Key: "call_number", Value: bson.D{{Key: "$in", Value: same}}}, {Key: "_id", Value: bson.D{{Key: "$gt", Value: afterID}}}},
	}}}
	if p.Before != "" {
		filter = append(filter, bson.E{Key: "$and", Value: bson.A{bson.D{{Key: "call_number", Value: bson.D{{Key: "$lt", Value: p.Before}}}}}})
	}
	opts := options.Find().SetSort(bson.D{{Key: "call_number", Value: 1}, {Key: "_id", Value: 1}}).
		SetLimit(int64(limit)).SetBatchSize(oneBatch(limit))
	return findAll(ctx, r.books, "read the books", filter, opts, libraryBookDoc.toBook)
}

// CopiesOfBooks implements ports.StocktakeRepository with one find on the
// {school_id, book_id, code} index.
func (r *Stocktakes) CopiesOfBooks(ctx context.Context, schoolID string, bookIDs []string) ([]library.Copy, error) {
	if len(bookIDs) == 0 {
		return []library.Copy{}, nil
	}
	filter := bson.D{{Key: "school_id", Value: schoolID}, {Key: "book_id", Value: in(bookIDs)}}
	return findAll(ctx, r.copies, "read the copies", filter, options.Find().SetBatchSize(wholeBatch), copyDoc.toCopy)
}

// MarkShelvedCopies implements ports.StocktakeRepository with one
// updateMany by _id whose filter keeps the copies without a condition. (A
// bulk write of one update per copy is no faster on MongoDB and stalls
// FerretDB 1.24.) FerretDB 1.24 applies it as a read and a write of each
// document, not atomically: the caller's claims keep every other writer of
// a copy's condition away, so the count is of the copies it set.
func (r *Stocktakes) MarkShelvedCopies(ctx context.Context, schoolID string, copyIDs []string, c library.CopyCondition) (int, error) {
	if len(copyIDs) == 0 {
		return 0, nil
	}
	filter := bson.D{{Key: "_id", Value: in(copyIDs)}, {Key: "school_id", Value: schoolID}, {Key: "condition", Value: bson.D{{Key: "$exists", Value: false}}}}
	res, err := r.copies.UpdateMany(ctx, filter, copyConditionUpdate(c))
	if err != nil {
		return 0, mapErr(err, "mark the copies", nil, nil)
	}
	return int(res.ModifiedCount), nil
}
