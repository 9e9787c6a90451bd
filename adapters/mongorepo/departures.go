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
	colDepartures        = "student_departures"
	colDepartureOutcomes = "departure_outcomes"
)

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) { r.Departures = NewDepartures(db) },
	collections: []collection{
		{colDepartures, []mongo.IndexModel{
			{Keys: bson.D{{Key: "student_id", Value: 1}, {Key: "started_at", Value: 1}, {Key: "_id", Value: 1}}},
		}},
		{colDepartureOutcomes, nil},
	},
})

var _ ports.DepartureRepository = (*Departures)(nil)

// Departures is the MongoDB ports.DepartureRepository: collection
// student_departures, keyed by the attempt and indexed by student_id, and
// departure_outcomes, keyed by the attempt, whose insert is the one
// outcome (a unique-key insert has exactly one winner on FerretDB 1.24,
// where a conditional update does not). Every method is one command, End
// two.
type Departures struct {
	departures *mongo.Collection
	outcomes   *mongo.Collection
}

// NewDepartures returns the departure store of db. It panics on nil, a
// wiring bug.
func NewDepartures(db *mongo.Database) *Departures {
	mustDB(db, "NewDepartures")
	return &Departures{departures: db.Collection(colDepartures), outcomes: db.Collection(colDepartureOutcomes)}
}

type departureDoc struct {
	ID        string    `bson:"_id"`
	StudentID string    `bson:"student_id"`
	StartedAt time.Time `bson:"started_at"`
}

type outcomeDoc struct {
	ID      string `bson:"_id"`
	Outcome string `bson:"outcome"`
}

// Begin implements ports.DepartureRepository.
func (r *Departures) Begin(ctx context.Context, d library.Departure) error {
	return insertOne(ctx, r.departures, "record the deletion", departureDoc{ID: d.ID, StudentID: d.StudentID, StartedAt: d.StartedAt.UTC()}, nil)
}

// OfStudent implements ports.DepartureRepository with one find on the
// student_id index.
func (r *Departures) OfStudent(ctx context.Context, studentID string) ([]library.Departure, error) {
	opts := options.Find().SetSort(bson.D{{Key: "started_at", Value: 1}, {Key: "_id", Value: 1}})
	return findAll(ctx, r.departures, "read the student's deletions", bson.D{{Key: "student_id", Value: studentID}}, opts,
		func(d departureDoc) library.Departure {
			return library.Departure{ID: d.ID, StudentID: d.StudentID, StartedAt: d.StartedAt.UTC()}
		})
}

// Decide implements ports.DepartureRepository with an insert keyed by the
// attempt.
func (r *Departures) Decide(ctx context.Context, attemptID, outcome string) error {
	return insertOne(ctx, r.outcomes, "decide the deletion", outcomeDoc{ID: attemptID, Outcome: outcome}, library.ErrDepartureDecided)
}

// Outcome implements ports.DepartureRepository.
func (r *Departures) Outcome(ctx context.Context, attemptID string) (string, error) {
	return findOne(ctx, r.outcomes, "read the deletion's outcome", byID(attemptID), library.ErrDepartureNotFound,
		func(d outcomeDoc) string { return d.Outcome })
}

// End implements ports.DepartureRepository: the outcome, then the attempt,
// each deleted by _id.
func (r *Departures) End(ctx context.Context, attemptID string) error {
	if _, err := r.outcomes.DeleteOne(ctx, byID(attemptID)); err != nil {
		return mapErr(err, "end the deletion", nil, nil)
	}
	_, err := r.departures.DeleteOne(ctx, byID(attemptID))
	return mapErr(err, "end the deletion", nil, nil)
}
