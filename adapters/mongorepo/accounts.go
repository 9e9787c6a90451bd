package mongorepo

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

const colAccounts = "accounts"

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) { r.Accounts = NewAccounts(db) },
	collections: []collection{
		{colAccounts, []mongo.IndexModel{
			{Keys: bson.D{{Key: "email_key", Value: 1}}, Options: options.Index().SetUnique(true)},
			// ListDeleted: the accounts whose removal did not finish.
			{Keys: bson.D{{Key: "deleted", Value: 1}, {Key: "_id", Value: 1}}},
			// ListBySchool and the student list.
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "role", Value: 1}, {Key: "name", Value: 1}, {Key: "_id", Value: 1}}},
			// The student search.
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "role", Value: 1}, {Key: "search_terms", Value: 1}}},
			// A class's students (the student list and the loans of a
			// homeroom), in the student list's order.
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "role", Value: 1}, {Key: "homeroom_key", Value: 1}, {Key: "name", Value: 1}, {Key: "_id", Value: 1}}},
			// The accounts of an import batch, published or dropped at its end.
			{Keys: bson.D{{Key: "import_batch", Value: 1}}, Options: options.Index().SetSparse(true)},
		}},
	},
	records: map[ports.RecordKind]records{
		ports.KindAccounts: func(db *mongo.Database, k ports.RecordKind) recordKind {
			return withExternalIDs(db, plain(db, k, colAccounts, toAccountDoc, accountDoc.toAccount))
		},
	},
})

var _ ports.AccountRepository = (*Accounts)(nil)

// Accounts is the MongoDB ports.AccountRepository: collection accounts,
// keyed by the account UUID, with a unique index on email_key: the email,
// or "id:" and the account id for an account without one (emailKey).
// FerretDB 1.24 has no partial indexes, so a unique index on email itself
// would let only one account go without an email.
type Accounts struct {
	c *mongo.Collection
}

// NewAccounts returns the account store of db. It panics on nil, a wiring
// bug.
func NewAccounts(db *mongo.Database) *Accounts {
	mustDB(db, "NewAccounts")
	return &Accounts{c: db.Collection(colAccounts)}
}

type accountDoc struct {
	ID            string         `bson:"_id"`
	Email         string         `bson:"email"`
	EmailKey      string         `bson:"email_key"` // emailKey: unique
	Name          string         `bson:"name"`
	PasswordHash  string         `bson:"password_hash"`
	Role          string         `bson:"role"`
	SchoolID      string         `bson:"school_id"`
	Tier          string         `bson:"tier"`
	Suspended     bool           `bson:"suspended"`
	Deleted       bool           `bson:"deleted"`
	Avatar        string         `bson:"avatar"`
	ReadingLevel  string         `bson:"reading_level"`
	Preferences   preferencesDoc `bson:"preferences"`
	StudentNumber string         `bson:"student_number"`
	Grade         string         `bson:"grade"`
	Homeroom      string         `bson:"homeroom"`
	// HomeroomKey is library.HomeroomKey of Homeroom: a class's students
	// are found by it, whatever case each was typed in.
	HomeroomKey string `bson:"homeroom_key"`
	// ExternalID is the roster system's stable id (unique in the school
	// through its claim in student_external_ids); Inactive marks a student
	// off the roll.
	ExternalID string `bson:"external_id,omitempty"`
	Inactive   bool   `bson:"inactive,omitempty"`
	// HistoryOptOut: the student chose to keep no loan history; absent
	// (kept) in accounts stored before the choice.
	HistoryOptOut bool `bson:"history_opt_out,omitempty"`
	// HoldsFromReadingList: the student chose that a title put on a
	// reading list holds itself; absent (off) until they choose it.
	HoldsFromReadingList bool `bson:"holds_from_reading_list,omitempty"`
	// Guardians are the student's parents and guardians in their order;
	// absent when there are none.
	Guardians []guardianDoc `bson:"guardians,omitempty"`
	// SearchTerms are accountTerms: what the student search matches.
	SearchTerms []string  `bson:"search_terms"`
	CreatedAt   time.Time `bson:"created_at"`
	UpdatedAt   time.Time `bson:"updated_at"`
	// ImportBatch is set while the account is part of a student import
	// that has not been committed (Students.ImportStudents): no read
	// returns it until then.
	ImportBatch string `bson:"import_batch,omitempty"`
}

// notPending keeps accounts of an uncommitted import out of a read.
var notPending = bson.E{Key: "import_batch", Value: bson.D{{Key: "$exists", Value: false}}}

func (d accountDoc) pendingImport() bool { return d.ImportBatch != "" }

// visible is filter without the documents of uncommitted imports (accounts,
// library books, copies).
func visible(filter bson.D) bson.D {
	return append(filter[:len(filter):len(filter)], notPending)
}

