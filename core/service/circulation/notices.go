package circulation

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// Notices sends the reminder mail of circulation (due soon, overdue, and
// each homeroom's daily digest of overdue books) and keeps its log.
//
// How each notice goes once across replicas and restarts without a
// transaction: a notice is a record with a unique key (loan, kind, due
// date, step; a digest line is once per loan and day), inserted before its
// mail is sent. Of runs racing for the same notice exactly one inserts it;
// the others skip it. A mail that fails releases its notices, so a later
// run claims and sends them again; a run that stops between its claims and
// its mail leaves them unsent, and a run an hour later releases and sends
// them (the one case where a mail can go twice: the server took it and the
// run stopped before recording that).
type Notices struct {
	scope      usecase.SchoolScope
	notices    ports.NoticeRepository
	homerooms  ports.HomeroomRepository
	accounts   ports.AccountRepository
	holds      ports.HoldRepository
	holdings   ports.HoldingsRepository
	mail       NoticeMailer
	loanReader LoanReader
	clock      *usecase.Clock
	audit      *usecase.AuditLog
}

// NoticeMailer sends the notices' mail and hears of the mails that
// failed: identity's mailer, which all of the service's mail goes through.
type NoticeMailer interface {
	Send(ctx context.Context, m ports.Message) error
	BackgroundError(op string, err error)
}

// NoticesDeps are what Notices is built with; none may be nil.
type NoticesDeps struct {
	Schools   ports.SchoolRepository
	Notices   ports.NoticeRepository
	Homerooms ports.HomeroomRepository
	Accounts  ports.AccountRepository
	Holds     ports.HoldRepository
	Holdings  ports.HoldingsRepository
	Mail      NoticeMailer
	Loans     LoanReader
	Clock     *usecase.Clock
	// Audit records what staff and admins change; nil records nothing.
	Audit *usecase.AuditLog `deps:"optional"`
}

// NewNotices builds Notices. It panics on a nil dependency.
func NewNotices(d NoticesDeps) *Notices {
	usecase.MustHave("NewNotices", d)
	return &Notices{scope: usecase.NewSchoolScope(d.Schools), notices: d.Notices, homerooms: d.Homerooms, accounts: d.Accounts,
		holds: d.Holds, holdings: d.Holdings, mail: d.Mail, loanReader: d.Loans, clock: d.Clock, audit: d.Audit}
}

// unsentAfter is how long a claimed notice may stay unsent before a run
// takes it for abandoned and sends it again: far longer than a run takes.
const unsentAfter = time.Hour

// Settings returns the notice settings of the caller's school (an admin
// names it).
func (s *Notices) Settings(ctx context.Context, schoolParam string) (library.School, library.NoticeSettings, error) {
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return library.School{}, library.NoticeSettings{}, err
	}
	set, err := s.notices.Settings(ctx, school.ID)
	return school, set, err
}

// PutSettings replaces the school's notice settings.
// Errors: Invalid (each field), as scope.
func (s *Notices) PutSettings(ctx context.Context, schoolParam string, set library.NoticeSettings) (library.School, library.NoticeSettings, error) {
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return library.School{}, library.NoticeSettings{}, err
	}
	if err := library.ValidateNoticeSettings(set); err != nil {
		return library.School{}, library.NoticeSettings{}, err
	}
	set = library.NormalizeNoticeSettings(set)
	before, err := s.notices.Settings(ctx, school.ID)
	if err != nil {
		return library.School{}, library.NoticeSettings{}, err
	}
	if err := s.notices.SaveSettings(ctx, school.ID, set); err != nil {
		return library.School{}, library.NoticeSettings{}, err
	}
	s.audit.RecordChange(ctx, library.AuditEntry{SchoolID: school.ID, Action: library.AuditNoticeSettingsChanged,
		Summary: "Reminder settings changed"}, before.AuditFields(), set.AuditFields())
	return school, set, nil
}

// Homerooms returns the school's homerooms and their teachers.
func (s *Notices) Homerooms(ctx context.Context, schoolParam string) (library.School, []library.Homeroom, error) {
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return library.School{}, nil, err
	}
	rooms, err := s.homerooms.Homerooms(ctx, school.ID)
	return school, rooms, err
}

