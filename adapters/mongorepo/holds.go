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
	colHolds     = "holds"
	colHoldQueue = "hold_queue"
	colHoldTraps = "hold_traps"
	colHoldEnds  = "hold_ends"
)

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) { r.Holds = NewHolds(db) },
	collections: []collection{
		// Holds: see Holds for the keys.
		{colHolds, []mongo.IndexModel{
			{Keys: bson.D{{Key: "student_id", Value: 1}, {Key: "placed_at", Value: 1}, {Key: "_id", Value: 1}}},
		}},
		{colHoldQueue, []mongo.IndexModel{
			{Keys: bson.D{{Key: "student_id", Value: 1}, {Key: "book_id", Value: 1}}, Options: options.Index().SetUnique(true)},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "book_id", Value: 1}, {Key: "placed_at", Value: 1}, {Key: "_id", Value: 1}}},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "placed_at", Value: 1}, {Key: "_id", Value: 1}}},
		}},
		{colHoldTraps, []mongo.IndexModel{
			{Keys: bson.D{{Key: "copy_id", Value: 1}}, Options: options.Index().SetUnique(true)},
			{Keys: bson.D{{Key: "hold_id", Value: 1}}, Options: options.Index().SetUnique(true)},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "book_id", Value: 1}}},
			{Keys: bson.D{{Key: "expires_at", Value: 1}, {Key: "_id", Value: 1}}},
		}},
		{colHoldEnds, nil},
	},
	records: map[ports.RecordKind]records{
		ports.KindHolds:     plainRecords(colHolds, toHoldDoc, holdDoc.toHold),
		ports.KindHoldQueue: plainRecords(colHoldQueue, toHoldQueueDoc, holdQueueDoc.toEntry),
		ports.KindHoldTraps: plainRecords(colHoldTraps, toHoldTrapDoc, holdTrapDoc.toTrap),
		ports.KindHoldEnds:  plainRecords(colHoldEnds, toHoldEndDoc, holdEndDoc.toEnd),
	},
})

var _ ports.HoldRepository = (*Holds)(nil)

// Holds is the MongoDB ports.HoldRepository, in four collections whose
// every exactly-once rule is a unique key (FerretDB 1.24 applies a
// conditional update as an unguarded read-modify-write; its unique-key
// inserts have one winner):
//
//   - holds, keyed by the hold id: the records, written once;
//   - hold_queue, keyed by the hold id, unique on {student_id, book_id}:
//     the open holds, one per student and book;
//   - hold_traps, keyed by copy id + "#" + hold id, unique on copy_id and
//     on hold_id: the one insert that takes both is the trap. The _id
//     names both so Untrap deletes by _id alone: FerretDB 1.24 deletes by
//     reading the matching documents and then deleting their _ids, so a
//     filter on {copy_id, hold_id} could remove a newer trap of the copy;
//   - hold_ends, keyed by the hold id: the one outcome of each hold.
//
// Every method is one command, except QueuePage (a page and its count, and
// with a status the traps' hold ids first) and ReadyQueue (the traps' hold
// ids, then the page).
type Holds struct {
	holds *mongo.Collection
	queue *mongo.Collection
	traps *mongo.Collection
	ends  *mongo.Collection
}

// NewHolds returns the hold store of db.
func NewHolds(db *mongo.Database) *Holds {
	return &Holds{holds: db.Collection(colHolds), queue: db.Collection(colHoldQueue),
		traps: db.Collection(colHoldTraps), ends: db.Collection(colHoldEnds)}
}

type holdDoc struct {
	ID        string    `bson:"_id"`
	SchoolID  string    `bson:"school_id"`
	BookID    string    `bson:"book_id"`
	StudentID string    `bson:"student_id"`
	PlacedAt  time.Time `bson:"placed_at"`
}

