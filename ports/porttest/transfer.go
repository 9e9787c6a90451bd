package porttest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
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
	ports.KindRollovers:      reflect.TypeFor[library.Rollover](),
	ports.KindStocktakes:     reflect.TypeFor[library.Stocktake](),
	ports.KindStocktakeScans: reflect.TypeFor[library.StocktakeScan](),
	ports.KindImportJobs:     reflect.TypeFor[library.ImportJob](),
}

// transferSeed is what seedTransfer stored in store A.
type transferSeed struct {
	schools []library.School // by name: Alder (settings saved), Birch

	// Accounts of school Alder unless said otherwise.
	librarian user.Account // updated after creation
	gone      user.Account // staff, marked deleted
	pupil     user.Account // student without an email, with a number
	student   user.Account // student with an email and a number
	reader    user.Account // no school
	accounts  []user.Account

	keys []auth.SigningKey // the active one first, then the retired one

	tokens    []auth.RefreshToken // 0, 1: family 0, both rotated; 2: family 1; 3: family 2
	rotatedAt []time.Time         // of tokens 0 and 1
	families  []string            // 0 not revoked, 1 and 2 revoked

	books []catalog.Book // The Lantern Harbour (three chapters), Winter Orchard (two)
	texts [][]catalog.ChapterText

	items    []catalog.ListItem       // the student's, of books 0 and 1
	progress []catalog.Progress       // the student's: book 0 unfinished, book 1 finished
	sessions []catalog.ReadingSession // two of book 0, one of book 1

	libBooks []library.Book // Alder's Matilda (ISBN), Alder's Pippi (no ISBN), Birch's Matilda
	copies   []library.Copy // two of Matilda, one of Pippi, all Alder's

	open       library.Loan // copy 0 to the student, claimed
	returned   library.Loan // copy 1 to the pupil, returned, renewed twice, its claim left behind
	incomplete library.Loan // copy 2 to the student, never claimed
	renewals   []library.Renewal
	claims     []library.CopyClaim // of copies 0 and 1
	numbers    []ports.StudentNumber

	invites    []library.Invite // 0 and 1 redeemed, 2 not
	redeemedAt []time.Time

	links      []user.ExternalIdentity // the student at two issuers, the pupil at one
	mailTokens []auth.MailToken        // a reset of the student's password, a sign-up
	usedToken  auth.MailToken          // the librarian's reset, used: not a record

	noticeSettings []library.NoticeSettings // of Alder and of Birch
	homerooms      []library.Homeroom       // two of Alder's
	notices        []library.Notice         // about the open loan: one sent, one not yet
	noticeDays     []string                 // Alder's finished days
	// holds: 0 the student's on Pippi, waiting with copy 2 put aside; 1 the
	// pupil's on Matilda, waiting; 2 the pupil's on Pippi, cancelled; 3 the
	// student's on Matilda, fulfilled.
	holds       []library.Hold
	holdTraps   []library.HoldTrap
	endings     []library.LoanEnding // of the returned and the incomplete loan
	charges     []library.Charge     // the pupil's for the returned loan (settled), the student's for the open one
	settlements []library.Settlement // of both charges
	rollover    library.Rollover     // Alder's, which took the pupil off the roll and gave them an external id
	stocktakes  []library.Stocktake  // a closed one of a range, an open one of the whole collection
	scans       []library.StocktakeScan
	importJobs  []library.ImportJob // a finished one and a running one of Alder

	counts map[ports.RecordKind]int64
}