// ReplaceHomerooms makes rooms the school's list of homerooms, each with
// the teacher its digest goes to.
// Errors: Invalid (homerooms[i].field), as scope.
func (s *Notices) ReplaceHomerooms(ctx context.Context, schoolParam string, rooms []library.Homeroom) (library.School, []library.Homeroom, error) {
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return library.School{}, nil, err
	}
	fields := errs.FieldErrors{}
	if len(rooms) > library.MaxHomerooms {
		fields.Add("homerooms", fmt.Sprintf("must list at most %d homerooms", library.MaxHomerooms))
	}
	seen := map[string]int{}
	out := make([]library.Homeroom, 0, len(rooms))
	for i, r := range rooms {
		at := fmt.Sprintf("homerooms[%d].", i)
		r.SchoolID = school.ID
		r.Name = library.NormalizeClassField(r.Name)
		r.TeacherName = strings.TrimSpace(r.TeacherName)
		r.TeacherEmail = user.NormalizeEmail(r.TeacherEmail)
		if msg := library.ValidateHomeroom(r.Name); msg != "" || r.Name == "" {
			if msg == "" {
				msg = "must not be empty"
			}
			fields.Add(at+"name", msg)
		} else if j, dup := seen[library.HomeroomKey(r.Name)]; dup {
			fields.Add(at+"name", fmt.Sprintf("repeats homerooms[%d]", j))
		} else {
			seen[library.HomeroomKey(r.Name)] = i
		}
		if n := len([]rune(r.TeacherName)); n > library.MaxHomeroomTeacherName {
			fields.Add(at+"teacher_name", fmt.Sprintf("must be at most %d characters", library.MaxHomeroomTeacherName))
		}
		if msg := user.ValidateEmail(r.TeacherEmail); msg != "" {
			fields.Add(at+"teacher_email", msg)
		}
		out = append(out, r)
	}
	if err := fields.Err(); err != nil {
		return library.School{}, nil, err
	}
	slices.SortFunc(out, func(a, b library.Homeroom) int { return library.CompareHomerooms(a.Name, b.Name) })
	if err := s.homerooms.ReplaceHomerooms(ctx, school.ID, out); err != nil {
		return library.School{}, nil, err
	}
	return school, out, nil
}

// LoanNotices returns the notices sent about a loan the caller may reach
// (within schoolParam when it names a school, see reaches).
// Errors: NotFound "loan_not_found", as scope.
func (s *Notices) LoanNotices(ctx context.Context, schoolParam, loanID string) ([]library.Notice, error) {
	if !usecase.IsUUID(loanID) {
		return nil, library.ErrLoanNotFound()
	}
	loans, err := s.loanReader.loans.ByIDs(ctx, []string{loanID})
	if err != nil {
		return nil, err
	}
	if len(loans) == 0 {
		return nil, library.ErrLoanNotFound()
	}
	if ok, err := s.scope.Reaches(ctx, schoolParam, loans[0].SchoolID); err != nil || !ok {
		if err == nil {
			err = library.ErrLoanNotFound()
		}
		return nil, err
	}
	return s.notices.OfSubject(ctx, loanID)
}

// NoticeRun is what one Run did.
type NoticeRun struct {
	Schools int // schools whose notices were due and ran
	Sent    int // notices whose mail the server took
	Failed  int // notices whose mail failed (a later run sends them)
	Mails   int // mails sent
}

