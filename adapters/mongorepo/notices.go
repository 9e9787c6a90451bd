package mongorepo

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

const (
	// Reminder mail: each school's notice settings, the notices (claims and
	// log), the finished days, and the homerooms with their teachers.
	colNoticeSettings = "notice_settings"
	colNotices        = "notices"
	colNoticeDays     = "notice_days"
	colHomerooms      = "homerooms"
)

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) {
		n := NewNotices(db)
		r.Notices, r.Homerooms = n, n
	},
	collections: []collection{
		{colNoticeSettings, nil},
		// A loan's log; the unsent claims a stopped run left; a student's
		// notices (deleted with the account); a school's old notices
		// (deleted with the loan history).
		{colNotices, []mongo.IndexModel{
			{Keys: bson.D{{Key: "subject_id", Value: 1}, {Key: "claimed_at", Value: 1}}},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "sent_at", Value: 1}, {Key: "claimed_at", Value: 1}}},
			{Keys: bson.D{{Key: "student_id", Value: 1}}},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "claimed_at", Value: 1}}},
		}},
		{colNoticeDays, nil},
		{colHomerooms, []mongo.IndexModel{
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "key", Value: 1}}},
		}},
	},
	records: map[ports.RecordKind]records{
		ports.KindNoticeSettings: plainRecords(colNoticeSettings, toNoticeSettingsDoc, noticeSettingsDoc.toRecord),
		ports.KindHomerooms:      plainRecords(colHomerooms, toHomeroomDoc, homeroomDoc.toHomeroom),
		ports.KindNotices:        plainRecords(colNotices, toNoticeDoc, noticeDoc.toNotice),
		ports.KindNoticeDays:     plainRecords(colNoticeDays, toNoticeDayDoc, noticeDayDoc.toRecord),
	},
})

var (
	_ ports.NoticeRepository   = (*Notices)(nil)
	_ ports.HomeroomRepository = (*Notices)(nil)
)

// Notices is the MongoDB ports.NoticeRepository and ports.HomeroomRepository:
// collections notice_settings (keyed by school), notices (keyed by the
// notice's key, whose insert is the claim: a unique-key insert has exactly
// one winner on FerretDB 1.24 as on MongoDB), notice_days (keyed by school
// and day) and homerooms (keyed by school and homeroom).
type Notices struct {
	settings  *mongo.Collection
	notices   *mongo.Collection
	days      *mongo.Collection
	homerooms *mongo.Collection
}

// NewNotices returns the notice store of db. It panics on nil, a wiring bug.
func NewNotices(db *mongo.Database) *Notices {
	mustDB(db, "NewNotices")
	return &Notices{settings: db.Collection(colNoticeSettings), notices: db.Collection(colNotices),
		days: db.Collection(colNoticeDays), homerooms: db.Collection(colHomerooms)}
}

type noticeSettingsDoc struct {
	ID           string `bson:"_id"` // the school
	Enabled      bool   `bson:"enabled"`
	SendAt       string `bson:"send_at"`
	DueSoonDays  int    `bson:"due_soon_days"`
	OverdueSteps []int  `bson:"overdue_steps"`
	// Absent in settings saved before guardians' copies, as when none.
	GuardianCopies []string `bson:"guardian_copies,omitempty"`
	Contact        string   `bson:"contact,omitempty"`
}

func toNoticeSettingsDoc(rec ports.NoticeSettingsRecord) noticeSettingsDoc {
	steps := rec.Settings.OverdueSteps
	if steps == nil {
		steps = []int{}
	}
	return noticeSettingsDoc{ID: rec.SchoolID, Enabled: rec.Settings.Enabled, SendAt: rec.Settings.SendAt,
		DueSoonDays: rec.Settings.DueSoonDays, OverdueSteps: steps,
		GuardianCopies: rec.Settings.GuardianCopies, Contact: rec.Settings.Contact}
}

func (d noticeSettingsDoc) toRecord() ports.NoticeSettingsRecord {
	return ports.NoticeSettingsRecord{SchoolID: d.ID, Settings: d.toSettings()}
}