// seedTransfer stores records of every kind in A through its repositories,
// at least two of each so that reads in batches of one stop early.
func seedTransfer(t *testing.T, r ports.Repositories, rec ports.RecordStore) *transferSeed {
	t.Helper()
	c := ctx(t)
	s := &transferSeed{}

	alder, birch := newSchool("Alder School", "alder.example.org"), newSchool("Birch School", "birch.example.org")
	birch.CreatedAt = base.Add(time.Hour)
	must(t, "Create school", r.Schools.Create(c, alder))
	must(t, "Create school", r.Schools.Create(c, birch))
	alder.Settings = library.Settings{DefaultLoanDays: 14, MaxRenewals: 2, RenewalDays: 7, AllowPublicCatalog: true,
		MaxCopiesPerBook: 250, MaxCopiesPerSchool: 7000, Timezone: "Europe/Dublin", HoldPickupDays: 12, ReadingLevelCheck: library.ReadingCheckBlock}
	must(t, "SaveSettings", r.Schools.SaveSettings(c, alder.ID, alder.Settings))
	alder.Calendar = library.Calendar{ClosedWeekdays: []time.Weekday{time.Saturday, time.Sunday},
		Closures: []library.Closure{{From: "2026-12-21", To: "2027-01-03", Name: "Winter break"}}, TermEnds: []string{"2026-12-18", "2027-03-26"}}
	must(t, "SaveCalendar", r.Schools.SaveCalendar(c, alder.ID, alder.Calendar))
	alder.LoanRules = []library.LoanRule{{Patron: "grade:7", Category: library.CategoryStandard, LoanDays: 10, Renewals: 1, MaxItems: 2},
		{Patron: "students", Category: library.CategoryShort, LoanDays: 3, Renewals: 0, MaxItems: 1}}
	must(t, "SaveLoanRules", r.Schools.SaveLoanRules(c, alder.ID, alder.LoanRules))
	s.schools = []library.School{alder, birch}

	s.librarian = newAccount("librarian@alder.example.org")
	s.librarian.SchoolID, s.librarian.Suspended, s.librarian.Deleted, s.librarian.StudentNumber = alder.ID, false, false, ""
	s.gone = newAccount("gone@alder.example.org")
	s.gone.SchoolID, s.gone.Role, s.gone.Name, s.gone.StudentNumber = alder.ID, user.RoleStaff, "Grace Hopper", ""
	s.pupil = newStudent(alder.ID, "Émile Zola", "AB-7")
	s.student = newStudent(alder.ID, "Lena Grove", "2024-017")
	s.student.Email, s.student.CreatedAt = "lena@alder.example.org", base.Add(time.Minute)
	s.reader = newAccount("reader@example.org")
	s.reader.SchoolID, s.reader.Role, s.reader.Name, s.reader.StudentNumber = "", user.RoleReader, "Ruth Reader", ""
	s.reader.Suspended, s.reader.Deleted, s.reader.Tier = false, false, user.TierStandard
	s.accounts = []user.Account{s.librarian, s.gone, s.pupil, s.student, s.reader}
	for _, a := range s.accounts {
		must(t, "Create account "+a.Name, r.Accounts.Create(c, a))
	}
	s.librarian.Name, s.librarian.UpdatedAt = "Ada King", base.Add(3*time.Hour)
	must(t, "Update account", r.Accounts.Update(c, s.librarian))
	s.accounts[0] = s.librarian
	before := s.pupil
	s.pupil.ExternalID, s.pupil.Inactive, s.pupil.UpdatedAt = "SIS-7", true, base.Add(4*time.Hour)
	s.rollover = library.Rollover{SchoolID: alder.ID, SchoolYear: "2025-2026", LeavingGrade: "12", Promoted: 0, Left: 1, At: base.Add(4 * time.Hour)}
	must(t, "Students.ApplyRoster", r.Students.ApplyRoster(c, library.RosterChange{SchoolID: alder.ID,
		Changed: []user.Account{s.pupil}, Before: []user.Account{before}, Rollover: &s.rollover}))
	s.accounts[2] = s.pupil
	birchYear := library.Rollover{SchoolID: s.schools[1].ID, SchoolYear: "2025", LeavingGrade: "Year 6", Promoted: 3, Left: 2, At: base.Add(5 * time.Hour)}
	must(t, "Students.ApplyRoster (Birch)", r.Students.ApplyRoster(c, library.RosterChange{SchoolID: birchYear.SchoolID, Rollover: &birchYear}))

	// The repositories only ever store the active key (EnsureActive); a
	// retired key, still needed to verify the tokens it signed, exists only
	// in a store whose keys were rotated by hand, so it is written as a
	// record.
	active, retired := newKey(1), newKey(0)
	got, err := r.SigningKeys.EnsureActive(c, active)
	must(t, "EnsureActive", err)
	if !sameKey(got, active) {
		t.Fatalf("EnsureActive on an empty store = %s, want its candidate %s", got.ID, active.ID)
	}
	must(t, "Write a retired signing key", rec.Write(c, ports.KindSigningKeys, []any{ports.SigningKeyRecord{Key: retired}}))
	s.keys = []auth.SigningKey{active, retired}

	s.families = []string{uuid.NewString(), uuid.NewString(), uuid.NewString()}
	for i, owner := range []user.Account{s.librarian, s.librarian, s.student, s.pupil} {
		tok := newToken(owner.ID, s.families[max(i-1, 0)])
		tok.IssuedAt = base.Add(time.Duration(i) * time.Hour)
		must(t, "Create refresh token", r.RefreshTokens.Create(c, tok))
		s.tokens = append(s.tokens, tok)
	}
	for i := range 2 {
		at := base.Add(time.Duration(i)*time.Hour + 30*time.Minute)
		must(t, "ClaimRotation", r.RefreshTokens.ClaimRotation(c, s.tokens[i].Hash, at))
		s.rotatedAt = append(s.rotatedAt, at)
	}
	for i, family := range s.families[1:] {
		must(t, "RevokeFamily", r.RefreshTokens.RevokeFamily(c, family, base.Add(time.Duration(5+i)*time.Hour)))
	}

	lantern, lanternTexts, err := catalog.NewBook(newID(catalog.BookIDPrefix), catalog.BookDraft{
		Title: "The Lantern Harbour", Author: "Mara Quill", Genre: "adventure", ReadingLevel: user.LevelBeginner,
		Pages: 60, Rating: 4.2, PublishedDate: "2021-09-30", ISBN: "978-0-00-000000-2", Language: "en",
		Access: catalog.AccessPremium, Description: "Three nights at sea.",
		Chapters: []catalog.ChapterDraft{
			{Title: "Fog", PageStart: 1, PageEnd: 20, Text: "The fog came in before the boats."},
			{Title: "Light", PageStart: 21, PageEnd: 40, Text: "Someone had lit the old lantern again."},
			{Title: "Home", PageStart: 41, PageEnd: 60, Text: "By morning the harbour was full."},
		},
	}, newID, base)
	must(t, "NewBook", err)
	orchard, orchardTexts := makeBook(t, newID(catalog.BookIDPrefix), bookSpec{title: "Winter Orchard", author: "Ivo Brandt", rating: 3.9, published: "2018-01-15"})
	s.books = []catalog.Book{lantern, orchard}
	s.texts = [][]catalog.ChapterText{lanternTexts, orchardTexts}
	for i, b := range s.books {
		must(t, "Create book "+b.Title, r.Books.Create(c, b, s.texts[i]))
	}

	for i, b := range s.books {
		item := newItem(s.student.ID, b.ID, catalog.WantToRead, base.Add(time.Duration(i)*time.Minute))
		_, created, err := r.ReadingLists.Add(c, item)
		must(t, "Add to the reading list", err)
		if !created {
			t.Fatalf("Add %s to an empty list: not created", b.ID)
		}
		s.items = append(s.items, item)
	}
	// A second Add of a listed book updates the stored item.
	again := newItem(s.student.ID, lantern.ID, catalog.CurrentlyReading, base.Add(time.Hour))
	again.Priority = catalog.PriorityHigh
	updated, _, err := r.ReadingLists.Add(c, again)
	must(t, "Add a listed book again", err)
	s.items[0] = updated

	s.progress = []catalog.Progress{
		{AccountID: s.student.ID, BookID: lantern.ID, PageNumber: 25, Percentage: 41.5, MaxPage: 30, MaxPercentage: 50, LastRead: base.Add(2 * time.Hour)},
		{AccountID: s.student.ID, BookID: orchard.ID, PageNumber: 30, Percentage: 100, MaxPage: 30, MaxPercentage: 100, LastRead: base.Add(3 * time.Hour), CompletedAt: base.Add(3 * time.Hour)},
	}
	for _, p := range s.progress {
		must(t, "Save progress", r.Progress.Save(c, p))
	}
	s.sessions = []catalog.ReadingSession{
		newSession(s.student.ID, lantern.ID, base.Add(90*time.Minute), 300),
		newSession(s.student.ID, lantern.ID, base.Add(2*time.Hour), 120),
		newSession(s.student.ID, orchard.ID, base.Add(3*time.Hour), 600),
	}
	for _, x := range s.sessions {
		must(t, "RecordSession", r.Progress.RecordSession(c, x))
	}

	matilda := newLibBook(alder.ID, "9780140328721", "Matilda")
	matilda.Author = "Roald Dahl"
	matilda.BookDetails = fullDetails()
	pippi := newLibBook(alder.ID, "", "Pippi Långstrump")
	pippi.PriceCents = 1299
	pippi.LoanCategory = library.CategoryReference
	birchMatilda := newLibBook(birch.ID, "9780140328721", "Matilda")
	birchMatilda.Author = "Roald Dahl"
	s.libBooks = []library.Book{matilda, pippi, birchMatilda}
	for _, b := range s.libBooks {
		must(t, "CreateBook "+b.Title, r.Holdings.CreateBook(c, b))
	}
	s.copies = []library.Copy{newCopy(alder.ID, matilda.ID, "MAT-001"), newCopy(alder.ID, matilda.ID, "MAT-002"), newCopy(alder.ID, pippi.ID, "PIP-001")}
	dups, err := r.Holdings.CreateCopies(c, s.copies)
	must(t, "CreateCopies", err)
	if len(dups) != 0 {
		t.Fatalf("CreateCopies into an empty store: duplicate codes at %v", dups)
	}

	loanOf := func(cp library.Copy, b library.Book, student user.Account, at time.Time) library.Loan {
		l := newLoan(alder.ID, student.ID, b.ID, at)
		l.CopyID, l.CopyCode, l.BookTitle, l.BookAuthor = cp.ID, cp.Code, b.Title, b.Author
		return l
	}
	s.open = loanOf(s.copies[0], matilda, s.student, base.Add(24*time.Hour))
	s.returned = loanOf(s.copies[1], matilda, s.pupil, base)
	s.incomplete = loanOf(s.copies[2], pippi, s.student, base.Add(48*time.Hour))
	for _, l := range []library.Loan{s.open, s.returned, s.incomplete} {
		must(t, "Insert loan", r.Loans.Insert(c, l))
	}
	for _, l := range []library.Loan{s.open, s.returned} {
		claim := library.CopyClaim{CopyID: l.CopyID, LoanID: l.ID, SchoolID: alder.ID, BookID: l.BookID, ClaimedAt: l.LoanedAt}
		must(t, "Claim", r.ActiveLoans.Claim(c, claim))
		s.claims = append(s.claims, claim)
	}
	s.renewals = []library.Renewal{
		{LoanID: s.returned.ID, Number: 1, DueAt: "2025-04-04", RenewedAt: base.Add(10 * 24 * time.Hour)},
		{LoanID: s.returned.ID, Number: 2, DueAt: "2025-04-11", RenewedAt: base.Add(17 * 24 * time.Hour)},
		{LoanID: s.open.ID, Number: 1, DueAt: "2025-04-12", RenewedAt: base.Add(30 * 24 * time.Hour)},
	}
	for _, rn := range s.renewals {
		must(t, "AddRenewal", r.Loans.AddRenewal(c, rn))
	}
	// Returned without releasing its claim, as after a crash between the
	// two: the claim is stale and must be copied as it is.
	s.returned.ReturnedAt = base.Add(20 * 24 * time.Hour)
	must(t, "MarkReturned", r.Loans.MarkReturned(c, s.returned.ID, s.returned.ReturnedAt))

	s.numbers = []ports.StudentNumber{
		{SchoolID: alder.ID, Number: s.pupil.StudentNumber, AccountID: s.pupil.ID},
		{SchoolID: alder.ID, Number: s.student.StudentNumber, AccountID: s.student.ID},
	}
	for _, n := range s.numbers {
		must(t, "ClaimNumber", r.Students.ClaimNumber(c, n.SchoolID, n.Number, n.AccountID))
	}

	for i, owner := range []user.Account{s.librarian, s.gone, s.librarian} {
		inv := library.Invite{TokenHash: auth.HashToken(uuid.NewString()), AccountID: owner.ID,
			ExpiresAt: base.Add(time.Duration(72+i) * time.Hour), CreatedAt: base.Add(time.Duration(i) * time.Minute)}
		must(t, "Create invite", r.Invites.Create(c, inv))
		s.invites = append(s.invites, inv)
	}
	for i := range 2 {
		at := base.Add(time.Duration(i+1) * time.Hour)
		must(t, "Redeem", r.Invites.Redeem(c, s.invites[i].TokenHash, at))
		s.redeemedAt = append(s.redeemedAt, at)
	}

	s.links = []user.ExternalIdentity{
		{Issuer: issuerA, Subject: "lena-7731", AccountID: s.student.ID, CreatedAt: base.Add(4 * time.Hour)},
		{Issuer: issuerB, Subject: "lena-7731", AccountID: s.student.ID, CreatedAt: base.Add(5 * time.Hour)},
		{Issuer: issuerA, Subject: "emile-0042", AccountID: s.pupil.ID, CreatedAt: base.Add(6 * time.Hour)},
	}
	for _, l := range s.links {
		must(t, "Link "+l.Subject, r.ExternalIdentities.Link(c, l))
	}
	s.mailTokens = []auth.MailToken{newResetToken(s.student.ID), newSignupToken("mia@birch.example.org")}
	s.usedToken = newResetToken(s.librarian.ID)
	for _, tok := range append(slices.Clone(s.mailTokens), s.usedToken) {
		must(t, "MailTokens.Create", r.MailTokens.Create(c, tok))
	}
	_, err = r.MailTokens.Consume(c, s.usedToken.Hash, s.usedToken.Purpose, base.Add(time.Minute))
	must(t, "MailTokens.Consume", err)

	s.noticeSettings = []library.NoticeSettings{
		{Enabled: true, SendAt: "06:45", DueSoonDays: 3, OverdueSteps: []int{2, 9}},
		{Enabled: false, SendAt: "18:00", DueSoonDays: 0, OverdueSteps: []int{}},
	}
	for i, set := range s.noticeSettings {
		must(t, "Notices.SaveSettings", r.Notices.SaveSettings(c, s.schools[i].ID, set))
	}
	s.homerooms = []library.Homeroom{
		{SchoolID: alder.ID, Name: "4B", TeacherName: "Mr Oduya", TeacherEmail: "oduya@alder.example.org"},
		{SchoolID: alder.ID, Name: "5A", TeacherName: "", TeacherEmail: "five-a@alder.example.org"},
	}
	must(t, "ReplaceHomerooms", r.Homerooms.ReplaceHomerooms(c, alder.ID, s.homerooms))
	s.notices = []library.Notice{
		{Key: library.NoticeKey(s.open.ID, library.NoticeDueSoon, "2025-04-12", 0, "2025-04-10"), SchoolID: alder.ID, SubjectID: s.open.ID,
			StudentID: s.student.ID, Kind: library.NoticeDueSoon, DueAt: "2025-04-12", Day: "2025-04-10", Recipient: s.student.Email,
			ClaimedAt: base.Add(40 * 24 * time.Hour)},
		{Key: library.NoticeKey(s.open.ID, library.NoticeOverdue, "2025-04-12", 2, "2025-04-14"), SchoolID: alder.ID, SubjectID: s.open.ID,
			StudentID: s.student.ID, Kind: library.NoticeOverdue, Step: 2, DueAt: "2025-04-12", Day: "2025-04-14", Recipient: s.student.Email,
			ClaimedAt: base.Add(44 * 24 * time.Hour)},
	}
	won, err := r.Notices.Claim(c, s.notices)
	must(t, "Notices.Claim", err)
	if len(won) != 2 {
		t.Fatalf("Notices.Claim into an empty store: won %v, want both", won)
	}
	s.notices[0].SentAt = base.Add(40*24*time.Hour + time.Minute)
	must(t, "Notices.MarkSent", r.Notices.MarkSent(c, []string{s.notices[0].Key}, s.notices[0].SentAt))
	s.noticeDays = []string{"2025-04-10", "2025-04-14"}
	for _, day := range s.noticeDays {
		must(t, "Notices.FinishDay", r.Notices.FinishDay(c, alder.ID, day))
	}
	for i, h := range []struct {
		student user.Account
		book    library.Book
	}{{s.student, pippi}, {s.pupil, matilda}, {s.pupil, pippi}, {s.student, matilda}} {
		hold := library.Hold{ID: uuid.NewString(), SchoolID: alder.ID, BookID: h.book.ID, StudentID: h.student.ID, PlacedAt: base.Add(time.Duration(i) * time.Hour)}
		must(t, "Holds.Insert", r.Holds.Insert(c, hold))
		s.holds = append(s.holds, hold)
		if i < 2 {
			must(t, "Holds.Enqueue", r.Holds.Enqueue(c, library.HoldQueueEntry{HoldID: hold.ID, SchoolID: alder.ID, BookID: hold.BookID,
				StudentID: hold.StudentID, PlacedAt: hold.PlacedAt}))
		}
	}
	s.holdTraps = []library.HoldTrap{
		{CopyID: s.copies[2].ID, CopyCode: s.copies[2].Code, HoldID: s.holds[0].ID, SchoolID: alder.ID, BookID: pippi.ID, StudentID: s.student.ID,
			TrappedAt: base.Add(5 * time.Hour), ExpiresAt: base.Add(7 * 24 * time.Hour)},
		// Left behind by an ended hold, as after a crash mid-way: copied as it is.
		{CopyID: s.copies[1].ID, CopyCode: s.copies[1].Code, HoldID: s.holds[3].ID, SchoolID: alder.ID, BookID: matilda.ID, StudentID: s.student.ID,
			TrappedAt: base.Add(6 * time.Hour), ExpiresAt: base.Add(8 * 24 * time.Hour)},
	}
	for _, tr := range s.holdTraps {
		must(t, "Holds.Trap", r.Holds.Trap(c, tr))
	}
	must(t, "Holds.End", r.Holds.End(c, library.HoldEnd{HoldID: s.holds[2].ID, Outcome: library.HoldCancelled, EndedAt: base.Add(9 * time.Hour)}))
	must(t, "Holds.End", r.Holds.End(c, library.HoldEnd{HoldID: s.holds[3].ID, Outcome: library.HoldFulfilled, EndedAt: base.Add(10 * time.Hour)}))
	// Copy 2 is lost on the incomplete loan's record; charges of both
	// real loans, both settled.
	must(t, "SetCopyCondition", r.Holdings.SetCopyCondition(c, alder.ID, s.copies[2].ID,
		library.CopyCondition{Condition: library.ConditionLost, Note: "bus", LoanID: s.incomplete.ID, At: base.Add(time.Hour)}))
	s.copies[2].Condition = library.CopyCondition{Condition: library.ConditionLost, Note: "bus", LoanID: s.incomplete.ID, At: base.Add(time.Hour)}
	s.endings = []library.LoanEnding{
		{LoanID: s.returned.ID, Outcome: library.OutcomeClaimsReturned, At: base.Add(2 * time.Hour)},
		{LoanID: s.incomplete.ID, Outcome: library.OutcomeLost, At: base.Add(3 * time.Hour)},
	}
	for _, e := range s.endings {
		must(t, "Loans.ClaimEnding", r.Loans.ClaimEnding(c, e))
	}
	for i, l := range []library.Loan{s.returned, s.open} {
		ch := library.Charge{ID: library.ChargeID(l.ID, library.ChargeDamage), SchoolID: alder.ID, StudentID: l.StudentID, LoanID: l.ID,
			CopyID: l.CopyID, BookID: l.BookID, BookTitle: l.BookTitle, Kind: library.ChargeDamage, AmountCents: int64(250 * (i + 1)),
			Currency: "EUR", Note: "torn", CreatedAt: base.Add(time.Duration(i) * time.Hour), Status: library.ChargeOpen}
		must(t, "Charges.Insert", r.Charges.Insert(c, ch))
		st := library.Settlement{ChargeID: ch.ID, SchoolID: alder.ID, Outcome: []string{library.ChargePaid, library.ChargeWaived}[i],
			Note: "desk", By: s.librarian.ID, SettledAt: base.Add(time.Duration(i+1) * time.Hour)}
		must(t, "Charges.Settle", r.Charges.Settle(c, st))
		if i == 0 {
			must(t, "Charges.SetStatus", r.Charges.SetStatus(c, ch.ID, st.Outcome))
			ch.Status = st.Outcome
		}
		s.charges, s.settlements = append(s.charges, ch), append(s.settlements, st)
	}
	s.stocktakes = []library.Stocktake{
		{ID: uuid.NewString(), SchoolID: alder.ID, From: "500", To: "599", OpenedBy: s.librarian.ID, OpenedAt: base.Add(time.Hour),
			ClosedAt: base.Add(2 * time.Hour)},
		{ID: uuid.NewString(), SchoolID: alder.ID, OpenedBy: s.librarian.ID, OpenedAt: base.Add(3 * time.Hour)},
	}
	for _, st := range s.stocktakes {
		must(t, "Stocktakes.Create", r.Stocktakes.Create(c, st))
	}
	must(t, "Stocktakes.Close", r.Stocktakes.Close(c, alder.ID, s.stocktakes[0].ID, s.stocktakes[0].ClosedAt))
	for i, cp := range s.copies[:2] {
		sc := library.StocktakeScan{StocktakeID: s.stocktakes[i].ID, CopyID: cp.ID, SchoolID: cp.SchoolID, BookID: cp.BookID,
			Code: cp.Code, By: s.librarian.ID, ScannedAt: base.Add(time.Duration(i+1) * time.Hour)}
		must(t, "Stocktakes.AddScan", r.Stocktakes.AddScan(c, sc))
		s.scans = append(s.scans, sc)
	}

	s.importJobs = []library.ImportJob{
		{ID: uuid.NewString(), SchoolID: alder.ID, Kind: library.JobKindHoldingsImport, State: library.ImportJobRunning, Format: "marcxml", Records: 20000,
			StartedBy: s.librarian.ID, StartedAt: base.Add(4 * time.Hour), LeaseUntil: base.Add(5 * time.Hour)},
		{ID: uuid.NewString(), SchoolID: alder.ID, Kind: library.JobKindRosterSync, State: library.ImportJobRunning, Format: "csv", Records: 3,
			StartedBy: s.librarian.ID, StartedAt: base.Add(2 * time.Hour), LeaseUntil: base.Add(3 * time.Hour)},
	}
	must(t, "ImportJobs.Start", r.ImportJobs.Start(c, s.importJobs[1]))
	s.importJobs[1].State, s.importJobs[1].Outcome, s.importJobs[1].FinishedAt = library.ImportJobDone, []byte(`{"roster":{}}`), base.Add(150*time.Minute)
	must(t, "ImportJobs.Finish", r.ImportJobs.Finish(c, s.importJobs[1]))
	must(t, "ImportJobs.Start", r.ImportJobs.Start(c, s.importJobs[0]))

	s.counts = map[ports.RecordKind]int64{
		ports.KindImportJobs:     2,
		ports.KindNoticeSettings: 2, ports.KindHomerooms: 2, ports.KindNotices: 2, ports.KindNoticeDays: 2,
		ports.KindSchools: 2, ports.KindAccounts: 5, ports.KindSigningKeys: 2,
		ports.KindRefreshTokens: 4, ports.KindRotations: 2, ports.KindRevokedFamilies: 2,
		ports.KindBooks: 2, ports.KindReadingList: 2, ports.KindProgress: 2, ports.KindSessions: 3,
		ports.KindLibraryBooks: 3, ports.KindCopies: 3, ports.KindLoans: 3, ports.KindRenewals: 3,
		ports.KindClaims: 2, ports.KindStudentNumbers: 2, ports.KindInvites: 3, ports.KindRedemptions: 2,
		ports.KindExternalIdentities: 3, ports.KindMailTokens: 2,
		ports.KindHolds: 4, ports.KindHoldQueue: 2, ports.KindHoldTraps: 2, ports.KindHoldEnds: 2,
		ports.KindLoanEndings: 2, ports.KindCharges: 2, ports.KindSettlements: 2,
		ports.KindRollovers:  2,
		ports.KindStocktakes: 2, ports.KindStocktakeScans: 2,
	}
	return s
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

// --- reading B back ---

// same calls get on A and on B, checks B's answer against A's, and returns
// B's for checks against what seedTransfer stored.
func same[T any](t *testing.T, call string, a, b ports.Repositories, get func(r ports.Repositories) (T, error), check func(t *testing.T, call string, got, want T)) T {
	t.Helper()
	want, err := get(a)
	must(t, call+" on A", err)
	got, err := get(b)
	must(t, call+" on B", err)
	check(t, call+" on B (compared with A)", got, want)
	return got
}

// inOrder checks slices element by element with check.
func inOrder[T any](check func(t *testing.T, call string, got, want T)) func(t *testing.T, call string, got, want []T) {
	return func(t *testing.T, call string, got, want []T) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s = %d results, want %d:\n got %+v\nwant %+v", call, len(got), len(want), got, want)
		}
		for i := range got {
			check(t, fmt.Sprintf("%s[%d]", call, i), got[i], want[i])
		}
	}
}