// emailKey is the unique key of an account's email: the email itself, or
// "id:" and the id when there is none. A normalised email always has an
// "@" and such a key never does, so the two kinds cannot meet.
func emailKey(a user.Account) string {
	if a.Email == "" {
		return "id:" + a.ID
	}
	return a.Email
}

type guardianDoc struct {
	Name         string `bson:"name"`
	Email        string `bson:"email"`
	Relationship string `bson:"relationship"`
}

// toGuardianDocs is nil for no guardians, so that the field is left out.
func toGuardianDocs(gs []user.Guardian) []guardianDoc {
	if len(gs) == 0 {
		return nil
	}
	docs := make([]guardianDoc, len(gs))
	for i, g := range gs {
		docs[i] = guardianDoc(g)
	}
	return docs
}

// toGuardians is nil for none, as an account is created.
func toGuardians(docs []guardianDoc) []user.Guardian {
	var gs []user.Guardian
	for _, d := range docs {
		gs = append(gs, user.Guardian(d))
	}
	return gs
}

type preferencesDoc struct {
	FontSize      int    `bson:"font_size"`
	Theme         string `bson:"theme"`
	Notifications bool   `bson:"notifications"`
	Timezone      string `bson:"timezone"`
	// The language the person chose; absent when they chose none.
	Language string `bson:"language,omitempty"`
}

func toAccountDoc(a user.Account) accountDoc {
	return accountDoc{
		ID:           a.ID,
		Email:        a.Email,
		EmailKey:     emailKey(a),
		Name:         a.Name,
		PasswordHash: a.PasswordHash,
		Role:         string(a.Role),
		SchoolID:     a.SchoolID,
		Tier:         string(a.Tier),
		Suspended:    a.Suspended,
		Deleted:      a.Deleted,
		Avatar:       a.Avatar,
		ReadingLevel: a.ReadingLevel,
		Preferences: preferencesDoc{
			FontSize:      a.Preferences.FontSize,
			Theme:         a.Preferences.Theme,
			Notifications: a.Preferences.Notifications,
			Timezone:      a.Preferences.Timezone,
			Language:      a.Preferences.Language,
		},
		StudentNumber:        a.StudentNumber,
		Grade:                a.Grade,
		Homeroom:             a.Homeroom,
		HomeroomKey:          library.HomeroomKey(a.Homeroom),
		ExternalID:           a.ExternalID,
		Inactive:             a.Inactive,
		HistoryOptOut:        a.HistoryOptOut,
		HoldsFromReadingList: a.HoldsFromReadingList,
		Guardians:            toGuardianDocs(a.Guardians),
		SearchTerms:          accountTerms(a.Name, a.Email, a.StudentNumber),
		CreatedAt:            a.CreatedAt.UTC(),
		UpdatedAt:            a.UpdatedAt.UTC(),
	}
}

// accountTerms are the folded prefixes of the words of an account's name,
// email and student number, stored and indexed so that a student search
// is an index lookup.
func accountTerms(name, email, number string) []string {
	return searchTermsOf(name + " " + email + " " + number)
}

func (d accountDoc) toAccount() user.Account {
	return user.Account{
		ID:           d.ID,
		Email:        d.Email,
		Name:         d.Name,
		PasswordHash: d.PasswordHash,
		Role:         user.Role(d.Role),
		SchoolID:     d.SchoolID,
		Tier:         user.Tier(d.Tier),
		Suspended:    d.Suspended,
		Deleted:      d.Deleted,
		Avatar:       d.Avatar,
		ReadingLevel: d.ReadingLevel,
		Preferences: user.Preferences{
			FontSize:      d.Preferences.FontSize,
			Theme:         d.Preferences.Theme,
			Notifications: d.Preferences.Notifications,
			Timezone:      d.Preferences.Timezone,
			Language:      d.Preferences.Language,
		},
		StudentNumber:        d.StudentNumber,
		Grade:                d.Grade,
		Homeroom:             d.Homeroom,
		ExternalID:           d.ExternalID,
		Inactive:             d.Inactive,
		HistoryOptOut:        d.HistoryOptOut,
		HoldsFromReadingList: d.HoldsFromReadingList,
		Guardians:            toGuardians(d.Guardians),
		CreatedAt:            d.CreatedAt.UTC(),
		UpdatedAt:            d.UpdatedAt.UTC(),
	}
}

// Create implements ports.AccountRepository. The unique _id and the unique
// email_key index both report a duplicate key, so either clash is one
// Conflict. Accounts without an email have distinct keys, so they never
// clash.
func (r *Accounts) Create(ctx context.Context, a user.Account) error {
	return insertOne(ctx, r.c, "create the account", toAccountDoc(a), user.ErrEmailTaken)
}

// Get implements ports.AccountRepository.
func (r *Accounts) Get(ctx context.Context, id string) (user.Account, error) {
	return findVisibleByID(ctx, r.c, "read the account", id, func() error { return user.ErrNotFound(id) }, accountDoc.toAccount)
}