func (d noticeSettingsDoc) toSettings() library.NoticeSettings {
	steps := d.OverdueSteps
	if steps == nil {
		steps = []int{}
	}
	copies := d.GuardianCopies
	if len(copies) == 0 {
		copies = nil // none is nil, as library.NormalizeNoticeSettings stores it
	}
	return library.NoticeSettings{Enabled: d.Enabled, SendAt: d.SendAt, DueSoonDays: d.DueSoonDays, OverdueSteps: steps,
		GuardianCopies: copies, Contact: d.Contact}
}

type noticeDoc struct {
	Key       string     `bson:"_id"`
	SchoolID  string     `bson:"school_id"`
	SubjectID string     `bson:"subject_id"`
	StudentID string     `bson:"student_id"`
	Kind      string     `bson:"kind"`
	Step      int        `bson:"step"`
	DueAt     string     `bson:"due_at"`
	Day       string     `bson:"day"`
	Recipient string     `bson:"recipient"`
	ClaimedAt time.Time  `bson:"claimed_at"`
	SentAt    *time.Time `bson:"sent_at"` // null until sent
}

func toNoticeDoc(n library.Notice) noticeDoc {
	d := noticeDoc{Key: n.Key, SchoolID: n.SchoolID, SubjectID: n.SubjectID, StudentID: n.StudentID, Kind: n.Kind, Step: n.Step,
		DueAt: n.DueAt, Day: n.Day, Recipient: n.Recipient, ClaimedAt: n.ClaimedAt.UTC()}
	if n.Sent() {
		at := n.SentAt.UTC()
		d.SentAt = &at
	}
	return d
}

func (d noticeDoc) toNotice() library.Notice {
	n := library.Notice{Key: d.Key, SchoolID: d.SchoolID, SubjectID: d.SubjectID, StudentID: d.StudentID, Kind: d.Kind, Step: d.Step,
		DueAt: d.DueAt, Day: d.Day, Recipient: d.Recipient, ClaimedAt: d.ClaimedAt.UTC()}
	if d.SentAt != nil {
		n.SentAt = d.SentAt.UTC()
	}
	return n
}

type noticeDayDoc struct {
	ID         string    `bson:"_id"` // school#day
	SchoolID   string    `bson:"school_id"`
	Day        string    `bson:"day"`
	FinishedAt time.Time `bson:"finished_at"`
}

func toNoticeDayDoc(nd ports.NoticeDay) noticeDayDoc {
	return noticeDayDoc{ID: nd.SchoolID + "#" + nd.Day, SchoolID: nd.SchoolID, Day: nd.Day, FinishedAt: nd.FinishedAt.UTC()}
}

func (d noticeDayDoc) toRecord() ports.NoticeDay {
	return ports.NoticeDay{SchoolID: d.SchoolID, Day: d.Day, FinishedAt: d.FinishedAt.UTC()}
}

type homeroomDoc struct {
	ID           string `bson:"_id"` // school#key
	SchoolID     string `bson:"school_id"`
	Key          string `bson:"key"`
	Name         string `bson:"name"`
	TeacherName  string `bson:"teacher_name"`
	TeacherEmail string `bson:"teacher_email"`
}

func toHomeroomDoc(h library.Homeroom) homeroomDoc {
	key := library.HomeroomKey(h.Name)
	return homeroomDoc{ID: h.SchoolID + "#" + key, SchoolID: h.SchoolID, Key: key, Name: h.Name, TeacherName: h.TeacherName, TeacherEmail: h.TeacherEmail}
}

func (d homeroomDoc) toHomeroom() library.Homeroom {
	return library.Homeroom{SchoolID: d.SchoolID, Name: d.Name, TeacherName: d.TeacherName, TeacherEmail: d.TeacherEmail}
}