// anyOrder checks slices as sets: both sorted by key, then inOrder.
func anyOrder[T any](key func(T) string, check func(t *testing.T, call string, got, want T)) func(t *testing.T, call string, got, want []T) {
	return func(t *testing.T, call string, got, want []T) {
		t.Helper()
		g, w := slices.Clone(got), slices.Clone(want)
		byKey := func(x, y T) int { return strings.Compare(key(x), key(y)) }
		slices.SortFunc(g, byKey)
		slices.SortFunc(w, byKey)
		inOrder(check)(t, call, g, w)
	}
}

func checkEqual[T any](t *testing.T, call string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %+v, want %+v", call, got, want)
	}
}

func checkTime(t *testing.T, call string, got, want time.Time) {
	t.Helper()
	if !sameTime(got, want) {
		t.Errorf("%s = %v, want %v (at ms precision)", call, got, want)
	}
}

func checkKey(t *testing.T, call string, got, want auth.SigningKey) {
	t.Helper()
	if !sameKey(got, want) {
		t.Errorf("%s = key %s (%s, %q, %v), want %s (%s, %q, %v)", call,
			got.ID, got.Algorithm, got.PrivateKeyPEM, got.CreatedAt, want.ID, want.Algorithm, want.PrivateKeyPEM, want.CreatedAt)
	}
}

