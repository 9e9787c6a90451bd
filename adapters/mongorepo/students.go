package mongorepo

import (
	"context"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// Students are accounts (accounts.go) with these collections beside:
//
//   - student_numbers, keyed by school id + "#" + the lowercased number,
//     whose insert is the one taker of a number;
//   - invites, keyed by the token hash, and invite_redemptions, keyed the
//     same, whose insert is the one redemption.

var (
	_ ports.StudentRepository = (*Students)(nil)
	_ ports.InviteRepository  = (*Invites)(nil)
)

const (
	colStudentNumbers = "student_numbers"
	colInvites        = "invites"
	colRedemptions    = "invite_redemptions"
	colExternalIDs    = "student_external_ids"
)

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) {
		r.Students = NewStudents(db)
		r.Invites = NewInvites(db)
	},
	collections: []collection{
		{colStudentNumbers, []mongo.IndexModel{
			{Keys: bson.D{{Key: "import_batch", Value: 1}}, Options: options.Index().SetSparse(true)},
		}},
		{colInvites, nil},
		{colRedemptions, nil},
		{colExternalIDs, nil},
	},
	records: map[ports.RecordKind]records{
		ports.KindStudentNumbers: plainRecords(colStudentNumbers, toStudentNumberDoc, studentNumberDoc.toStudentNumber),
		ports.KindInvites:        plainRecords(colInvites, toInviteDoc, inviteDoc.toInvite),
		ports.KindRedemptions:    plainRecords(colRedemptions, toStampDoc, claimDoc.toStamp),
	},
	expiring: []expiringKind{
		{"invites", colInvites, "expires_at", []string{colRedemptions}},
	},
})

// Students is the MongoDB ports.StudentRepository: students are accounts
// (collection accounts) and their numbers are claims in student_numbers;
// an import is recorded in student_imports while it runs (imports.go).
type Students struct {
	accounts  *mongo.Collection
	numbers   *mongo.Collection
	imports   *mongo.Collection
	externals *mongo.Collection
	rollovers *mongo.Collection
	journals  *mongo.Collection
}

// Invites is the MongoDB ports.InviteRepository.
type Invites struct {
	invites     *mongo.Collection
	redemptions *mongo.Collection
}

// NewStudents returns the student store of db. It panics on nil, a wiring bug.
func NewStudents(db *mongo.Database) *Students {
	mustDB(db, "NewStudents")
	return &Students{accounts: db.Collection(colAccounts), numbers: db.Collection(colStudentNumbers), imports: db.Collection(colStudentImports),
		externals: db.Collection(colExternalIDs), rollovers: db.Collection(colRosterRollovers), journals: db.Collection(colRosterJournals)}
}

// NewInvites returns the invitation store of db. It panics on nil, a wiring bug.
func NewInvites(db *mongo.Database) *Invites {
	mustDB(db, "NewInvites")
	return &Invites{invites: db.Collection(colInvites), redemptions: db.Collection(colRedemptions)}
}

type studentNumberDoc struct {
	ID        string `bson:"_id"` // studentNumberID(school, number)
	SchoolID  string `bson:"school_id"`
	Number    string `bson:"number"`
	AccountID string `bson:"account_id"`
	// ImportBatch is set while the number belongs to an uncommitted import.
	ImportBatch string `bson:"import_batch,omitempty"`
}

type inviteDoc struct {
	TokenHash string    `bson:"_id"`
	AccountID string    `bson:"account_id"`
	ExpiresAt time.Time `bson:"expires_at"`
	CreatedAt time.Time `bson:"created_at"`
}

// studentNumberID is the _id of a student number of a school: numbers
// that differ only in case are one number. School ids are UUIDs, without
// "#", so the first "#" ends the school id.
func studentNumberID(schoolID, number string) string { return schoolID + "#" + strings.ToLower(number) }

func toInviteDoc(inv library.Invite) inviteDoc {
	return inviteDoc{TokenHash: inv.TokenHash, AccountID: inv.AccountID, ExpiresAt: inv.ExpiresAt.UTC(), CreatedAt: inv.CreatedAt.UTC()}
}

func (d inviteDoc) toInvite() library.Invite {
	return library.Invite{TokenHash: d.TokenHash, AccountID: d.AccountID, ExpiresAt: d.ExpiresAt.UTC(), CreatedAt: d.CreatedAt.UTC()}
}

// Create implements ports.InviteRepository. A taken hash is a bug
// (tokens are random), so Internal.
func (r *Invites) Create(ctx context.Context, inv library.Invite) error {
	return insertOne(ctx, r.invites, "store the invitation", toInviteDoc(inv), nil)
}

// Get implements ports.InviteRepository. A redeemed invitation is still
// returned.
func (r *Invites) Get(ctx context.Context, tokenHash string) (library.Invite, error) {
	return findOne(ctx, r.invites, "read the invitation", bson.D{{Key: "_id", Value: tokenHash}}, library.ErrInviteNotFound, inviteDoc.toInvite)
}

// Redeem implements ports.InviteRepository with an insert keyed by
// the hash into invite_redemptions: exactly one of any number of racing
// calls succeeds. It does not look the invitation up; callers read it
// first.
func (r *Invites) Redeem(ctx context.Context, tokenHash string, at time.Time) error {
	return insertOne(ctx, r.redemptions, "redeem the invitation", toStampDoc(ports.Stamp{ID: tokenHash, At: at}), library.ErrInviteUsed)
}