// Settings implements ports.NoticeRepository with a find by _id.
func (r *Notices) Settings(ctx context.Context, schoolID string) (library.NoticeSettings, error) {
	var d noticeSettingsDoc
	err := r.settings.FindOne(ctx, byID(schoolID)).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return library.DefaultNoticeSettings(), nil
	}
	if err != nil {
		return library.NoticeSettings{}, mapErr(err, "read the notice settings", nil, nil)
	}
	return d.toSettings(), nil
}

// SaveSettings implements ports.NoticeRepository with one replace-upsert by
// _id; concurrent saves are last-writer-wins.
func (r *Notices) SaveSettings(ctx context.Context, schoolID string, s library.NoticeSettings) error {
	d := toNoticeSettingsDoc(ports.NoticeSettingsRecord{SchoolID: schoolID, Settings: s})
	_, err := r.settings.ReplaceOne(ctx, byID(schoolID), d, options.Replace().SetUpsert(true))
	return mapErr(err, "save the notice settings", nil, nil)
}

// Claim implements ports.NoticeRepository with one unordered insertMany:
// the inserts refused as duplicate keys are the notices claimed already.
func (r *Notices) Claim(ctx context.Context, notices []library.Notice) ([]int, error) {
	return insertManyWon(ctx, r.notices, "claim the notices", anys(notices, toNoticeDoc))
}

// MarkSent implements ports.NoticeRepository with one updateMany by _id.
// Only the run that claimed a notice writes it, so FerretDB's unguarded
// read-modify-write of updates races with nothing.
func (r *Notices) MarkSent(ctx context.Context, keys []string, at time.Time) error {
	if len(keys) == 0 {
		return nil
	}
	filter := bson.D{{Key: "_id", Value: in(keys)}, {Key: "sent_at", Value: nil}}
	_, err := r.notices.UpdateMany(ctx, filter, bson.D{{Key: "$set", Value: bson.D{{Key: "sent_at", Value: at.UTC()}}}})
	return mapErr(err, "record the notices as sent", nil, nil)
}

// Release implements ports.NoticeRepository with one deleteMany by _id.
func (r *Notices) Release(ctx context.Context, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	_, err := r.notices.DeleteMany(ctx, bson.D{{Key: "_id", Value: in(keys)}, {Key: "sent_at", Value: nil}})
	return mapErr(err, "release the notices", nil, nil)
}

// Unsent implements ports.NoticeRepository on the {school_id, sent_at,
// claimed_at} index.
func (r *Notices) Unsent(ctx context.Context, schoolID string, claimedBefore time.Time, limit int) ([]library.Notice, error) {
	filter := bson.D{{Key: "school_id", Value: schoolID}, {Key: "sent_at", Value: nil},
		{Key: "claimed_at", Value: bson.D{{Key: "$lt", Value: claimedBefore.UTC()}}}}
	opts := options.Find().SetSort(bson.D{{Key: "claimed_at", Value: 1}}).SetLimit(int64(limit))
	return findAll(ctx, r.notices, "read unsent notices", filter, opts, noticeDoc.toNotice)
}

// OfSubject implements ports.NoticeRepository on the {subject_id,
// claimed_at} index.
func (r *Notices) OfSubject(ctx context.Context, subjectID string) ([]library.Notice, error) {
	opts := options.Find().SetSort(bson.D{{Key: "claimed_at", Value: 1}, {Key: "_id", Value: 1}})
	return findAll(ctx, r.notices, "read the loan's notices", bson.D{{Key: "subject_id", Value: subjectID}}, opts, noticeDoc.toNotice)
}

// ForgetStudent implements ports.NoticeRepository on the student_id index.
func (r *Notices) ForgetStudent(ctx context.Context, studentID string) error {
	_, err := r.notices.DeleteMany(ctx, bson.D{{Key: "student_id", Value: studentID}})
	return mapErr(err, "delete the student's notices", nil, nil)
}