// Run sends the notices due at now in every school that has them on and
// whose local time has passed its send time, once per school day. The
// sweep calls it each interval on one replica; running it again, or on
// several replicas at once, sends nothing twice.
func (s *Notices) Run(ctx context.Context, now time.Time) (NoticeRun, error) {
	var res NoticeRun
	schools, err := s.scope.Schools.List(ctx)
	if err != nil {
		return res, err
	}
	for _, school := range schools {
		set, err := s.notices.Settings(ctx, school.ID)
		if err != nil {
			return res, err
		}
		local := school.Today(now)
		if !set.Enabled || !library.NoticeDueToday(local, set) {
			continue
		}
		day := local.Format("2006-01-02")
		done, err := s.notices.DayFinished(ctx, school.ID, day)
		if err != nil {
			return res, err
		}
		if done {
			continue
		}
		res.Schools++
		if err := s.runSchool(ctx, school, set, local, &res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// letter is one mail of a run: the notices it carries and its text, in
// its recipient's language.
type letter struct {
	to       string
	audience string // audienceStudent, audienceDigest or audienceGuardian
	lang     i18n.Lang
	subject  string
	keys     []string
	lines    []string
}

// Who a mail of a run is for.
const (
	audienceStudent  = "student"
	audienceDigest   = "digest"
	audienceGuardian = "guardian"
)

func audienceOf(kind string) string {
	switch kind {
	case library.NoticeHomeroomDigest:
		return audienceDigest
	case library.NoticeOverdueGuardian, library.NoticeHoldReadyGuardian:
		return audienceGuardian
	}
	return audienceStudent
}

// body is the letter's text. A guardian's copy says why it came and how to
// reach the library: the family has no account to look things up in.
func (l *letter) body(school library.School, set library.NoticeSettings) string {
	lang := l.lang
	lines := strings.Join(l.lines, "\n")
	signature := lang.T("%s library", school.Name) + "\n"
	if l.audience != audienceGuardian {
		return lang.T("Hello,") + "\n\n" + lines + "\n\n" + lang.T("Please bring books back to the library, or ask the librarian to renew them.") + "\n" + signature
	}
	contact := lang.T("To contact the library, please contact %s.", school.Name)
	if set.Contact != "" {
		contact = lang.T("To contact the library: %s", set.Contact)
	}
	return lang.T("Hello,") + "\n\n" + lang.T("The school library sends you a copy of the notices it sends to a student in your care, as %s has chosen to:", school.Name) +
		"\n\n" + lines + "\n\n" + contact + "\n" + signature
}

// readerLang is the language of a mail to an account of the school: the
// person's own choice, else the school's, else English.
func readerLang(a user.Account, school library.School) i18n.Lang {
	return i18n.Choose(a.Preferences.Language, school.Settings.Language, "")
}

// teacherLangs finds the language of each homeroom teacher's digest: the
// teacher's account's own choice when their address has an account, else
// the school's. It remembers each address it looked up.
type teacherLangs struct {
	accounts ports.AccountRepository
	school   library.School
	known    map[string]i18n.Lang
}

func (t *teacherLangs) of(ctx context.Context, email string) (i18n.Lang, error) {
	if l, ok := t.known[email]; ok {
		return l, nil
	}
	personal := ""
	acct, err := t.accounts.GetByEmail(ctx, email)
	switch {
	case err == nil && !acct.Deleted:
		personal = acct.Preferences.Language
	case err != nil && !errs.Is(err, errs.NotFound):
		return "", err
	}
	l := i18n.Choose(personal, t.school.Settings.Language, "")
	t.known[email] = l
	return l, nil
}

// guardianCopies are the copies of the student notice n that go to st's
// guardians with an address, when the school copies notices of n's kind:
// one each, keyed by the address, so each goes once whatever the runs.
func guardianCopies(n library.Notice, st user.Account, set library.NoticeSettings) []library.Notice {
	gkind, ok := library.GuardianKind(n.Kind)
	if !ok || !set.CopiesToGuardians(n.Kind) {
		return nil
	}
	var out []library.Notice
	for _, g := range st.Guardians {
		if g.Email == "" {
			continue
		}
		c := n
		c.Key, c.Kind, c.Recipient = library.GuardianNoticeKey(n.Key, g.Email), gkind, g.Email
		out = append(out, c)
	}
	return out
}

func (s *Notices) runSchool(ctx context.Context, school library.School, set library.NoticeSettings, local time.Time, res *NoticeRun) error {
	day := local.Format("2006-01-02")
	if err := s.retryAbandoned(ctx, school.ID); err != nil {
		return err
	}
	open, err := s.loanReader.loans.Open(ctx, school.ID, "", "")
	if err != nil {
		return err
	}
	active, err := s.loanReader.claimed(ctx, open)
	if err != nil {
		return err
	}
	views, err := s.loanReader.Views(ctx, active, local)
	if err != nil {
		return err
	}
	// The holds whose copy waits for the student: open (queued) and put
	// aside.
	traps, err := s.readyTraps(ctx, school.ID)
	if err != nil {
		return err
	}
	studentIDs := make([]string, 0, len(views)+len(traps))
	for _, v := range views {
		studentIDs = append(studentIDs, v.Loan.StudentID)
	}
	bookIDs := make([]string, 0, len(traps))
	for _, t := range traps {
		studentIDs = append(studentIDs, t.StudentID)
		bookIDs = append(bookIDs, t.BookID)
	}
	titles := map[string]library.Book{}
	if len(bookIDs) > 0 {
		books, err := s.holdings.BooksByID(ctx, school.ID, bookIDs)
		if err != nil {
			return err
		}
		for _, b := range books {
			titles[b.ID] = b
		}
	}
	slices.Sort(studentIDs)
	students, err := s.accounts.GetMany(ctx, slices.Compact(studentIDs))
	if err != nil {
		return err
	}
	byID := make(map[string]user.Account, len(students))
	for _, a := range students {
		byID[a.ID] = a
	}
	rooms, err := s.homerooms.Homerooms(ctx, school.ID)
	if err != nil {
		return err
	}
	teacherOf := make(map[string]library.Homeroom, len(rooms))
	for _, r := range rooms {
		teacherOf[library.HomeroomKey(r.Name)] = r
	}

	// What is due, as records to claim, each with the language of its
	// recipient and the line its mail says, written in the language of the
	// letter it goes in.
	var wanted []library.Notice
	var langs []i18n.Lang
	var lines []func(i18n.Lang) string
	schoolLang := school.Settings.Lang() // a guardian has no account: the school's
	teachers := teacherLangs{accounts: s.accounts, school: school, known: map[string]i18n.Lang{}}
	claimedAt := s.clock.Now().UTC()
	for _, v := range views {
		st, ok := byID[v.Loan.StudentID]
		if !ok || st.Deleted {
			continue
		}
		kind, step, due := library.LoanReminder(v.DueAt, local, set)
		if due {
			n := library.Notice{Key: library.NoticeKey(v.Loan.ID, kind, v.DueAt, step, day), SchoolID: school.ID, SubjectID: v.Loan.ID,
				StudentID: st.ID, Kind: kind, Step: step, DueAt: v.DueAt, Day: day, Recipient: st.Email, ClaimedAt: claimedAt}
			if st.Email != "" {
				wanted = append(wanted, n)
				langs = append(langs, readerLang(st, school))
				lines = append(lines, func(l i18n.Lang) string { return studentLine(l, v, kind, local) })
			}
			// A young student often has no address: their guardians'
			// copies go all the same.
			for _, c := range guardianCopies(n, st, set) {
				wanted = append(wanted, c)
				langs = append(langs, schoolLang)
				lines = append(lines, func(l i18n.Lang) string { return guardianLoanLine(l, v, st, local) })
			}
		}
		if v.Status != library.LoanOverdue {
			continue
		}
		room, ok := teacherOf[library.HomeroomKey(st.Homeroom)]
		if st.Homeroom == "" || !ok {
			continue
		}
		n := library.Notice{Key: library.NoticeKey(v.Loan.ID, library.NoticeHomeroomDigest, v.DueAt, 0, day), SchoolID: school.ID,
			SubjectID: v.Loan.ID, StudentID: st.ID, Kind: library.NoticeHomeroomDigest, DueAt: v.DueAt, Day: day,
			Recipient: room.TeacherEmail, ClaimedAt: claimedAt}
		teacherLang, err := teachers.of(ctx, room.TeacherEmail)
		if err != nil {
			return err
		}
		wanted = append(wanted, n)
		langs = append(langs, teacherLang)
		lines = append(lines, func(l i18n.Lang) string { return digestLine(l, v, st, local) })
	}
	for _, t := range traps {
		st, ok := byID[t.StudentID]
		if !ok || st.Deleted {
			continue
		}
		kind := library.HoldReminder(t.ExpiresAt, local)
		n := library.Notice{Key: library.NoticeKey(t.HoldID, kind, "", 0, day), SchoolID: school.ID, SubjectID: t.HoldID,
			StudentID: st.ID, Kind: kind, DueAt: t.ExpiresAt.In(local.Location()).Format("2006-01-02"), Day: day, Recipient: st.Email,
			ClaimedAt: claimedAt}
		if st.Email != "" {
			wanted = append(wanted, n)
			langs = append(langs, readerLang(st, school))
			lines = append(lines, func(l i18n.Lang) string { return holdLine(l, titles[t.BookID], t, kind, local.Location()) })
		}
		for _, c := range guardianCopies(n, st, set) {
			wanted = append(wanted, c)
			langs = append(langs, schoolLang)
			lines = append(lines, func(l i18n.Lang) string { return guardianHoldLine(l, titles[t.BookID], t, st, local.Location()) })
		}
	}
	won, err := s.notices.Claim(ctx, wanted)
	if err != nil {
		return err
	}

	// One mail per recipient and audience: a student's reminders together,
	// a homeroom's overdue books together, and a guardian's copies about
	// all of their children together.
	letters := map[string]*letter{}
	var order []string
	for _, i := range won {
		n := wanted[i]
		aud := audienceOf(n.Kind)
		id := aud + "\x00" + n.Recipient
		l, ok := letters[id]
		if !ok {
			// The language of the letter's first notice: one recipient's
			// (two students who share an address get one letter, in the
			// language of the first).
			lang := langs[i]
			l = &letter{to: n.Recipient, audience: aud, lang: lang}
			switch aud {
			case audienceDigest:
				l.subject = lang.T("Overdue library books, %s", lang.Date(local))
			case audienceGuardian:
				l.subject = lang.T("Library notice from %s", school.Name)
			default:
				l.subject = lang.T("Library reminder from %s", school.Name)
			}
			letters[id] = l
			order = append(order, id)
		}
		l.keys = append(l.keys, n.Key)
		l.lines = append(l.lines, lines[i](l.lang))
	}
	failed := false
	for _, id := range order {
		l := letters[id]
		err := s.mail.Send(ctx, ports.Message{To: l.to, Subject: l.subject, Text: l.body(school, set)})
		if err != nil {
			failed = true
			res.Failed += len(l.keys)
			if rerr := s.notices.Release(ctx, l.keys); rerr != nil {
				return rerr
			}
			s.mail.BackgroundError("send a library notice (a later run tries again)", err)
			continue
		}
		res.Mails++
		res.Sent += len(l.keys)
		if err := s.notices.MarkSent(ctx, l.keys, s.clock.Now().UTC()); err != nil {
			return err
		}
	}
	if failed {
		return nil // the day stays open: the next run sends what failed
	}
	// A notice claimed and not sent (a run that stopped, or one still
	// sending) keeps the day open too, so that a later run sends it.
	pending, err := s.notices.Unsent(ctx, school.ID, s.clock.Now().Add(time.Minute), 1)
	if err != nil || len(pending) > 0 {
		return err
	}
	return s.notices.FinishDay(ctx, school.ID, day)
}

// readyBatch is how many of a school's ready holds one read takes.
const readyBatch = 500

// readyTraps returns the traps of the school's open holds that have a copy
// put aside, walking the ready part of the queue a page at a time.
func (s *Notices) readyTraps(ctx context.Context, schoolID string) ([]library.HoldTrap, error) {
	var out []library.HoldTrap
	var after library.HoldQueueEntry
	for {
		entries, err := s.holds.ReadyQueue(ctx, schoolID, after, readyBatch)
		if err != nil || len(entries) == 0 {
			return out, err
		}
		traps, err := s.holds.TrapsOfHolds(ctx, usecase.Pluck(entries, func(e library.HoldQueueEntry) string { return e.HoldID }))
		if err != nil {
			return nil, err
		}
		out = append(out, traps...)
		if len(entries) < readyBatch {
			return out, nil
		}
		after = entries[len(entries)-1]
	}
}

// retryAbandoned releases the school's notices that a stopped run claimed
// and never sent, so this run sends them.
func (s *Notices) retryAbandoned(ctx context.Context, schoolID string) error {
	for {
		stale, err := s.notices.Unsent(ctx, schoolID, s.clock.Now().Add(-unsentAfter), 500)
		if err != nil || len(stale) == 0 {
			return err
		}
		keys := usecase.Pluck(stale, func(n library.Notice) string { return n.Key })
		if err := s.notices.Release(ctx, keys); err != nil {
			return err
		}
		if len(stale) < 500 {
			return nil
		}
	}
}

// studentLine is a loan's line of a student's reminder. An overdue one
// says the days the book is overdue on the school's date today, not the
// step that sent the notice (a step missed while the service was down is
// not sent late, so a later one may go out days past its own).
func studentLine(lang i18n.Lang, v LoanView, kind string, today time.Time) string {
	switch kind {
	case library.NoticeDueSoon:
		return lang.T("- %s (%s, copy %s) is due back on %s.", v.Loan.BookTitle, v.Loan.BookAuthor, v.Loan.CopyCode, dueDate(lang, v.DueAt))
	default:
		return lang.T("- %s (%s, copy %s) was due on %s and is %s overdue.", v.Loan.BookTitle, v.Loan.BookAuthor, v.Loan.CopyCode,
			dueDate(lang, v.DueAt), daysOverdue(lang, v.DueAt, today))
	}
}

func holdLine(lang i18n.Lang, b library.Book, t library.HoldTrap, kind string, loc *time.Location) string {
	until := lang.Date(t.ExpiresAt.In(loc))
	if kind == library.NoticeHoldExpiring {
		return lang.T("- %s (%s), the book you reserved, is waiting for you at the library until %s, its last day: after that it goes to the next reader.", b.Title, b.Author, until)
	}
	return lang.T("- %s (%s), the book you reserved, is waiting for you at the library (copy %s) until %s.", b.Title, b.Author, t.CopyCode, until)
}

// guardianLoanLine is a loan's line in a guardian's copy: it names the
// student, as one guardian may have several at the school.
func guardianLoanLine(lang i18n.Lang, v LoanView, st user.Account, today time.Time) string {
	return lang.T("- %s has %s (%s, copy %s), which was due on %s and is %s overdue.", st.Name, v.Loan.BookTitle, v.Loan.BookAuthor,
		v.Loan.CopyCode, dueDate(lang, v.DueAt), daysOverdue(lang, v.DueAt, today))
}

func guardianHoldLine(lang i18n.Lang, b library.Book, t library.HoldTrap, st user.Account, loc *time.Location) string {
	return lang.T("- %s (%s), which %s reserved, is waiting at the library (copy %s) until %s.", b.Title, b.Author, st.Name, t.CopyCode,
		lang.Date(t.ExpiresAt.In(loc)))
}

func digestLine(lang i18n.Lang, v LoanView, st user.Account, today time.Time) string {
	return lang.T("- %s (%s): %s, copy %s, due %s, %s overdue.", st.Name, st.Homeroom, v.Loan.BookTitle, v.Loan.CopyCode,
		dueDate(lang, v.DueAt), daysOverdue(lang, v.DueAt, today))
}

// dueDate writes a loan's due date (YYYY-MM-DD, the school's calendar day)
// as the language writes a date in a sentence; one that does not read as
// a date is written as it is.
func dueDate(lang i18n.Lang, due string) string {
	d, err := time.Parse("2006-01-02", due)
	if err != nil {
		return due
	}
	return lang.Date(d)
}

// daysOverdue is how long a loan due on due is overdue today: "1 day",
// "7 days", as the language counts them.
func daysOverdue(lang i18n.Lang, due string, today time.Time) string {
	days := library.DaysOverdue(due, today)
	if days == 1 {
		return lang.T("1 day")
	}
	return lang.T("%d days", days)
}