func toHoldDoc(h library.Hold) holdDoc {
	return holdDoc{ID: h.ID, SchoolID: h.SchoolID, BookID: h.BookID, StudentID: h.StudentID, PlacedAt: h.PlacedAt.UTC()}
}

func (d holdDoc) toHold() library.Hold {
	return library.Hold{ID: d.ID, SchoolID: d.SchoolID, BookID: d.BookID, StudentID: d.StudentID, PlacedAt: d.PlacedAt.UTC()}
}

// holdQueueDoc is a queue entry: the fields of its hold, keyed the same.
type holdQueueDoc = holdDoc

func toHoldQueueDoc(e library.HoldQueueEntry) holdQueueDoc {
	return toHoldDoc(library.Hold{ID: e.HoldID, SchoolID: e.SchoolID, BookID: e.BookID, StudentID: e.StudentID, PlacedAt: e.PlacedAt})
}

func (d holdDoc) toEntry() library.HoldQueueEntry {
	return library.HoldQueueEntry{HoldID: d.ID, SchoolID: d.SchoolID, BookID: d.BookID, StudentID: d.StudentID, PlacedAt: d.PlacedAt.UTC()}
}

type holdTrapDoc struct {
	ID        string    `bson:"_id"` // trapID(copy, hold)
	CopyID    string    `bson:"copy_id"`
	CopyCode  string    `bson:"copy_code"`
	HoldID    string    `bson:"hold_id"`
	SchoolID  string    `bson:"school_id"`
	BookID    string    `bson:"book_id"`
	StudentID string    `bson:"student_id"`
	TrappedAt time.Time `bson:"trapped_at"`
	ExpiresAt time.Time `bson:"expires_at"`
}

func toHoldTrapDoc(t library.HoldTrap) holdTrapDoc {
	return holdTrapDoc{ID: trapID(t.CopyID, t.HoldID), CopyID: t.CopyID, CopyCode: t.CopyCode, HoldID: t.HoldID, SchoolID: t.SchoolID, BookID: t.BookID,
		StudentID: t.StudentID, TrappedAt: t.TrappedAt.UTC(), ExpiresAt: t.ExpiresAt.UTC()}
}

func (d holdTrapDoc) toTrap() library.HoldTrap {
	return library.HoldTrap{CopyID: d.CopyID, CopyCode: d.CopyCode, HoldID: d.HoldID, SchoolID: d.SchoolID, BookID: d.BookID, StudentID: d.StudentID,
		TrappedAt: d.TrappedAt.UTC(), ExpiresAt: d.ExpiresAt.UTC()}
}

type holdEndDoc struct {
	HoldID  string    `bson:"_id"`
	Outcome string    `bson:"outcome"`
	EndedAt time.Time `bson:"ended_at"`
}

func toHoldEndDoc(e library.HoldEnd) holdEndDoc {
	return holdEndDoc{HoldID: e.HoldID, Outcome: e.Outcome, EndedAt: e.EndedAt.UTC()}
}

func (d holdEndDoc) toEnd() library.HoldEnd {
	return library.HoldEnd{HoldID: d.HoldID, Outcome: d.Outcome, EndedAt: d.EndedAt.UTC()}
}

// trapID is the _id of the trap of copyID for holdID. Copy ids are UUIDs,
// without "#".
func trapID(copyID, holdID string) string { return copyID + "#" + holdID }

// queueOrder is the order of a queue: placing time, then hold id.
var queueOrder = bson.D{{Key: "placed_at", Value: 1}, {Key: "_id", Value: 1}}

// Insert implements ports.HoldRepository.
func (r *Holds) Insert(ctx context.Context, h library.Hold) error {
	return insertOne(ctx, r.holds, "store the hold", toHoldDoc(h), nil)
}

// ByIDs implements ports.HoldRepository with one find by _id.
func (r *Holds) ByIDs(ctx context.Context, ids []string) ([]library.Hold, error) {
	return findByKeys(ctx, r.holds, "read the holds", len(ids), bson.D{{Key: "_id", Value: in(ids)}}, holdDoc.toHold)
}

