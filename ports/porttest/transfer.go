package porttest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/roster"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// Transfer checks the ports.RecordStore contract. newStore must return the
// repositories and the record store of one new, empty store that no other
// call sees, both over the same data.
//
// The first store newStore returns (A) is seeded through its repositories
// with records of every kind in the states the service leaves them in; the
// second (B) is filled by copying A kind by kind in ports.RecordKinds order
// with Read and Write, two records at a time; every repository read of B
// must then answer as A does. A third store only ever receives records of
// the wrong type.
func Transfer(t *testing.T, newStore func(t *testing.T) (ports.Repositories, ports.RecordStore)) {
	reposA, recA := newStore(t)
	seed := seedTransfer(t, reposA, recA)
	if !t.Run("CountSeeded", func(t *testing.T) { testTransferCountSeeded(t, recA, seed) }) {
		return
	}
	reposB, recB := newStore(t)
	if !t.Run("Copy", func(t *testing.T) { testTransferCopy(t, recA, recB, seed) }) {
		return
	}
	t.Run("CountCopied", func(t *testing.T) { wantSameCounts(t, recA, recB) })
	t.Run("ReadBack", func(t *testing.T) { testTransferReadBack(t, reposA, reposB, seed) })
	t.Run("KeysHold", func(t *testing.T) { testTransferKeysHold(t, reposB, seed); wantSameCounts(t, recA, recB) })
	t.Run("WriteTwice", func(t *testing.T) { testTransferWriteTwice(t, recA, recB) })
	t.Run("WrongType", func(t *testing.T) {
		_, recC := newStore(t)
		testTransferWrongType(t, recA, recC)
	})
	t.Run("ReadStops", func(t *testing.T) { testTransferReadStops(t, recA, seed) })
}

// recordTypes is the Go type of each kind's records, as ports documents it.
var recordTypes = map[ports.RecordKind]reflect.Type{
	ports.KindSchools:         reflect.TypeFor[library.School](),
	ports.KindAccounts:        reflect.TypeFor[user.Account](),
	ports.KindSigningKeys:     reflect.TypeFor[ports.SigningKeyRecord](),
	ports.KindRefreshTokens:   reflect.TypeFor[auth.RefreshToken](),
	ports.KindRotations:       reflect.TypeFor[ports.Stamp](),
	ports.KindRevokedFamilies: reflect.TypeFor[ports.Stamp](),
	ports.KindBooks:           reflect.TypeFor[ports.BookRecord](),
	ports.KindReadingList:     reflect.TypeFor[catalog.ListItem](),
	ports.KindProgress:        reflect.TypeFor[catalog.Progress](),
	ports.KindSessions:        reflect.TypeFor[catalog.ReadingSession](),
	ports.KindLibraryBooks:    reflect.TypeFor[library.Book](),
	ports.KindCopies:          reflect.TypeFor[library.Copy](),
	ports.KindLoans:           reflect.TypeFor[library.Loan](),
	ports.KindRenewals:        reflect.TypeFor[library.Renewal](),
	ports.KindClaims:          reflect.TypeFor[library.CopyClaim](),
	ports.KindStudentNumbers:  reflect.TypeFor[ports.StudentNumber](),
	ports.KindInvites:         reflect.TypeFor[library.Invite](),
	ports.KindRedemptions:     reflect.TypeFor[ports.Stamp](),

	ports.KindExternalIdentities: reflect.TypeFor[user.ExternalIdentity](),
	ports.KindMailTokens:         reflect.TypeFor[auth.MailToken](),

	ports.KindNoticeSettings: reflect.TypeFor[ports.NoticeSettingsRecord](),
	ports.KindHomerooms:      reflect.TypeFor[library.Homeroom](),
	ports.KindNotices:        reflect.TypeFor[library.Notice](),
	ports.KindNoticeDays:     reflect.TypeFor[ports.NoticeDay](),
	ports.KindHolds:          reflect.TypeFor[library.Hold](),
	ports.KindHoldQueue:      reflect.TypeFor[library.HoldQueueEntry](),
	ports.KindHoldTraps:      reflect.TypeFor[library.HoldTrap](),
	ports.KindHoldEnds:       reflect.TypeFor[library.HoldEnd](),
	ports.KindLoanEndings:    reflect.TypeFor[library.LoanEnding](),
	ports.KindCharges:        reflect.TypeFor[library.Charge](),
	ports.KindSettlements:    reflect.TypeFor[library.Settlement](),
	ports.KindRollovers:      reflect.TypeFor[roster.Rollover](),
	ports.KindStocktakes:     reflect.TypeFor[library.Stocktake](),
	ports.KindStocktakeScans: reflect.TypeFor[library.StocktakeScan](),
	ports.KindImportJobs:     reflect.TypeFor[library.ImportJob](),
	ports.KindWantToRead:     reflect.TypeFor[library.WantToRead](),
	ports.KindReviews:        reflect.TypeFor[library.Review](),
	ports.KindCovers:         reflect.TypeFor[library.Cover](),
	ports.KindAppLinkChoices: reflect.TypeFor[library.AppLinkChoice](),
	ports.KindFinishedLoans:  reflect.TypeFor[library.FinishedLoan](),
	ports.KindAuditLog:       reflect.TypeFor[library.AuditEntry](),
	ports.KindKiosks:         reflect.TypeFor[library.Kiosk](),
	ports.KindOfflineOps:     reflect.TypeFor[library.OfflineOp](),
}