// ForgetLoansOfStudent implements ports.NoticeRepository on the student_id
// index.
func (r *Notices) ForgetLoansOfStudent(ctx context.Context, studentID string, kinds, keep []string) (int, error) {
	if keep == nil {
		keep = []string{}
	}
	res, err := r.notices.DeleteMany(ctx, bson.D{{Key: "student_id", Value: studentID}, {Key: "kind", Value: in(kinds)},
		{Key: "subject_id", Value: bson.D{{Key: "$nin", Value: keep}}}})
	if err != nil {
		return 0, mapErr(err, "delete the student's loan notices", nil, nil)
	}
	return int(res.DeletedCount), nil
}

// DeleteClaimedBefore implements ports.NoticeRepository: a find of at most
// limit keys on the {school_id, claimed_at} index, then one deleteMany.
func (r *Notices) DeleteClaimedBefore(ctx context.Context, schoolID string, before time.Time, limit int) (int, error) {
	filter := bson.D{{Key: "school_id", Value: schoolID}, {Key: "claimed_at", Value: bson.D{{Key: "$lt", Value: before.UTC()}}}}
	opts := options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}).SetSort(bson.D{{Key: "claimed_at", Value: 1}}).SetLimit(int64(limit))
	keys, err := findAll(ctx, r.notices, "find old notices", filter, opts, func(d noticeDoc) string { return d.Key })
	if err != nil || len(keys) == 0 {
		return 0, err
	}
	res, err := r.notices.DeleteMany(ctx, bson.D{{Key: "_id", Value: in(keys)}})
	if err != nil {
		return 0, mapErr(err, "delete old notices", nil, nil)
	}
	return int(res.DeletedCount), nil
}

// FinishDay implements ports.NoticeRepository: an insert keyed by school
// and day; one already there is the same record.
func (r *Notices) FinishDay(ctx context.Context, schoolID, day string) error {
	_, err := r.days.InsertOne(ctx, toNoticeDayDoc(ports.NoticeDay{SchoolID: schoolID, Day: day, FinishedAt: time.Now()}))
	if mongo.IsDuplicateKeyError(err) {
		return nil
	}
	return mapErr(err, "record the notice day", nil, nil)
}

// DayFinished implements ports.NoticeRepository with a find by _id.
func (r *Notices) DayFinished(ctx context.Context, schoolID, day string) (bool, error) {
	err := r.days.FindOne(ctx, byID(schoolID+"#"+day)).Err()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return false, nil
	}
	return err == nil, mapErr(err, "read the notice day", nil, nil)
}

// Homerooms implements ports.HomeroomRepository on the {school_id, key}
// index.
func (r *Notices) Homerooms(ctx context.Context, schoolID string) ([]library.Homeroom, error) {
	opts := options.Find().SetSort(bson.D{{Key: "key", Value: 1}})
	return findAll(ctx, r.homerooms, "read the homerooms", bson.D{{Key: "school_id", Value: schoolID}}, opts, homeroomDoc.toHomeroom)
}

// ReplaceHomerooms implements ports.HomeroomRepository: the rooms are
// upserted by _id, then the school's rooms not in the list are deleted, so
// a reader never sees the school without homerooms in between.
func (r *Notices) ReplaceHomerooms(ctx context.Context, schoolID string, rooms []library.Homeroom) error {
	ids := make([]string, 0, len(rooms))
	if len(rooms) > 0 {
		models := make([]mongo.WriteModel, 0, len(rooms))
		for _, h := range rooms {
			h.SchoolID = schoolID
			d := toHomeroomDoc(h)
			ids = append(ids, d.ID)
			models = append(models, mongo.NewReplaceOneModel().SetFilter(byID(d.ID)).SetReplacement(d).SetUpsert(true))
		}
		if _, err := r.homerooms.BulkWrite(ctx, models); err != nil {
			return mapErr(err, "save the homerooms", nil, nil)
		}
	}
	_, err := r.homerooms.DeleteMany(ctx, bson.D{{Key: "school_id", Value: schoolID}, {Key: "_id", Value: bson.D{{Key: "$nin", Value: ids}}}})
	return mapErr(err, "save the homerooms", nil, nil)
}