// OfStudent implements ports.HoldRepository: the {student_id, placed_at}
// index read backwards.
func (r *Holds) OfStudent(ctx context.Context, studentID string, limit int) ([]library.Hold, error) {
	opts := options.Find().SetSort(bson.D{{Key: "placed_at", Value: -1}, {Key: "_id", Value: -1}}).
		SetLimit(int64(limit)).SetBatchSize(oneBatch(limit))
	return findAll(ctx, r.holds, "list the student's holds", bson.D{{Key: "student_id", Value: studentID}}, opts, holdDoc.toHold)
}

// Delete implements ports.HoldRepository.
func (r *Holds) Delete(ctx context.Context, holdID string) error {
	_, err := r.holds.DeleteOne(ctx, byID(holdID))
	return mapErr(err, "delete the hold", nil, nil)
}

// AnonymizeStudent implements ports.HoldRepository with one updateMany on
// student_id. Only this method updates hold records, and it is idempotent,
// so FerretDB 1.24's unguarded read-modify-write cannot lose another
// update of them.
func (r *Holds) AnonymizeStudent(ctx context.Context, studentID string) error {
	update := bson.D{{Key: "$set", Value: bson.D{{Key: "student_id", Value: ""}}}}
	_, err := r.holds.UpdateMany(ctx, bson.D{{Key: "student_id", Value: studentID}}, update)
	return mapErr(err, "anonymize the student's holds", nil, nil)
}

// Enqueue implements ports.HoldRepository: an insert into the unique
// {student_id, book_id} index.
func (r *Holds) Enqueue(ctx context.Context, e library.HoldQueueEntry) error {
	return insertOne(ctx, r.queue, "queue the hold", toHoldQueueDoc(e), library.ErrHoldExists)
}

// Dequeue implements ports.HoldRepository by _id: a newer hold of the same
// student and book has another _id and stays.
func (r *Holds) Dequeue(ctx context.Context, holdID string) error {
	_, err := r.queue.DeleteOne(ctx, byID(holdID))
	return mapErr(err, "remove the hold from its queue", nil, nil)
}

// OpenHold implements ports.HoldRepository on the unique index.
func (r *Holds) OpenHold(ctx context.Context, studentID, bookID string) (library.HoldQueueEntry, error) {
	filter := bson.D{{Key: "student_id", Value: studentID}, {Key: "book_id", Value: bookID}}
	return findOne(ctx, r.queue, "read the open hold", filter, library.ErrHoldNotFound, holdQueueDoc.toEntry)
}

// Queue implements ports.HoldRepository on the {school_id, book_id,
// placed_at, _id} index.
func (r *Holds) Queue(ctx context.Context, schoolID, bookID string, after library.HoldQueueEntry, limit int) ([]library.HoldQueueEntry, error) {
	filter := afterEntry(bson.D{{Key: "school_id", Value: schoolID}, {Key: "book_id", Value: bookID}}, after)
	opts := options.Find().SetSort(queueOrder).SetLimit(int64(limit)).SetBatchSize(oneBatch(limit))
	return findAll(ctx, r.queue, "read the hold queue", filter, opts, holdQueueDoc.toEntry)
}

// afterEntry narrows filter to the queue entries after the entry after in
// queue order (none when after.HoldID is "").
func afterEntry(filter bson.D, after library.HoldQueueEntry) bson.D {
	if after.HoldID == "" {
		return filter
	}
	at := after.PlacedAt.UTC()
	return append(filter, bson.E{Key: "$or", Value: bson.A{
		bson.D{{Key: "placed_at", Value: bson.D{{Key: "$gt", Value: at}}}},
		bson.D{{Key: "placed_at", Value: at}, {Key: "_id", Value: bson.D{{Key: "$gt", Value: after.HoldID}}}},
	}})
}