// --- counts and copy ---

func counts(t *testing.T, rec ports.RecordStore) map[ports.RecordKind]int64 {
	t.Helper()
	c := ctx(t)
	out := make(map[ports.RecordKind]int64, len(ports.RecordKinds))
	for _, kind := range ports.RecordKinds {
		n, err := rec.Count(c, kind)
		must(t, "Count "+string(kind), err)
		out[kind] = n
	}
	return out
}

func testTransferCountSeeded(t *testing.T, rec ports.RecordStore, seed *transferSeed) {
	// Every kind is seeded and typed here, so a kind added to the port
	// without this suite knowing it fails.
	for _, kind := range ports.RecordKinds {
		if _, ok := recordTypes[kind]; !ok {
			t.Errorf("kind %s has no documented type in this suite", kind)
		}
		if seed.counts[kind] < 2 {
			t.Errorf("kind %s: %d records seeded, want at least 2", kind, seed.counts[kind])
		}
	}
	if len(recordTypes) != len(ports.RecordKinds) {
		t.Errorf("this suite knows %d kinds, ports.RecordKinds lists %d", len(recordTypes), len(ports.RecordKinds))
	}
	got := counts(t, rec)
	for _, kind := range ports.RecordKinds {
		if got[kind] != seed.counts[kind] {
			t.Errorf("Count %s = %d, want %d (as seeded)", kind, got[kind], seed.counts[kind])
		}
	}
}

func wantSameCounts(t *testing.T, a, b ports.RecordStore) {
	t.Helper()
	want, got := counts(t, a), counts(t, b)
	for _, kind := range ports.RecordKinds {
		if got[kind] != want[kind] {
			t.Errorf("Count %s in B = %d, want %d as in A", kind, got[kind], want[kind])
		}
	}
}

// testTransferCopy copies A into B as libraryd migrate does: every kind in
// order, read and written in batches, here of two records so that most
// kinds take several.
func testTransferCopy(t *testing.T, a, b ports.RecordStore, seed *transferSeed) {
	const batchSize = 2
	for kind, n := range counts(t, b) {
		if n != 0 {
			t.Fatalf("Count %s of a new store = %d, want 0", kind, n)
		}
	}
	c := ctx(t)
	for _, kind := range ports.RecordKinds {
		want, read, batches := recordTypes[kind], 0, 0
		err := a.Read(c, kind, batchSize, func(records []any) error {
			if len(records) == 0 || len(records) > batchSize {
				return fmt.Errorf("a batch of %d records, want 1 to %d", len(records), batchSize)
			}
			for _, rec := range records {
				if reflect.TypeOf(rec) != want {
					return fmt.Errorf("a record of type %T, want %v", rec, want)
				}
			}
			read += len(records)
			batches++
			return b.Write(c, kind, records)
		})
		must(t, "copy "+string(kind), err)
		if int64(read) != seed.counts[kind] {
			t.Errorf("Read %s gave %d records in %d batches, want %d", kind, read, batches, seed.counts[kind])
		}
	}
}