// ClaimNumber implements ports.StudentRepository with an insert keyed by
// school and lowercased number: exactly one account gets each number,
// whatever case it is typed in.
func (r *Students) ClaimNumber(ctx context.Context, schoolID, number, accountID string) error {
	d := toStudentNumberDoc(ports.StudentNumber{SchoolID: schoolID, Number: number, AccountID: accountID})
	return insertOne(ctx, r.numbers, "claim the student number", d, library.ErrStudentNumberExists)
}

// TakenNumbers implements ports.StudentRepository with one find by _id
// (the keys are lowercased, so the comparison ignores case).
func (r *Students) TakenNumbers(ctx context.Context, schoolID string, numbers []string) ([]string, error) {
	if len(numbers) == 0 {
		return nil, nil
	}
	ids := make([]string, len(numbers))
	for i, n := range numbers {
		ids[i] = studentNumberID(schoolID, n)
	}
	opts := options.Find().SetBatchSize(oneBatch(len(ids)))
	return findAll(ctx, r.numbers, "read the student numbers", bson.D{{Key: "_id", Value: in(ids)}}, opts,
		func(d studentNumberDoc) string { return d.Number })
}

// ReleaseNumbers implements ports.StudentRepository: one delete by
// account_id (rare: only account deletion and a failed creation call it,
// so no index).
func (r *Students) ReleaseNumbers(ctx context.Context, accountID string) error {
	_, err := r.numbers.DeleteMany(ctx, bson.D{{Key: "account_id", Value: accountID}})
	if err != nil {
		return mapErr(err, "delete the account's student numbers", nil, nil)
	}
	// The external id goes with the account too (the SQLite store keeps it
	// on the account's row).
	_, err = r.externals.DeleteMany(ctx, bson.D{{Key: "account_id", Value: accountID}})
	return mapErr(err, "delete the account's external id", nil, nil)
}

// Search implements ports.StudentRepository: one find and one count on
// accounts, with every term among the account's search_terms (the
// multikey {school_id, role, search_terms} index) or, without terms, in the
// order of the {school_id, role, name, _id} index; a class's students by
// the {school_id, role, homeroom_key, name, _id} index.
func (r *Students) Search(ctx context.Context, q library.StudentQuery) ([]user.Account, int, error) {
	filter := bson.D{{Key: "school_id", Value: q.SchoolID}, {Key: "role", Value: string(user.RoleStudent)}, {Key: "deleted", Value: false}}
	if q.HomeroomKey != "" {
		filter = append(filter, bson.E{Key: "homeroom_key", Value: q.HomeroomKey})
	}
	if len(q.Terms) > 0 {
		filter = append(filter, bson.E{Key: "search_terms", Value: bson.D{{Key: "$all", Value: q.Terms}}})
	}
	filter = visible(filter)
	opts := options.Find().SetSort(bson.D{{Key: "name", Value: 1}, {Key: "_id", Value: 1}}).
		SetSkip(int64(q.Offset)).SetLimit(int64(q.Limit)).SetBatchSize(oneBatch(q.Limit))
	list, total, err := findPage(ctx, r.accounts, "search the students", "count the students", filter, opts, accountDoc.toAccount)
	return list, int(total), err
}

// DeleteByAccount implements ports.InviteRepository: one delete by
// account_id (rare: only account deletion calls it, so no index).
func (r *Invites) DeleteByAccount(ctx context.Context, accountID string) error {
	_, err := r.invites.DeleteMany(ctx, bson.D{{Key: "account_id", Value: accountID}})
	return mapErr(err, "delete the account's invitations", nil, nil)
}

// ImportStudents implements ports.StudentRepository with a batch marker
// (stageImport): one insert to start the batch, one insertMany of the
// numbers and one of the accounts, the commit insert, then one updateMany
// per collection and one deleteMany to publish it.
func (r *Students) ImportStudents(ctx context.Context, accounts []user.Account) error {
	if len(accounts) == 0 {
		return nil
	}
	// The writes run on a context of their own, and the request's is
	// checked between them: a command cut off in flight may still land on
	// the server after the clean-up has run, leaving numbers that block
	// the file when it is sent again.
	write := func(wctx context.Context, batch string) error {
		var numbers []studentNumberDoc
		docs := make([]accountDoc, len(accounts))
		for i, a := range accounts {
			docs[i] = toAccountDoc(a)
			docs[i].ImportBatch = batch
			if a.StudentNumber != "" {
				n := toStudentNumberDoc(ports.StudentNumber{SchoolID: a.SchoolID, Number: a.StudentNumber, AccountID: a.ID})
				n.ImportBatch = batch
				numbers = append(numbers, n)
			}
		}
		if err := ctx.Err(); err != nil {
			return mapErr(err, "import the students", nil, nil)
		}
		if len(numbers) > 0 {
			if _, err := r.numbers.InsertMany(wctx, numbers); err != nil {
				return mapInsertManyErr(err, "import the student numbers", library.ErrStudentNumberExists)
			}
			if err := ctx.Err(); err != nil {
				return mapErr(err, "import the students", nil, nil)
			}
		}
		if _, err := r.accounts.InsertMany(wctx, docs); err != nil {
			return mapInsertManyErr(err, "import the students", user.ErrEmailTaken)
		}
		// A request cancelled or past its deadline by now is not committed.
		if err := ctx.Err(); err != nil {
			return mapErr(err, "import the students", nil, nil)
		}
		return nil
	}
	publish := func(wctx context.Context, batch string) error {
		return publishImport(wctx, r.accounts.Database(), batch)
	}
	return stageImport(ctx, r.imports, write, publish, r.abandon)
}

// abandon deletes what the batch stored and returns cause.
func (r *Students) abandon(ctx context.Context, batch string, cause error) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), importCleanupTimeout)
	defer cancel()
	_ = dropImport(cctx, r.accounts.Database(), batch)
	return cause
}
