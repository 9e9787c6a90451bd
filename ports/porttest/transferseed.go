package porttest

// The records the transfer suite seeds in store A: two or more of every
// kind, through its repositories.

import (
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/roster"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// transferSeed is what seedTransfer stored in store A.
type transferSeed struct {
	schools []library.School // by name: Alder (settings saved), Birch

	// Accounts of school Alder unless said otherwise.
	librarian user.Account // updated after creation
	gone      user.Account // staff, marked deleted
	pupil     user.Account // student without an email, with a number, given a guardian by a roster change
	student   user.Account // student with an email, a number and two guardians
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
	rollover    roster.Rollover      // Alder's, which took the pupil off the roll and gave them an external id
	stocktakes  []library.Stocktake  // a closed one of a range, an open one of the whole collection
	scans       []library.StocktakeScan
	importJobs  []library.ImportJob    // a finished one and a running one of Alder
	wants       []library.WantToRead   // Lena's list: both of Alder's titles
	reviews     []library.Review       // Lena's of Matilda (approved), and of Pippi (pending)
	covers      []library.Cover        // Matilda's image, and Pippi's note that the source had none
	finished    []library.FinishedLoan // the pupil's returned loan, and one unnamed by the retention sweep
	// appLinks: Alder's Matilda is The Lantern Harbour, its Pippi is not
	// Winter Orchard.
	appLinks []library.AppLinkChoice
	// One entry with changes and one of no school, without.
	audit []library.AuditEntry
	// kiosks: Alder's and Birch's, one each.
	kiosks []library.Kiosk
	// offlineOps: Alder's check-out of copy 2, a conflict still to settle,
	// and its return of copy 0, applied (the card forgotten).
	offlineOps []library.OfflineOp

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
		MaxCopiesPerBook: 250, MaxCopiesPerSchool: 7000, Timezone: "Europe/Dublin", HoldPickupDays: 12, ReadingLevelCheck: library.ReadingCheckBlock,
		LabelPrefix: "ALD", Language: "es"}
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
	s.student.HistoryOptOut = true // a choice that must move with the account
	s.student.HoldsFromReadingList = true
	s.student.Preferences.Language = "ar"
	s.student.Guardians = twoGuardians()
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
	s.pupil.Guardians = []user.Guardian{{Name: "Anne Zola", Email: "anne.zola@example.org", Relationship: user.RelationshipGuardian}}
	s.rollover = roster.Rollover{SchoolID: alder.ID, SchoolYear: "2025-2026", LeavingGrade: "12", Promoted: 0, Left: 1, At: base.Add(4 * time.Hour)}
	must(t, "Students.ApplyRoster", r.Students.ApplyRoster(c, roster.RosterChange{SchoolID: alder.ID,
		Changed: []user.Account{s.pupil}, Before: []user.Account{before}, Rollover: &s.rollover}))
	s.accounts[2] = s.pupil
	birchYear := roster.Rollover{SchoolID: s.schools[1].ID, SchoolYear: "2025", LeavingGrade: "Year 6", Promoted: 3, Left: 2, At: base.Add(5 * time.Hour)}
	must(t, "Students.ApplyRoster (Birch)", r.Students.ApplyRoster(c, roster.RosterChange{SchoolID: birchYear.SchoolID, Rollover: &birchYear}))

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
		{Enabled: true, SendAt: "06:45", DueSoonDays: 3, OverdueSteps: []int{2, 9},
			GuardianCopies: []string{library.NoticeOverdue, library.NoticeHoldReady}, Contact: "Mme Lefèvre, bibliothèque, poste 214"},
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

	for i, b := range s.libBooks[:2] {
		w := library.WantToRead{StudentID: s.student.ID, SchoolID: b.SchoolID, BookID: b.ID, AddedAt: base.Add(time.Duration(i+1) * time.Minute)}
		if added, err := r.WantToRead.Add(c, w); err != nil || !added {
			t.Fatalf("WantToRead.Add = %v, %v", added, err)
		}
		s.wants = append(s.wants, w)
	}

	for i, b := range s.libBooks[:2] {
		rv := library.Review{ID: library.ReviewID(s.student.ID, b.ID), SchoolID: b.SchoolID, BookID: b.ID, StudentID: s.student.ID,
			Rating: 5 - i, Text: "A review to carry over.", Status: library.ReviewPending, Revision: 1 + i,
			CreatedAt: base.Add(time.Duration(i) * time.Minute), UpdatedAt: base.Add(time.Duration(i+1) * time.Minute)}
		must(t, "Reviews.Save", r.Reviews.Save(c, rv))
		if i == 0 {
			rv.Status, rv.ModeratedBy, rv.ModeratedAt = library.ReviewApproved, s.librarian.ID, base.Add(time.Hour)
			must(t, "Reviews.Decide", r.Reviews.Decide(c, rv))
		}
		s.reviews = append(s.reviews, rv)
	}

	s.covers = []library.Cover{
		{SchoolID: s.libBooks[0].SchoolID, BookID: s.libBooks[0].ID, Image: library.CoverImage{JPEG: []byte{0xFF, 0xD8, 7, 0xFF, 0xD9}, Width: 3, Height: 4},
			ETag: `"m"`, Source: library.CoverUploaded, UpdatedAt: base},
		{SchoolID: s.libBooks[1].SchoolID, BookID: s.libBooks[1].ID, Source: library.CoverFetched, Missing: true, UpdatedAt: base.Add(time.Hour)},
	}
	for _, cv := range s.covers {
		must(t, "Covers.Put", r.Covers.Put(c, cv))
	}

	s.finished = []library.FinishedLoan{
		{LoanID: s.returned.ID, SchoolID: s.returned.SchoolID, StudentID: s.returned.StudentID, BookID: s.returned.BookID,
			Title: s.returned.BookTitle, Author: s.returned.BookAuthor, BorrowedAt: s.returned.LoanedAt, ReturnedAt: s.returned.ReturnedAt,
			MarkedAt: s.returned.ReturnedAt.Add(time.Minute), Source: library.FinishedAtDesk},
		{LoanID: uuid.NewString(), SchoolID: alder.ID, BookID: s.libBooks[1].ID, Title: s.libBooks[1].Title, Author: s.libBooks[1].Author,
			BorrowedAt: base.Add(-72 * time.Hour), ReturnedAt: base.Add(-24 * time.Hour), MarkedAt: base.Add(-23 * time.Hour), Source: library.FinishedInApp},
	}
	for _, f := range s.finished {
		if stored, err := r.FinishedLoans.Claim(c, f); err != nil || !stored {
			t.Fatalf("FinishedLoans.Claim = %v, %v", stored, err)
		}
	}

	s.appLinks = []library.AppLinkChoice{
		{SchoolID: alder.ID, BookID: s.libBooks[0].ID, AppBookID: s.books[0].ID, Same: true, ByAccountID: s.librarian.ID, At: base},
		{SchoolID: alder.ID, BookID: s.libBooks[1].ID, AppBookID: s.books[1].ID, Same: false, ByAccountID: s.librarian.ID, At: base.Add(time.Hour)},
	}
	for _, ch := range s.appLinks {
		must(t, "AppLinks.SaveChoice", r.AppLinks.SaveChoice(c, ch))
	}

	s.audit = []library.AuditEntry{
		{ID: uuid.NewString(), SchoolID: alder.ID, At: base.Add(90 * time.Minute), ActorID: s.librarian.ID, ActorEmail: s.librarian.Email,
			ActorRole: string(s.librarian.Role), Address: "203.0.113.9", Action: library.AuditLoanRulesChanged, Summary: "Loan rules changed",
			Changes: []library.AuditChange{{Field: "fiction.days", Before: "14", After: "21"}, {Field: "dvd.days", Before: "7", After: ""}}},
		{ID: uuid.NewString(), At: base.Add(2 * time.Hour), ActorID: "admin-1", ActorEmail: "admin@example.org", ActorRole: "admin",
			Address: "2001:db8::1", Action: library.AuditAccountChanged, Target: s.librarian.ID, Summary: "Tier changed"},
	}
	for _, e := range s.audit {
		must(t, "AuditLog.Append", r.AuditLog.Append(c, e))
	}

	s.kiosks = []library.Kiosk{
		{ID: uuid.NewString(), SchoolID: alder.ID, Name: "Bibliothèque — entrée", Login: "alder-entrance",
			SecretHash: "$argon2id$v=19$m=65536,t=3,p=2$YWxkZXI$aGFzaA", CreatedAt: base.Add(3 * time.Hour), CreatedBy: s.librarian.Email},
		{ID: uuid.NewString(), SchoolID: birch.ID, Name: "Library desk", Login: "birch-desk",
			SecretHash: "$argon2id$v=19$m=65536,t=3,p=2$YmlyY2g$aGFzaA", CreatedAt: base.Add(4 * time.Hour), CreatedBy: "admin@example.org"},
	}
	for _, k := range s.kiosks {
		must(t, "Kiosks.CreateKiosk", r.Kiosks.CreateKiosk(c, k))
	}

	s.offlineOps = []library.OfflineOp{
		{SchoolID: alder.ID, ID: uuid.NewString(), Kind: library.OfflineCheckout, Code: s.copies[2].Code, Card: s.pupil.StudentNumber,
			ScannedAt: base.Add(5 * time.Hour), UploadedAt: base.Add(6 * time.Hour), UploadedBy: s.librarian.Email,
			Status: library.OfflineConflict, Reason: "borrowing_blocked", Message: "The student may not borrow for now.",
			SettledAt: base.Add(6 * time.Hour), SettledBy: s.librarian.Email},
		{SchoolID: alder.ID, ID: uuid.NewString(), Kind: library.OfflineReturn, Code: s.copies[0].Code,
			ScannedAt: base.Add(5*time.Hour + time.Minute), UploadedAt: base.Add(6 * time.Hour), UploadedBy: s.librarian.Email,
			Status: library.OfflineApplied, LoanID: s.open.ID, SettledAt: base.Add(6*time.Hour + time.Second), SettledBy: s.librarian.Email},
	}
	for _, op := range s.offlineOps {
		claimed := op
		claimed.Card = s.student.StudentNumber
		claimed.Status, claimed.Reason, claimed.Message, claimed.LoanID, claimed.SettledAt, claimed.SettledBy = "", "", "", "", time.Time{}, ""
		won, err := r.OfflineOps.ClaimOfflineOps(c, []library.OfflineOp{claimed})
		must(t, "OfflineOps.ClaimOfflineOps", err)
		if !slices.Equal(won, []int{0}) {
			t.Fatalf("OfflineOps.ClaimOfflineOps won %v, want [0]", won)
		}
		must(t, "OfflineOps.RecordOfflineOutcome", r.OfflineOps.RecordOfflineOutcome(c, op))
	}

	s.counts = map[ports.RecordKind]int64{
		ports.KindAppLinkChoices: 2, ports.KindAuditLog: 2, ports.KindKiosks: 2, ports.KindOfflineOps: 2,
		ports.KindImportJobs: 2, ports.KindWantToRead: 2, ports.KindReviews: 2, ports.KindCovers: 2, ports.KindFinishedLoans: 2,
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