// testTransferKeysHold checks that B refuses what A would refuse: the
// unique keys and the exactly-once claims came along with the records.
// None of these calls changes a store that keeps its contract.
func testTransferKeysHold(t *testing.T, b ports.Repositories, s *transferSeed) {
	c := ctx(t)
	alder := s.schools[0]

	taken := newAccount(s.librarian.Email)
	taken.SchoolID = alder.ID
	wantErr(t, "Accounts.Create with a copied email", b.Accounts.Create(c, taken), errs.Conflict, "account_exists")
	ro, err := b.Students.Rollover(c, alder.ID, s.rollover.SchoolYear)
	must(t, "Students.Rollover on B", err)
	if !sameTime(ro.At, s.rollover.At) || ro.LeavingGrade != s.rollover.LeavingGrade || ro.Left != 1 {
		t.Errorf("Students.Rollover on B = %+v, want %+v", ro, s.rollover)
	}
	wantErr(t, "Students.ApplyRoster of a copied rollover", b.Students.ApplyRoster(c, roster.RosterChange{SchoolID: alder.ID, Rollover: &s.rollover}), errs.Conflict, "rollover_done")
	twin := newStudent(alder.ID, "Émile Twin", "")
	twin.ExternalID = s.pupil.ExternalID
	wantErr(t, "Students.ApplyRoster with a copied external id", b.Students.ApplyRoster(c, roster.RosterChange{SchoolID: alder.ID, Add: []user.Account{twin}}), errs.Conflict, "external_id_exists")
	wantErr(t, "Schools.Create with a copied domain", b.Schools.Create(c, newSchool("Other", alder.Domain)), errs.Conflict, "school_exists")
	wantErr(t, "RefreshTokens.Create of a copied token", b.RefreshTokens.Create(c, s.tokens[2]), errs.Conflict, "refresh_token_exists")
	wantErr(t, "RefreshTokens.ClaimRotation of a rotated token", b.RefreshTokens.ClaimRotation(c, s.tokens[0].Hash, base), errs.Conflict, "refresh_token_reused")
	key, err := b.SigningKeys.EnsureActive(c, newKey(9))
	must(t, "SigningKeys.EnsureActive", err)
	checkKey(t, "SigningKeys.EnsureActive (the copied active key stays active)", key, s.keys[0])
	wantErr(t, "Books.Create of a copied book", b.Books.Create(c, s.books[1], s.texts[1]), errs.Conflict, "book_exists")

	item := s.items[1]
	item.ID = newID(catalog.ListItemIDPrefix)
	got, created, err := b.ReadingLists.Add(c, item)
	must(t, "ReadingLists.Add of a listed book", err)
	if created || got.ID != s.items[1].ID {
		t.Errorf("ReadingLists.Add of a listed book = item %s, created %v; want the copied item %s, not created", got.ID, created, s.items[1].ID)
	}
	wantErr(t, "Progress.RecordSession of a copied session", b.Progress.RecordSession(c, s.sessions[0]), errs.Conflict, "session_exists")

	wantErr(t, "Holdings.CreateBook with a copied ISBN", b.Holdings.CreateBook(c, newLibBook(alder.ID, s.libBooks[0].ISBN, "Matilda again")), errs.Conflict, "isbn_exists")
	dups, err := b.Holdings.CreateCopies(c, []library.Copy{newCopy(alder.ID, s.libBooks[0].ID, s.copies[0].Code)})
	must(t, "Holdings.CreateCopies with a copied code", err)
	checkEqual(t, "Holdings.CreateCopies with a copied code: duplicates", dups, []int{0})
	steal := library.CopyClaim{CopyID: s.open.CopyID, LoanID: s.incomplete.ID, SchoolID: alder.ID, BookID: s.open.BookID, ClaimedAt: base}
	wantErr(t, "ActiveLoans.Claim of a copy a copied claim holds", b.ActiveLoans.Claim(c, steal), errs.Conflict, "copy_claimed")
	wantErr(t, "Loans.AddRenewal of a copied number", b.Loans.AddRenewal(c, s.renewals[1]), errs.Conflict, "renewal_exists")

	wantErr(t, "Students.ClaimNumber of a copied number in another case", b.Students.ClaimNumber(c, alder.ID, strings.ToLower(s.pupil.StudentNumber), s.student.ID), errs.Conflict, "student_number_exists")
	for i := range s.redeemedAt {
		wantErr(t, fmt.Sprintf("Invites.Redeem of copied redeemed invite #%d", i), b.Invites.Redeem(c, s.invites[i].TokenHash, base.Add(99*time.Hour)), errs.Conflict, "invite_used")
	}

	// A copied subject names its account only, and the account has one
	// subject per issuer.
	other := s.links[0]
	other.AccountID = s.reader.ID
	wantErr(t, "ExternalIdentities.Link of a copied subject to another account", b.ExternalIdentities.Link(c, other), errs.Conflict, "external_identity_exists")
	second := s.links[2]
	second.Subject = "emile-0043"
	wantErr(t, "ExternalIdentities.Link of a second subject of a copied account's issuer", b.ExternalIdentities.Link(c, second), errs.Conflict, "external_identity_exists")
	wantErr(t, "MailTokens.Create of a copied token", b.MailTokens.Create(c, s.mailTokens[0]), errs.Conflict, "mail_token_exists")

	again := library.HoldQueueEntry{HoldID: uuid.NewString(), SchoolID: alder.ID, BookID: s.holds[0].BookID, StudentID: s.holds[0].StudentID, PlacedAt: base}
	wantErr(t, "Holds.Enqueue of a copied open hold's student and book", b.Holds.Enqueue(c, again), errs.Conflict, "hold_exists")
	steal2 := s.holdTraps[0]
	steal2.HoldID = s.holds[1].ID
	wantErr(t, "Holds.Trap of a copied trap's copy", b.Holds.Trap(c, steal2), errs.Conflict, "hold_trapped")
	wantErr(t, "Holds.End of a copied outcome", b.Holds.End(c, library.HoldEnd{HoldID: s.holds[2].ID, Outcome: library.HoldExpired, EndedAt: base}), errs.Conflict, "hold_ended")

	twinKiosk := s.kiosks[1]
	twinKiosk.ID, twinKiosk.SchoolID = uuid.NewString(), alder.ID
	wantErr(t, "Kiosks.CreateKiosk with a copied login", b.Kiosks.CreateKiosk(c, twinKiosk), errs.Conflict, "kiosk_login_taken")

	for _, op := range s.offlineOps {
		if claimAlone(t, b, "OfflineOps.ClaimOfflineOps of a copied scan", op) {
			t.Fatal("OfflineOps.ClaimOfflineOps of a copied scan won it")
		}
	}
}

