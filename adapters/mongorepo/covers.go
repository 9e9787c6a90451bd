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

const colCovers = "covers"

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) { r.Covers = NewCovers(db) },
	// Keyed by book (_id): every read is by _id or a list of them.
	collections: []collection{{colCovers, nil}},
	records: map[ports.RecordKind]records{
		ports.KindCovers: plainRecords(colCovers, toCoverDoc, coverDoc.toCover),
	},
})

var _ ports.CoverRepository = (*Covers)(nil)

// Covers is the MongoDB ports.CoverRepository: collection covers keyed by
// the book's id; a cover is at most a few hundred KB, well inside a
// document.
type Covers struct {
	covers *mongo.Collection
}

// NewCovers returns the cover store of db. It panics on nil, a wiring bug.
func NewCovers(db *mongo.Database) *Covers {
	mustDB(db, "NewCovers")
	return &Covers{covers: db.Collection(colCovers)}
}

type coverDoc struct {
	BookID    string    `bson:"_id"`
	SchoolID  string    `bson:"school_id"`
	Image     []byte    `bson:"image"`
	Width     int       `bson:"width"`
	Height    int       `bson:"height"`
	ETag      string    `bson:"etag"`
	Source    string    `bson:"source"`
	Missing   bool      `bson:"missing"`
	Removed   bool      `bson:"removed"`
	UpdatedAt time.Time `bson:"updated_at"`
}

func toCoverDoc(c library.Cover) coverDoc {
	img := c.Image.JPEG
	if img == nil {
		img = []byte{}
	}
	return coverDoc{BookID: c.BookID, SchoolID: c.SchoolID, Image: img, Width: c.Image.Width, Height: c.Image.Height, ETag: c.ETag,
		Source: c.Source, Missing: c.Missing, Removed: c.Removed, UpdatedAt: c.UpdatedAt.UTC()}
}

func (d coverDoc) toCover() library.Cover {
	c := library.Cover{BookID: d.BookID, SchoolID: d.SchoolID, Image: library.CoverImage{JPEG: d.Image, Width: d.Width, Height: d.Height},
		ETag: d.ETag, Source: d.Source, Missing: d.Missing, Removed: d.Removed, UpdatedAt: d.UpdatedAt.UTC()}
	if len(c.Image.JPEG) == 0 {
		c.Image.JPEG = nil
	}
	return c
}

// Put implements ports.CoverRepository with one replace by _id that
// inserts when there is none.
func (r *Covers) Put(ctx context.Context, c library.Cover) error {
	return replaceByID(ctx, r.covers, "store the cover", c.BookID, toCoverDoc(c))
}

// Get implements ports.CoverRepository by _id; another school's is not
// found.
func (r *Covers) Get(ctx context.Context, schoolID, bookID string) (library.Cover, error) {
	c, err := findOne(ctx, r.covers, "read the cover", byID(bookID), library.ErrCoverNotFound, coverDoc.toCover)
	if err == nil && c.SchoolID != schoolID {
		return library.Cover{}, library.ErrCoverNotFound()
	}
	return c, err
}

// Known implements ports.CoverRepository with one find by _id of the
// books, without their images.
func (r *Covers) Known(ctx context.Context, schoolID string, bookIDs []string) (map[string]library.CoverState, error) {
	out := map[string]library.CoverState{}
	if len(bookIDs) == 0 {
		return out, nil
	}
	type state struct {
		ID        string    `bson:"_id"`
		SchoolID  string    `bson:"school_id"`
		Missing   bool      `bson:"missing"`
		Removed   bool      `bson:"removed"`
		UpdatedAt time.Time `bson:"updated_at"`
	}
	opts := options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}, {Key: "school_id", Value: 1}, {Key: "missing", Value: 1}, {Key: "removed", Value: 1},
		{Key: "updated_at", Value: 1}}).
		SetBatchSize(oneBatch(len(bookIDs)))
	states, err := findAll(ctx, r.covers, "look up the covers", bson.D{{Key: "_id", Value: in(bookIDs)}}, opts, func(s state) state { return s })
	if err != nil {
		return nil, err
	}
	for _, s := range states {
		if s.SchoolID == schoolID {
			out[s.ID] = library.CoverState{Present: !s.Missing && !s.Removed, Removed: s.Removed, NotedAt: s.UpdatedAt.UTC()}
		}
	}
	return out, nil
}

// Delete implements ports.CoverRepository by _id and school.
func (r *Covers) Delete(ctx context.Context, schoolID, bookID string) error {
	_, err := r.covers.DeleteOne(ctx, bson.D{{Key: "_id", Value: bookID}, {Key: "school_id", Value: schoolID}})
	return mapErr(err, "delete the cover", nil, nil)
}