// QueuePage implements ports.HoldRepository: one find of a page and one
// count on the {school_id, placed_at, _id} index, or the {school_id,
// book_id, placed_at, _id} one for a title. A status filter first reads
// the ids of the holds the school's (or the title's) traps name, on the
// traps' {school_id, book_id} index: a school's traps are its copies put
// aside, far fewer than its queue, and FerretDB 1.24 has no $lookup.
func (r *Holds) QueuePage(ctx context.Context, schoolID string, f ports.QueueFilter, offset, limit int) ([]library.HoldQueueEntry, int, error) {
	filter := bson.D{{Key: "school_id", Value: schoolID}}
	if f.BookID != "" {
		filter = append(filter, bson.E{Key: "book_id", Value: f.BookID})
	}
	if f.Status == library.HoldWaiting || f.Status == library.HoldReady {
		trapped, err := r.trappedHolds(ctx, filter)
		if err != nil {
			return nil, 0, err
		}
		op := "$in"
		if f.Status == library.HoldWaiting {
			op = "$nin"
		}
		filter = append(filter, bson.E{Key: "_id", Value: bson.D{{Key: op, Value: trapped}}})
	}
	opts := options.Find().SetSort(queueOrder).SetSkip(int64(max(offset, 0))).SetLimit(int64(limit)).SetBatchSize(oneBatch(limit))
	entries, total, err := findPage(ctx, r.queue, "read a page of the holds", "count the holds", filter, opts, holdQueueDoc.toEntry)
	return entries, int(total), err
}

// ReadyQueue implements ports.HoldRepository: the ids of the holds the
// school's traps name, then one find of the next entries among them on the
// {school_id, placed_at, _id} index.
func (r *Holds) ReadyQueue(ctx context.Context, schoolID string, after library.HoldQueueEntry, limit int) ([]library.HoldQueueEntry, error) {
	filter := bson.D{{Key: "school_id", Value: schoolID}}
	trapped, err := r.trappedHolds(ctx, filter)
	if err != nil || len(trapped) == 0 {
		return []library.HoldQueueEntry{}, err
	}
	filter = afterEntry(append(filter, bson.E{Key: "_id", Value: in(trapped)}), after)
	opts := options.Find().SetSort(queueOrder).SetLimit(int64(limit)).SetBatchSize(oneBatch(limit))
	return findAll(ctx, r.queue, "read the ready holds", filter, opts, holdQueueDoc.toEntry)
}

// trappedHolds returns the ids of the holds named by the traps that match
// filter ({school_id} or {school_id, book_id}).
func (r *Holds) trappedHolds(ctx context.Context, filter bson.D) ([]string, error) {
	opts := options.Find().SetProjection(bson.D{{Key: "hold_id", Value: 1}}).SetBatchSize(wholeBatch)
	return findAll(ctx, r.traps, "read the traps", filter, opts, func(d holdTrapDoc) string { return d.HoldID })
}

// Entries implements ports.HoldRepository by _id.
func (r *Holds) Entries(ctx context.Context, holdIDs []string) ([]library.HoldQueueEntry, error) {
	return findByKeys(ctx, r.queue, "read the open holds", len(holdIDs), bson.D{{Key: "_id", Value: in(holdIDs)}}, holdQueueDoc.toEntry)
}

// QueueCounts implements ports.HoldRepository with one aggregation whose
// $match is a range of the {school_id, book_id, ...} index.
func (r *Holds) QueueCounts(ctx context.Context, schoolID string, bookIDs []string) (map[string]int, error) {
	if len(bookIDs) == 0 {
		return map[string]int{}, nil
	}
	match := bson.D{{Key: "school_id", Value: schoolID}, {Key: "book_id", Value: in(bookIDs)}}
	return countPerBook(ctx, r.queue, "count the holds", match, wholeBatch)
}