// errStop is what the suite's read callbacks return to stop a read.
var errStop = errors.New("porttest: stop reading")

// firstBatch returns the first batch of kind that rec reads.
func firstBatch(t *testing.T, c context.Context, rec ports.RecordStore, kind ports.RecordKind, batchSize int) []any {
	t.Helper()
	var first []any
	err := rec.Read(c, kind, batchSize, func(records []any) error {
		first = records
		return errStop
	})
	if !errors.Is(err, errStop) {
		t.Fatalf("Read %s stopped by its callback: %v, want the callback's error", kind, err)
	}
	return first
}

func wantKind(t *testing.T, call string, err error, kind errs.Kind) {
	t.Helper()
	if got := errs.KindOf(err); got != kind {
		t.Errorf("%s: kind = %q (err %v), want %q", call, got, err, kind)
	}
}

// testTransferWriteTwice writes records of every kind that B already holds
// (copied from A): each is refused as a Conflict and nothing is added.
func testTransferWriteTwice(t *testing.T, a, b ports.RecordStore) {
	c := ctx(t)
	for _, kind := range ports.RecordKinds {
		batch := firstBatch(t, c, a, kind, 2)
		wantKind(t, "Write "+string(kind)+" again", b.Write(c, kind, batch), errs.Conflict)
	}
	wantSameCounts(t, a, b)
}

// testTransferWrongType writes, for every kind, a record of another kind,
// a pointer to a record of the kind, nil and a string: each is Invalid and
// nothing is stored.
func testTransferWrongType(t *testing.T, a, empty ports.RecordStore) {
	c := ctx(t)
	samples := make([]any, len(ports.RecordKinds))
	for i, kind := range ports.RecordKinds {
		samples[i] = firstBatch(t, c, a, kind, 1)[0]
	}
	for i, kind := range ports.RecordKinds {
		var other any
		for j := 1; j < len(samples) && other == nil; j++ {
			if s := samples[(i+j)%len(samples)]; reflect.TypeOf(s) != reflect.TypeOf(samples[i]) {
				other = s
			}
		}
		ptr := reflect.New(reflect.TypeOf(samples[i]))
		ptr.Elem().Set(reflect.ValueOf(samples[i]))
		for _, bad := range []any{other, ptr.Interface(), nil, "record"} {
			wantKind(t, fmt.Sprintf("Write %s of a %T", kind, bad), empty.Write(c, kind, []any{bad}), errs.Invalid)
		}
	}
	for kind, n := range counts(t, empty) {
		if n != 0 {
			t.Errorf("Count %s after writes of the wrong type = %d, want 0", kind, n)
		}
	}
}

// testTransferReadStops reads every kind one record at a time with a
// callback that fails: the read stops after the first batch and returns
// the callback's error.
func testTransferReadStops(t *testing.T, a ports.RecordStore, s *transferSeed) {
	c := ctx(t)
	for _, kind := range ports.RecordKinds {
		calls := 0
		err := a.Read(c, kind, 1, func([]any) error {
			calls++
			return errStop
		})
		if !errors.Is(err, errStop) {
			t.Errorf("Read %s with a failing callback = %v, want the callback's error", kind, err)
		}
		if calls != 1 {
			t.Errorf("Read %s with a failing callback called it %d times (of %d records), want 1", kind, calls, s.counts[kind])
		}
	}
}