// GetByEmail implements ports.AccountRepository with one find on
// email_key. No email names no account, and sends no command.
func (r *Accounts) GetByEmail(ctx context.Context, email string) (user.Account, error) {
	if email == "" {
		return user.Account{}, errAccountEmailNotFound()
	}
	return r.findOne(ctx, bson.D{{Key: "email_key", Value: email}}, errAccountEmailNotFound)
}

func (r *Accounts) findOne(ctx context.Context, filter bson.D, notFound func() error) (user.Account, error) {
	var d accountDoc
	if err := r.c.FindOne(ctx, visible(filter)).Decode(&d); err != nil {
		return user.Account{}, mapErr(err, "read the account", notFound, nil)
	}
	return d.toAccount(), nil
}

// Update implements ports.AccountRepository. A replace by _id never
// upserts, so a missing account stays missing.
//
// FerretDB 1.24 reports a unique-index violation on replace as an
// InternalError carrying SQLite's text, not as a duplicate key. Rather than
// match that text, a failed replace checks whether another account holds
// the email, which names the cause on every backend.
func (r *Accounts) Update(ctx context.Context, a user.Account) error {
	res, err := r.c.ReplaceOne(ctx, bson.D{{Key: "_id", Value: a.ID}}, toAccountDoc(a))
	if err != nil {
		var se mongo.ServerError
		if !mongo.IsDuplicateKeyError(err) && errors.As(err, &se) && !isUnavailable(err) && r.emailTakenByOther(ctx, a) {
			return user.ErrEmailTaken()
		}
		return mapErr(err, "update the account", nil, user.ErrEmailTaken)
	}
	if res.MatchedCount == 0 {
		return user.ErrNotFound(a.ID)
	}
	return nil
}

// emailTakenByOther reports whether an account other than a holds a's
// email; a failed lookup counts as no, and so does an empty email.
func (r *Accounts) emailTakenByOther(ctx context.Context, a user.Account) bool {
	if a.Email == "" {
		return false
	}
	filter := bson.D{
		{Key: "email_key", Value: a.Email},
		{Key: "_id", Value: bson.D{{Key: "$ne", Value: a.ID}}},
	}
	n, err := r.c.CountDocuments(ctx, filter, options.Count().SetLimit(1))
	return err == nil && n > 0
}

// Count implements ports.AccountRepository.
func (r *Accounts) Count(ctx context.Context) (int64, error) {
	n, err := r.c.CountDocuments(ctx, bson.D{})
	if err != nil {
		return 0, mapErr(err, "count accounts", nil, nil)
	}
	return n, nil
}

func errAccountEmailNotFound() error {
	return errs.E(errs.NotFound, errs.CodeAccountNotFound, "No account with this email exists.")
}

// Delete implements ports.AccountRepository: one delete by _id. A missing
// account deletes nothing, which is not an error. The email index entry
// goes with the document, so the email is free at once.
func (r *Accounts) Delete(ctx context.Context, id string) error {
	_, err := r.c.DeleteOne(ctx, bson.D{{Key: "_id", Value: id}})
	return mapErr(err, "delete the account", nil, nil)
}

// ListDeleted implements ports.AccountRepository with one find on deleted,
// ordered by _id, the shape of the {deleted, _id} index. Such accounts are
// only the leftovers of interrupted removals, so they are few; more than the
// server's first batch (101) would cost getMore round trips.
func (r *Accounts) ListDeleted(ctx context.Context) ([]user.Account, error) {
	opts := options.Find().SetSort(bson.D{{Key: "_id", Value: 1}})
	return findAll(ctx, r.c, "list the deleted accounts", visible(bson.D{{Key: "deleted", Value: true}}), opts, accountDoc.toAccount)
}

// ListBySchool implements ports.AccountRepository with one find on
// school_id and role ordered by name and _id, the shape of the
// {school_id, role, name, _id} index.
func (r *Accounts) ListBySchool(ctx context.Context, schoolID string, roles []user.Role) ([]user.Account, error) {
	filter := bson.D{{Key: "school_id", Value: schoolID}}
	if len(roles) > 0 {
		names := make([]string, len(roles))
		for i, role := range roles {
			names[i] = string(role)
		}
		filter = append(filter, bson.E{Key: "role", Value: in(names)})
	}
	opts := options.Find().SetSort(bson.D{{Key: "name", Value: 1}, {Key: "_id", Value: 1}}).SetBatchSize(wholeBatch)
	return findAll(ctx, r.c, "list the school's accounts", visible(filter), opts, accountDoc.toAccount)
}

// GetMany implements ports.AccountRepository with one find by _id. No ids
// is no command.
func (r *Accounts) GetMany(ctx context.Context, ids []string) ([]user.Account, error) {
	return findByKeys(ctx, r.c, "read the accounts", len(ids), visible(bson.D{{Key: "_id", Value: in(ids)}}), accountDoc.toAccount)
}