// Trap implements ports.HoldRepository: one insert checked by the unique
// copy_id and hold_id indexes at once.
func (r *Holds) Trap(ctx context.Context, t library.HoldTrap) error {
	return insertOne(ctx, r.traps, "put the copy aside", toHoldTrapDoc(t), library.ErrHoldTrapped)
}

// TrapOfCopy implements ports.HoldRepository on the unique copy_id index.
func (r *Holds) TrapOfCopy(ctx context.Context, copyID string) (library.HoldTrap, error) {
	return findOne(ctx, r.traps, "read the trap", bson.D{{Key: "copy_id", Value: copyID}}, library.ErrTrapNotFound, holdTrapDoc.toTrap)
}

// TrapsOfHolds implements ports.HoldRepository on the unique hold_id index.
func (r *Holds) TrapsOfHolds(ctx context.Context, holdIDs []string) ([]library.HoldTrap, error) {
	return findByKeys(ctx, r.traps, "read the traps", len(holdIDs), bson.D{{Key: "hold_id", Value: in(holdIDs)}}, holdTrapDoc.toTrap)
}

// TrapsOfBooks implements ports.HoldRepository on the {school_id, book_id}
// index.
func (r *Holds) TrapsOfBooks(ctx context.Context, schoolID string, bookIDs []string) ([]library.HoldTrap, error) {
	if len(bookIDs) == 0 {
		return []library.HoldTrap{}, nil
	}
	filter := bson.D{{Key: "school_id", Value: schoolID}, {Key: "book_id", Value: in(bookIDs)}}
	return findAll(ctx, r.traps, "read the traps", filter, options.Find().SetBatchSize(wholeBatch), holdTrapDoc.toTrap)
}

// ExpiredTraps implements ports.HoldRepository on the expires_at index.
func (r *Holds) ExpiredTraps(ctx context.Context, now time.Time, limit int) ([]library.HoldTrap, error) {
	filter := bson.D{{Key: "expires_at", Value: bson.D{{Key: "$lte", Value: now.UTC()}}}}
	opts := options.Find().SetSort(bson.D{{Key: "expires_at", Value: 1}, {Key: "_id", Value: 1}}).
		SetLimit(int64(limit)).SetBatchSize(oneBatch(limit))
	return findAll(ctx, r.traps, "read the expired traps", filter, opts, holdTrapDoc.toTrap)
}

// ExpiredTrapsOf implements ports.HoldRepository on the {school_id,
// book_id} index.
func (r *Holds) ExpiredTrapsOf(ctx context.Context, schoolID string, now time.Time, limit int) ([]library.HoldTrap, error) {
	filter := bson.D{{Key: "school_id", Value: schoolID}, {Key: "expires_at", Value: bson.D{{Key: "$lte", Value: now.UTC()}}}}
	opts := options.Find().SetLimit(int64(limit)).SetBatchSize(oneBatch(limit))
	return findAll(ctx, r.traps, "read the school's expired traps", filter, opts, holdTrapDoc.toTrap)
}

// Untrap implements ports.HoldRepository: one delete by the _id that names
// the copy and the hold.
func (r *Holds) Untrap(ctx context.Context, copyID, holdID string) error {
	_, err := r.traps.DeleteOne(ctx, byID(trapID(copyID, holdID)))
	return mapErr(err, "remove the trap", nil, nil)
}

// End implements ports.HoldRepository: an insert keyed by the hold.
func (r *Holds) End(ctx context.Context, e library.HoldEnd) error {
	return insertOne(ctx, r.ends, "record the hold's end", toHoldEndDoc(e), library.ErrHoldEnded)
}

// Ends implements ports.HoldRepository by _id.
func (r *Holds) Ends(ctx context.Context, holdIDs []string) ([]library.HoldEnd, error) {
	return findByKeys(ctx, r.ends, "read the holds' ends", len(holdIDs), bson.D{{Key: "_id", Value: in(holdIDs)}}, holdEndDoc.toEnd)
}