func checkRenewal(t *testing.T, call string, got, want library.Renewal) {
	t.Helper()
	checkTime(t, call+" RenewedAt", got.RenewedAt, want.RenewedAt)
	got.RenewedAt = want.RenewedAt
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func checkInvite(t *testing.T, call string, got, want library.Invite) {
	t.Helper()
	if !sameTime(got.ExpiresAt, want.ExpiresAt) || !sameTime(got.CreatedAt, want.CreatedAt) {
		t.Errorf("%s: times = %v, %v, want %v, %v (at ms precision)", call, got.ExpiresAt, got.CreatedAt, want.ExpiresAt, want.CreatedAt)
	}
	got.ExpiresAt, got.CreatedAt = want.ExpiresAt, want.CreatedAt
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func testTransferReadBack(t *testing.T, a, b ports.Repositories, s *transferSeed) {
	alder, birch := s.schools[0], s.schools[1]

	t.Run("Schools", func(t *testing.T) {
		c := ctx(t)
		for _, want := range s.schools {
			got := same(t, "Schools.Get "+want.Name, a, b, func(r ports.Repositories) (library.School, error) { return r.Schools.Get(c, want.ID) }, checkSchool)
			checkSchool(t, "Schools.Get "+want.Name, got, want)
			got = same(t, "Schools.GetByDomain "+want.Domain, a, b, func(r ports.Repositories) (library.School, error) { return r.Schools.GetByDomain(c, want.Domain) }, checkSchool)
			checkSchool(t, "Schools.GetByDomain "+want.Domain, got, want)
		}
		list := same(t, "Schools.List", a, b, func(r ports.Repositories) ([]library.School, error) { return r.Schools.List(c) }, inOrder(checkSchool))
		inOrder(checkSchool)(t, "Schools.List", list, s.schools)
	})

	t.Run("Accounts", func(t *testing.T) {
		c := ctx(t)
		for _, want := range s.accounts {
			got := same(t, "Accounts.Get "+want.Name, a, b, func(r ports.Repositories) (user.Account, error) { return r.Accounts.Get(c, want.ID) }, checkAccount)
			checkAccount(t, "Accounts.Get "+want.Name, got, want)
			if want.Email == "" {
				continue
			}
			got = same(t, "Accounts.GetByEmail "+want.Email, a, b, func(r ports.Repositories) (user.Account, error) { return r.Accounts.GetByEmail(c, want.Email) }, checkAccount)
			checkAccount(t, "Accounts.GetByEmail "+want.Email, got, want)
		}
		byID := func(x user.Account) string { return x.ID }
		all := same(t, "Accounts.GetMany", a, b, func(r ports.Repositories) ([]user.Account, error) {
			return r.Accounts.GetMany(c, accountIDs(s.accounts))
		}, anyOrder(byID, checkAccount))
		anyOrder(byID, checkAccount)(t, "Accounts.GetMany", all, s.accounts)
		roles := []user.Role{user.RoleStaff, user.RoleLibrarian, user.RoleStudent}
		staffAndStudents := same(t, "Accounts.ListBySchool", a, b, func(r ports.Repositories) ([]user.Account, error) { return r.Accounts.ListBySchool(c, alder.ID, roles) }, inOrder(checkAccount))
		anyOrder(byID, checkAccount)(t, "Accounts.ListBySchool", staffAndStudents, []user.Account{s.librarian, s.gone, s.pupil, s.student})
		deleted := same(t, "Accounts.ListDeleted", a, b, func(r ports.Repositories) ([]user.Account, error) { return r.Accounts.ListDeleted(c) }, inOrder(checkAccount))
		inOrder(checkAccount)(t, "Accounts.ListDeleted", deleted, []user.Account{s.gone})
		n := same(t, "Accounts.Count", a, b, func(r ports.Repositories) (int64, error) { return r.Accounts.Count(c) }, checkEqual)
		checkEqual(t, "Accounts.Count", n, int64(len(s.accounts)))

		// The student search runs on what the store derives from name,
		// email and number: it must have been derived on the way in.
		for _, q := range []struct {
			search string
			want   []user.Account
		}{
			{"", []user.Account{s.student, s.pupil}},
			{"emile", []user.Account{s.pupil}},
			{"ab 7", []user.Account{s.pupil}},
			{"2024", []user.Account{s.student}},
			{"lena@alder", []user.Account{s.student}},
			{"grace", nil}, // deleted
		} {
			call := fmt.Sprintf("Students.Search %q", q.search)
			query := library.StudentQuery{SchoolID: alder.ID, Terms: catalog.QueryTerms(q.search), Limit: 10}
			type page struct {
				Accounts []user.Account
				Total    int
			}
			got := same(t, call, a, b, func(r ports.Repositories) (page, error) {
				list, total, err := r.Students.Search(c, query)
				return page{list, total}, err
			}, func(t *testing.T, call string, got, want page) {
				t.Helper()
				checkEqual(t, call+" total", got.Total, want.Total)
				inOrder(checkAccount)(t, call, got.Accounts, want.Accounts)
			})
			checkEqual(t, call+" total", got.Total, len(q.want))
			anyOrder(byID, checkAccount)(t, call, got.Accounts, q.want)
		}
	})

	t.Run("RefreshTokens", func(t *testing.T) {
		c := ctx(t)
		for i, want := range s.tokens {
			call := fmt.Sprintf("RefreshTokens.Get #%d", i)
			got := same(t, call, a, b, func(r ports.Repositories) (auth.RefreshToken, error) { return r.RefreshTokens.Get(c, want.Hash) }, checkToken)
			checkToken(t, call, got, want)
		}
		for i, want := range s.rotatedAt {
			call := fmt.Sprintf("RefreshTokens.RotatedAt #%d", i)
			got := same(t, call, a, b, func(r ports.Repositories) (time.Time, error) { return r.RefreshTokens.RotatedAt(c, s.tokens[i].Hash) }, checkTime)
			checkTime(t, call, got, want)
		}
		_, err := b.RefreshTokens.RotatedAt(c, s.tokens[2].Hash)
		wantErr(t, "RefreshTokens.RotatedAt of a token never rotated, on B", err, errs.NotFound, "rotation_not_found")
		for i, family := range s.families {
			call := fmt.Sprintf("RefreshTokens.FamilyRevoked #%d", i)
			got := same(t, call, a, b, func(r ports.Repositories) (bool, error) { return r.RefreshTokens.FamilyRevoked(c, family) }, checkEqual)
			checkEqual(t, call, got, i > 0)
		}
	})

	t.Run("SigningKeys", func(t *testing.T) {
		c := ctx(t)
		keys := same(t, "SigningKeys.List", a, b, func(r ports.Repositories) ([]auth.SigningKey, error) { return r.SigningKeys.List(c) }, inOrder(checkKey))
		inOrder(checkKey)(t, "SigningKeys.List (the active key first)", keys, s.keys)
	})

	t.Run("Books", func(t *testing.T) {
		c := ctx(t)
		for i, want := range s.books {
			got := same(t, "Books.Get "+want.Title, a, b, func(r ports.Repositories) (catalog.Book, error) { return r.Books.Get(c, want.ID) }, checkBook)
			checkBook(t, "Books.Get "+want.Title, got, want)
			texts := same(t, "Books.ChapterTexts "+want.Title, a, b, func(r ports.Repositories) ([]catalog.ChapterText, error) { return r.Books.ChapterTexts(c, want.ID) }, checkTexts)
			checkTexts(t, "Books.ChapterTexts "+want.Title, texts, s.texts[i])
			last := s.texts[i][len(s.texts[i])-1]
			text := same(t, "Books.ChapterText "+want.Title, a, b, func(r ports.Repositories) (catalog.ChapterText, error) {
				return r.Books.ChapterText(c, want.ID, last.ChapterID)
			}, checkEqual)
			checkEqual(t, "Books.ChapterText "+want.Title, text, last)
		}
		type page struct {
			Books []catalog.Book
			Total int64
		}
		for _, q := range []struct {
			query catalog.Query
			want  []catalog.Book
		}{
			{catalog.Query{}, s.books},
			{catalog.Query{Terms: catalog.QueryTerms("lantern quill")}, s.books[:1]},
			{catalog.Query{Terms: catalog.QueryTerms("brandt")}, s.books[1:]},
			{catalog.Query{Sort: catalog.SortRatingDesc, Genre: "adventure"}, s.books[:1]},
		} {
			q.query.Page, q.query.Limit = 1, 10
			call := fmt.Sprintf("Books.List %+v", q.query)
			got := same(t, call, a, b, func(r ports.Repositories) (page, error) {
				books, total, err := r.Books.List(c, q.query)
				return page{books, total}, err
			}, func(t *testing.T, call string, got, want page) {
				t.Helper()
				checkEqual(t, call+" total", got.Total, want.Total)
				inOrder(checkBook)(t, call, got.Books, want.Books)
			})
			checkEqual(t, call+" total", got.Total, int64(len(q.want)))
			inOrder(checkBook)(t, call, got.Books, q.want)
		}
		n := same(t, "Books.Count", a, b, func(r ports.Repositories) (int64, error) { return r.Books.Count(c) }, checkEqual)
		checkEqual(t, "Books.Count", n, int64(len(s.books)))
	})

	t.Run("ReadingLists", func(t *testing.T) {
		c := ctx(t)
		for _, want := range s.items {
			got := same(t, "ReadingLists.Get", a, b, func(r ports.Repositories) (catalog.ListItem, error) {
				return r.ReadingLists.Get(c, want.AccountID, want.BookID)
			}, checkItem)
			checkItem(t, "ReadingLists.Get", got, want)
		}
		items := same(t, "ReadingLists.List", a, b, func(r ports.Repositories) ([]catalog.ListItem, error) {
			return r.ReadingLists.List(c, s.student.ID, "")
		}, inOrder(checkItem))
		anyOrder(func(x catalog.ListItem) string { return x.ID }, checkItem)(t, "ReadingLists.List", items, s.items)
		readers := same(t, "ReadingLists.ReadersByBook", a, b, func(r ports.Repositories) (map[string]int, error) {
			return r.ReadingLists.ReadersByBook(c, bookIDs(s.books))
		}, checkEqual)
		checkEqual(t, "ReadingLists.ReadersByBook", readers, map[string]int{s.books[0].ID: 1, s.books[1].ID: 1})
	})

	t.Run("Progress", func(t *testing.T) {
		c := ctx(t)
		for _, want := range s.progress {
			got := same(t, "Progress.Get", a, b, func(r ports.Repositories) (catalog.Progress, error) {
				return r.Progress.Get(c, want.AccountID, want.BookID)
			}, checkProgress)
			checkProgress(t, "Progress.Get", got, want)
		}
		byBook := func(p catalog.Progress) string { return p.BookID }
		all := same(t, "Progress.ListByAccount", a, b, func(r ports.Repositories) ([]catalog.Progress, error) {
			return r.Progress.ListByAccount(c, s.student.ID)
		}, inOrder(checkProgress))
		anyOrder(byBook, checkProgress)(t, "Progress.ListByAccount", all, s.progress)
		sessions := same(t, "Progress.Sessions", a, b, func(r ports.Repositories) ([]catalog.ReadingSession, error) {
			return r.Progress.Sessions(c, s.student.ID)
		}, inOrder(checkSession))
		inOrder(checkSession)(t, "Progress.Sessions", sessions, s.sessions)
		for i, want := range []int64{420, 600} {
			book := s.books[i].ID
			got := same(t, "Progress.TotalSeconds", a, b, func(r ports.Repositories) (int64, error) { return r.Progress.TotalSeconds(c, s.student.ID, book) }, checkEqual)
			checkEqual(t, "Progress.TotalSeconds of "+s.books[i].Title, got, want)
		}
	})

	t.Run("Holdings", func(t *testing.T) {
		c := ctx(t)
		for _, want := range s.libBooks {
			got := same(t, "Holdings.Book "+want.Title, a, b, func(r ports.Repositories) (library.Book, error) { return r.Holdings.Book(c, want.SchoolID, want.ID) }, checkLibBook)
			checkLibBook(t, "Holdings.Book "+want.Title, got, want)
		}
		type page struct {
			Books []library.Book
			Total int
		}
		// The search runs on what the store derives from title and author
		// (folded: "langs" finds "Långstrump").
		for _, q := range []struct {
			school library.School
			search string
			want   []library.Book
		}{
			{alder, "", s.libBooks[:2]},
			{alder, "langs pip", s.libBooks[1:2]},
			{alder, "dahl", s.libBooks[:1]},
			{birch, "matilda", s.libBooks[2:]},
		} {
			call := fmt.Sprintf("Holdings.BooksPage %s %q", q.school.Name, q.search)
			query := library.BookQuery{SchoolID: q.school.ID, Terms: catalog.QueryTerms(q.search), Limit: 10}
			got := same(t, call, a, b, func(r ports.Repositories) (page, error) {
				books, total, err := r.Holdings.BooksPage(c, query)
				return page{books, total}, err
			}, func(t *testing.T, call string, got, want page) {
				t.Helper()
				checkEqual(t, call+" total", got.Total, want.Total)
				inOrder(checkLibBook)(t, call, got.Books, want.Books)
			})
			checkEqual(t, call+" total", got.Total, len(q.want))
			inOrder(checkLibBook)(t, call, got.Books, q.want)
		}
		byID := func(x library.Book) string { return x.ID }
		books := same(t, "Holdings.BooksByID", a, b, func(r ports.Repositories) ([]library.Book, error) {
			return r.Holdings.BooksByID(c, alder.ID, libBookIDs(s.libBooks))
		}, anyOrder(byID, checkLibBook))
		anyOrder(byID, checkLibBook)(t, "Holdings.BooksByID", books, s.libBooks[:2])
		for _, want := range s.copies {
			got := same(t, "Holdings.Copy "+want.Code, a, b, func(r ports.Repositories) (library.Copy, error) { return r.Holdings.Copy(c, alder.ID, want.ID) }, checkCopy)
			checkCopy(t, "Holdings.Copy "+want.Code, got, want)
			got = same(t, "Holdings.CopyByCode "+want.Code, a, b, func(r ports.Repositories) (library.Copy, error) { return r.Holdings.CopyByCode(c, alder.ID, want.Code) }, checkCopy)
			checkCopy(t, "Holdings.CopyByCode "+want.Code, got, want)
		}
		copies := same(t, "Holdings.CopiesOfBook", a, b, func(r ports.Repositories) ([]library.Copy, error) {
			return r.Holdings.CopiesOfBook(c, alder.ID, s.libBooks[0].ID)
		}, inOrder(checkCopy))
		inOrder(checkCopy)(t, "Holdings.CopiesOfBook", copies, s.copies[:2])
		copyCounts := same(t, "Holdings.CopyCounts", a, b, func(r ports.Repositories) (map[string]int, error) {
			return r.Holdings.CopyCounts(c, alder.ID, libBookIDs(s.libBooks))
		}, checkEqual)
		checkEqual(t, "Holdings.CopyCounts", copyCounts, map[string]int{s.libBooks[0].ID: 2, s.libBooks[1].ID: 1})
	})

	t.Run("Loans", func(t *testing.T) {
		c := ctx(t)
		loans := []library.Loan{s.open, s.returned, s.incomplete}
		for _, want := range loans {
			got := same(t, "Loans.Get", a, b, func(r ports.Repositories) (library.Loan, error) { return r.Loans.Get(c, alder.ID, want.ID) }, checkLoan)
			checkLoan(t, "Loans.Get", got, want)
		}
		byID := func(l library.Loan) string { return l.ID }
		all := same(t, "Loans.ByIDs", a, b, func(r ports.Repositories) ([]library.Loan, error) { return r.Loans.ByIDs(c, loanIDs(loans)) }, anyOrder(byID, checkLoan))
		anyOrder(byID, checkLoan)(t, "Loans.ByIDs", all, loans)
		open := same(t, "Loans.Open", a, b, func(r ports.Repositories) ([]library.Loan, error) { return r.Loans.Open(c, alder.ID, "", "") }, inOrder(checkLoan))
		inOrder(checkLoan)(t, "Loans.Open (the returned loan left out)", open, []library.Loan{s.open, s.incomplete})
		ofStudent := same(t, "Loans.OfStudent", a, b, func(r ports.Repositories) ([]library.Loan, error) { return r.Loans.OfStudent(c, s.student.ID) }, inOrder(checkLoan))
		inOrder(checkLoan)(t, "Loans.OfStudent (newest first)", ofStudent, []library.Loan{s.incomplete, s.open})
		ofPupil := same(t, "Loans.OfStudent", a, b, func(r ports.Repositories) ([]library.Loan, error) { return r.Loans.OfStudent(c, s.pupil.ID) }, inOrder(checkLoan))
		inOrder(checkLoan)(t, "Loans.OfStudent of the pupil", ofPupil, []library.Loan{s.returned})
		renewals := same(t, "Loans.Renewals", a, b, func(r ports.Repositories) ([]library.Renewal, error) { return r.Loans.Renewals(c, loanIDs(loans)) }, inOrder(checkRenewal))
		anyOrder(func(x library.Renewal) string { return fmt.Sprintf("%s#%03d", x.LoanID, x.Number) }, checkRenewal)(t, "Loans.Renewals", renewals, s.renewals)
	})

	t.Run("ActiveLoans", func(t *testing.T) {
		c := ctx(t)
		for _, want := range s.claims {
			got := same(t, "ActiveLoans.Holder", a, b, func(r ports.Repositories) (library.CopyClaim, error) { return r.ActiveLoans.Holder(c, want.CopyID) }, checkClaim)
			checkClaim(t, "ActiveLoans.Holder", got, want)
		}
		_, err := b.ActiveLoans.Holder(c, s.copies[2].ID)
		wantErr(t, "ActiveLoans.Holder of a copy never claimed, on B", err, errs.NotFound, "claim_not_found")
		byCopy := func(x library.CopyClaim) string { return x.CopyID }
		copyIDs := []string{s.copies[0].ID, s.copies[1].ID, s.copies[2].ID}
		got := same(t, "ActiveLoans.ClaimsOfCopies", a, b, func(r ports.Repositories) ([]library.CopyClaim, error) {
			return r.ActiveLoans.ClaimsOfCopies(c, copyIDs)
		}, anyOrder(byCopy, checkClaim))
		wantClaimSet(t, "ActiveLoans.ClaimsOfCopies", got, s.claims...)
		got = same(t, "ActiveLoans.ClaimsOfBooks", a, b, func(r ports.Repositories) ([]library.CopyClaim, error) {
			return r.ActiveLoans.ClaimsOfBooks(c, alder.ID, libBookIDs(s.libBooks))
		}, anyOrder(byCopy, checkClaim))
		wantClaimSet(t, "ActiveLoans.ClaimsOfBooks", got, s.claims...)
	})

	t.Run("Students", func(t *testing.T) {
		c := ctx(t)
		asked := []string{"ab-7", "2024-017", "zz-1"}
		taken := same(t, "Students.TakenNumbers", a, b, func(r ports.Repositories) ([]string, error) { return r.Students.TakenNumbers(c, alder.ID, asked) }, anyOrder(func(x string) string { return x }, checkEqual))
		anyOrder(func(x string) string { return x }, checkEqual)(t, "Students.TakenNumbers (as stored)", taken, []string{s.pupil.StudentNumber, s.student.StudentNumber})
	})

	t.Run("Invites", func(t *testing.T) {
		c := ctx(t)
		for _, want := range s.invites {
			got := same(t, "Invites.Get", a, b, func(r ports.Repositories) (library.Invite, error) { return r.Invites.Get(c, want.TokenHash) }, checkInvite)
			checkInvite(t, "Invites.Get", got, want)
		}
	})

	t.Run("ExternalIdentities", func(t *testing.T) {
		c := ctx(t)
		for _, want := range s.links {
			call := "ExternalIdentities.Get " + want.Subject
			got := same(t, call, a, b, func(r ports.Repositories) (user.ExternalIdentity, error) {
				return r.ExternalIdentities.Get(c, want.Issuer, want.Subject)
			}, checkLink)
			checkLink(t, call, got, want)
		}
	})

	t.Run("Holds", func(t *testing.T) {
		c := ctx(t)
		ids := make([]string, len(s.holds))
		for i, h := range s.holds {
			ids[i] = h.ID
		}
		for _, st := range []user.Account{s.student, s.pupil} {
			got := same(t, "Holds.OfStudent", a, b, func(r ports.Repositories) ([]library.Hold, error) { return r.Holds.OfStudent(c, st.ID, 10) }, checkEqual)
			if len(got) != 2 {
				t.Errorf("Holds.OfStudent on B = %d holds, want 2", len(got))
			}
		}
		for _, book := range s.libBooks[:2] {
			got := same(t, "Holds.Queue", a, b, func(r ports.Repositories) ([]library.HoldQueueEntry, error) {
				return r.Holds.Queue(c, alder.ID, book.ID, library.HoldQueueEntry{}, 10)
			}, checkEqual)
			if len(got) != 1 {
				t.Errorf("Holds.Queue of %s on B = %+v, want one entry", book.Title, got)
			}
		}
		traps := same(t, "Holds.TrapsOfHolds", a, b, func(r ports.Repositories) ([]library.HoldTrap, error) { return r.Holds.TrapsOfHolds(c, ids) },
			anyOrder(func(tr library.HoldTrap) string { return tr.CopyID }, checkEqual[library.HoldTrap]))
		ends := same(t, "Holds.Ends", a, b, func(r ports.Repositories) ([]library.HoldEnd, error) { return r.Holds.Ends(c, ids) },
			anyOrder(func(e library.HoldEnd) string { return e.HoldID }, checkEqual[library.HoldEnd]))
		if len(traps) != 2 || len(ends) != 2 {
			t.Errorf("on B: %d traps and %d ends, want 2 and 2", len(traps), len(ends))
		}
	})
	t.Run("MailTokens", func(t *testing.T) {
		c := ctx(t)
		for _, want := range s.mailTokens {
			call := "MailTokens.Get " + string(want.Purpose)
			got := same(t, call, a, b, func(r ports.Repositories) (auth.MailToken, error) {
				return r.MailTokens.Get(c, want.Hash, want.Purpose)
			}, checkMailToken)
			checkMailToken(t, call, got, want)
		}
		_, err := b.MailTokens.Get(c, s.usedToken.Hash, s.usedToken.Purpose)
		wantErr(t, "MailTokens.Get of a token used before the copy, on B", err, errs.NotFound, "mail_token_not_found")
	})

	t.Run("Notices", func(t *testing.T) {
		c := ctx(t)
		for i, want := range s.noticeSettings {
			got := same(t, "Notices.Settings", a, b, func(r ports.Repositories) (library.NoticeSettings, error) {
				return r.Notices.Settings(c, s.schools[i].ID)
			}, checkEqual)
			checkEqual(t, "Notices.Settings "+s.schools[i].Name, got, want)
		}
		rooms := same(t, "Homerooms", a, b, func(r ports.Repositories) ([]library.Homeroom, error) { return r.Homerooms.Homerooms(c, alder.ID) }, checkEqual)
		checkEqual(t, "Homerooms of Alder", rooms, s.homerooms)
		notices := same(t, "Notices.OfSubject", a, b, func(r ports.Repositories) ([]library.Notice, error) {
			return r.Notices.OfSubject(c, s.open.ID)
		}, inOrder(checkNotice))
		inOrder(checkNotice)(t, "Notices.OfSubject of the open loan", notices, s.notices)
		for _, day := range s.noticeDays {
			done, err := b.Notices.DayFinished(c, alder.ID, day)
			must(t, "DayFinished on B", err)
			if !done {
				t.Errorf("DayFinished %s on B = false, want the copied day", day)
			}
		}
		// The copied claims still claim: a run after the move sends neither again.
		won, err := b.Notices.Claim(c, s.notices)
		must(t, "Notices.Claim of copied notices on B", err)
		if len(won) != 0 {
			t.Errorf("Notices.Claim of copied notices on B won %v, want none", won)
		}
	})

	t.Run("Charges", func(t *testing.T) {
		c := ctx(t)
		for i, want := range s.charges {
			got := same(t, "Charges.Get", a, b, func(r ports.Repositories) (library.Charge, error) {
				return r.Charges.Get(c, want.SchoolID, want.ID)
			}, checkCharge)
			checkCharge(t, "Charges.Get", got, want)
			sts, err := b.Charges.Settlements(c, []string{want.ID})
			must(t, "Charges.Settlements on B", err)
			if len(sts) != 1 || sts[0].Outcome != s.settlements[i].Outcome || sts[0].By != s.settlements[i].By || !sameTime(sts[0].SettledAt, s.settlements[i].SettledAt) {
				t.Errorf("Settlements of %s on B = %+v, want %+v", want.ID, sts, s.settlements[i])
			}
			wantErr(t, "Charges.Insert of a copied charge", b.Charges.Insert(c, want), errs.Conflict, "charge_exists")
			wantErr(t, "Charges.Settle of a copied settlement", b.Charges.Settle(c, s.settlements[i]), errs.Conflict, "charge_settled")
		}
		for _, want := range s.endings {
			got, err := b.Loans.Ending(c, want.LoanID)
			must(t, "Loans.Ending on B", err)
			if got.Outcome != want.Outcome || !sameTime(got.At, want.At) {
				t.Errorf("Ending of %s on B = %+v, want %+v", want.LoanID, got, want)
			}
			wantErr(t, "Loans.ClaimEnding of a copied ending", b.Loans.ClaimEnding(c, want), errs.Conflict, "loan_ended")
		}
		cp, err := b.Holdings.Copy(c, s.copies[2].SchoolID, s.copies[2].ID)
		must(t, "Holdings.Copy on B", err)
		if cp.Condition.Condition != library.ConditionLost || cp.Condition.LoanID != s.incomplete.ID || !sameTime(cp.Condition.At, base.Add(time.Hour)) {
			t.Errorf("the lost copy's condition on B = %+v", cp.Condition)
		}
	})

	t.Run("Stocktakes", func(t *testing.T) {
		c := ctx(t)
		for i, want := range s.stocktakes {
			got, err := b.Stocktakes.Get(c, want.SchoolID, want.ID)
			must(t, "Stocktakes.Get on B", err)
			if got.From != want.From || got.To != want.To || got.OpenedBy != want.OpenedBy || !sameTime(got.OpenedAt, want.OpenedAt) ||
				got.Closed() != want.Closed() || (want.Closed() && !sameTime(got.ClosedAt, want.ClosedAt)) {
				t.Errorf("Stocktakes.Get on B = %+v, want %+v", got, want)
			}
			sc := s.scans[i]
			gotScan, err := b.Stocktakes.Scan(c, sc.StocktakeID, sc.CopyID)
			must(t, "Stocktakes.Scan on B", err)
			if gotScan.Code != sc.Code || gotScan.BookID != sc.BookID || gotScan.By != sc.By || !sameTime(gotScan.ScannedAt, sc.ScannedAt) {
				t.Errorf("Stocktakes.Scan on B = %+v, want %+v", gotScan, sc)
			}
			wantErr(t, "Stocktakes.AddScan of a copied scan", b.Stocktakes.AddScan(c, sc), errs.Conflict, "scan_exists")
		}
	})

	t.Run("ImportJobs", func(t *testing.T) {
		c := ctx(t)
		for _, want := range s.importJobs {
			got, err := b.ImportJobs.Get(c, want.SchoolID, want.ID)
			must(t, "ImportJobs.Get on B", err)
			checkImportJob(t, "ImportJobs.Get on B", got, want)
		}
	})
}

// checkImportJob compares two jobs, times to the stores' millisecond.
func checkImportJob(t *testing.T, call string, got, want library.ImportJob) {
	t.Helper()
	checkTime(t, call+" StartedAt", got.StartedAt, want.StartedAt)
	checkTime(t, call+" LeaseUntil", got.LeaseUntil, want.LeaseUntil)
	checkTime(t, call+" FinishedAt", got.FinishedAt, want.FinishedAt)
	got.StartedAt, got.LeaseUntil, got.FinishedAt = want.StartedAt, want.LeaseUntil, want.FinishedAt
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func checkNotice(t *testing.T, call string, got, want library.Notice) {
	t.Helper()
	checkTime(t, call+" ClaimedAt", got.ClaimedAt, want.ClaimedAt)
	checkTime(t, call+" SentAt", got.SentAt, want.SentAt)
	got.ClaimedAt, got.SentAt = want.ClaimedAt, want.SentAt
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func checkLink(t *testing.T, call string, got, want user.ExternalIdentity) {
	t.Helper()
	checkTime(t, call+" CreatedAt", got.CreatedAt, want.CreatedAt)
	got.CreatedAt = want.CreatedAt
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
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
	wantErr(t, "Students.ApplyRoster of a copied rollover", b.Students.ApplyRoster(c, library.RosterChange{SchoolID: alder.ID, Rollover: &s.rollover}), errs.Conflict, "rollover_done")
	twin := newStudent(alder.ID, "Émile Twin", "")
	twin.ExternalID = s.pupil.ExternalID
	wantErr(t, "Students.ApplyRoster with a copied external id", b.Students.ApplyRoster(c, library.RosterChange{SchoolID: alder.ID, Add: []user.Account{twin}}), errs.Conflict, "external_id_exists")
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
