package porttest

import (
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ = register("Notices", Notices)

// Notices checks the ports.NoticeRepository and ports.HomeroomRepository
// contracts: the records behind reminder mail.
func Notices(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	runPortTests(t, newRepos, []portTest{
		{"Settings", testNoticeSettings},
		{"ClaimSendRelease", testNoticeClaimSendRelease},
		{"ClaimRace", testNoticeClaimRace},
		{"Forget", testNoticeForget},
		{"ForgetLoansOfStudent", testNoticeForgetLoansOfStudent},
		{"Days", testNoticeDays},
		{"Homerooms", testHomerooms},
	})
}

func newNotice(schoolID, loanID, studentID, kind string, step int, claimed time.Time) library.Notice {
	return library.Notice{Key: library.NoticeKey(loanID, kind, "2025-05-01", step, "2025-05-02"), SchoolID: schoolID, SubjectID: loanID,
		StudentID: studentID, Kind: kind, Step: step, DueAt: "2025-05-01", Day: "2025-05-02", Recipient: "lena@alder.example.org", ClaimedAt: claimed}
}

func testNoticeSettings(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	got, err := r.Notices.Settings(ctx(t), school)
	must(t, "Settings of a school that saved none", err)
	checkEqual(t, "Settings of a school that saved none", got, library.DefaultNoticeSettings())
	// Guardian copies and a contact in a script beyond ASCII are kept;
	// saved again without, they read back as none (nil) and "".
	for _, set := range []library.NoticeSettings{
		{Enabled: true, SendAt: "06:05", DueSoonDays: 1, OverdueSteps: []int{1, 3, 30},
			GuardianCopies: []string{library.NoticeOverdue, library.NoticeHoldReady},
			Contact:        "Bücherei Zoë Ødegård, bibliothek@alder.example.org, 030-555 01 00 (Mo–Fr 8–16 Uhr) 📚"},
		{Enabled: false, SendAt: "23:59", DueSoonDays: 0, OverdueSteps: []int{}},
		{Enabled: true, SendAt: "07:00", DueSoonDays: 2, OverdueSteps: []int{7},
			GuardianCopies: []string{library.NoticeHoldReady}, Contact: "Библиотека, каб. 12"},
	} {
		must(t, "SaveSettings", r.Notices.SaveSettings(ctx(t), school, set))
		got, err := r.Notices.Settings(ctx(t), school)
		must(t, "Settings", err)
		checkEqual(t, "Settings after SaveSettings", got, set)
	}
	other, err := r.Notices.Settings(ctx(t), uuid.NewString())
	must(t, "Settings of another school", err)
	checkEqual(t, "Settings of another school", other, library.DefaultNoticeSettings())
}

func testNoticeClaimSendRelease(t *testing.T, r ports.Repositories) {
	school, loan, student := uuid.NewString(), uuid.NewString(), uuid.NewString()
	a := newNotice(school, loan, student, library.NoticeDueSoon, 0, base)
	b := newNotice(school, loan, student, library.NoticeOverdue, 1, base.Add(time.Minute))
	c := newNotice(school, loan, student, library.NoticeOverdue, 7, base.Add(2*time.Minute))
	won, err := r.Notices.Claim(ctx(t), []library.Notice{b, a})
	must(t, "Claim", err)
	checkEqual(t, "Claim of two free keys", won, []int{0, 1})
	won, err = r.Notices.Claim(ctx(t), []library.Notice{a, c, b})
	must(t, "Claim again", err)
	checkEqual(t, "Claim of two taken keys and a free one", won, []int{1})

	must(t, "MarkSent", r.Notices.MarkSent(ctx(t), []string{a.Key}, base.Add(time.Hour)))
	unsent, err := r.Notices.Unsent(ctx(t), school, base.Add(90*time.Second), 10)
	must(t, "Unsent", err)
	if len(unsent) != 1 || unsent[0].Key != b.Key {
		t.Fatalf("Unsent claimed before b's time + 30 s = %+v, want b alone (a is sent, c is newer)", unsent)
	}
	// Releasing a sent notice keeps it; an unsent one goes and can be
	// claimed again.
	must(t, "Release", r.Notices.Release(ctx(t), []string{a.Key, b.Key}))
	all, err := r.Notices.OfSubject(ctx(t), loan)
	must(t, "OfSubject", err)
	a.SentAt = base.Add(time.Hour)
	inOrder(checkNotice)(t, "OfSubject after Release", all, []library.Notice{a, c})
	won, err = r.Notices.Claim(ctx(t), []library.Notice{b})
	must(t, "Claim a released notice", err)
	checkEqual(t, "Claim a released notice", won, []int{0})
	none, err := r.Notices.OfSubject(ctx(t), uuid.NewString())
	must(t, "OfSubject of another loan", err)
	if len(none) != 0 {
		t.Fatalf("OfSubject of another loan = %+v", none)
	}
}

// Twenty runs claim the same notices at once: each notice is won by
// exactly one of them.
func testNoticeClaimRace(t *testing.T, r ports.Repositories) {
	school, student := uuid.NewString(), uuid.NewString()
	var batch []library.Notice
	for i := range 6 {
		batch = append(batch, newNotice(school, uuid.NewString(), student, library.NoticeOverdue, 1, base.Add(time.Duration(i)*time.Second)))
	}
	var mu sync.Mutex
	wins := map[string]int{}
	errs := race(20, func(int) error {
		won, err := r.Notices.Claim(ctx(t), batch)
		mu.Lock()
		defer mu.Unlock()
		for _, i := range won {
			wins[batch[i].Key]++
		}
		return err
	})
	for i, err := range errs {
		must(t, "racing Claim "+string(rune('a'+i)), err)
	}
	for _, n := range batch {
		if wins[n.Key] != 1 {
			t.Errorf("notice %s was won %d times by 20 racing claims, want exactly once", n.Key, wins[n.Key])
		}
	}
}

// A student who keeps no loan history loses the notices about their
// returned loans, of the kinds named, and keeps those about loans still
// out, their holds' and everyone else's.
func testNoticeForgetLoansOfStudent(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	student, other := uuid.NewString(), uuid.NewString()
	returned, out, hold := uuid.NewString(), uuid.NewString(), uuid.NewString()
	gone := []library.Notice{
		newNotice(school, returned, student, library.NoticeDueSoon, 0, base),
		newNotice(school, returned, student, library.NoticeOverdue, 7, base.Add(time.Hour)),
	}
	copyToGuardian := newNotice(school, returned, student, library.NoticeOverdue, 14, base.Add(2*time.Hour))
	copyToGuardian.Key, copyToGuardian.Kind = library.GuardianNoticeKey(copyToGuardian.Key, "ann@example.org"), library.NoticeOverdueGuardian
	gone = append(gone, copyToGuardian)
	stays := []library.Notice{
		newNotice(school, out, student, library.NoticeOverdue, 1, base),
		newNotice(school, hold, student, library.NoticeHoldReady, 0, base),
		newNotice(school, returned, other, library.NoticeOverdue, 1, base), // another student's notice of the same loan id
	}
	_, err := r.Notices.Claim(ctx(t), append(append([]library.Notice{}, gone...), stays...))
	must(t, "Claim", err)
	kinds := []string{library.NoticeDueSoon, library.NoticeOverdue, library.NoticeHomeroomDigest, library.NoticeOverdueGuardian}
	n, err := r.Notices.ForgetLoansOfStudent(ctx(t), student, kinds, []string{out})
	must(t, "ForgetLoansOfStudent", err)
	if n != len(gone) {
		t.Errorf("ForgetLoansOfStudent deleted %d notices, want %d", n, len(gone))
	}
	if n, err := r.Notices.ForgetLoansOfStudent(ctx(t), student, kinds, []string{out}); err != nil || n != 0 {
		t.Errorf("ForgetLoansOfStudent again: %d, %v; want 0", n, err)
	}
	got, err := r.Notices.OfSubject(ctx(t), returned)
	must(t, "OfSubject of the returned loan", err)
	if len(got) != 1 || got[0].StudentID != other {
		t.Errorf("the returned loan's notices: %+v, want only the other student's", got)
	}
	for _, subject := range []string{out, hold} {
		if got, err := r.Notices.OfSubject(ctx(t), subject); err != nil || len(got) != 1 {
			t.Errorf("notices of %s: %+v %v, want the one kept", subject, got, err)
		}
	}
	// No loans out: every notice of those kinds goes.
	if n, err := r.Notices.ForgetLoansOfStudent(ctx(t), student, kinds, nil); err != nil || n != 1 {
		t.Errorf("ForgetLoansOfStudent with nothing out: %d, %v; want the out loan's notice", n, err)
	}
}

func testNoticeForget(t *testing.T, r ports.Repositories) {
	school, other := uuid.NewString(), uuid.NewString()
	student, kept := uuid.NewString(), uuid.NewString()
	loan := uuid.NewString()
	old := newNotice(school, loan, student, library.NoticeDueSoon, 0, base)
	older := newNotice(school, uuid.NewString(), kept, library.NoticeDueSoon, 0, base.Add(-time.Hour))
	recent := newNotice(school, uuid.NewString(), kept, library.NoticeOverdue, 1, base.Add(48*time.Hour))
	elsewhere := newNotice(other, uuid.NewString(), kept, library.NoticeOverdue, 1, base)
	_, err := r.Notices.Claim(ctx(t), []library.Notice{old, older, recent, elsewhere})
	must(t, "Claim", err)

	must(t, "ForgetStudent", r.Notices.ForgetStudent(ctx(t), student))
	must(t, "ForgetStudent again", r.Notices.ForgetStudent(ctx(t), student))
	if got, err := r.Notices.OfSubject(ctx(t), loan); err != nil || len(got) != 0 {
		t.Fatalf("the forgotten student's notices: %+v %v, want none", got, err)
	}
	n, err := r.Notices.DeleteClaimedBefore(ctx(t), school, base.Add(time.Hour), 1)
	must(t, "DeleteClaimedBefore", err)
	if n != 1 {
		t.Fatalf("DeleteClaimedBefore with a limit of 1 deleted %d", n)
	}
	n, err = r.Notices.DeleteClaimedBefore(ctx(t), school, base.Add(time.Hour), 10)
	must(t, "DeleteClaimedBefore again", err)
	if n != 0 {
		t.Fatalf("DeleteClaimedBefore found %d more, want 0 (the only old one is gone)", n)
	}
	for _, want := range []library.Notice{recent, elsewhere} {
		got, err := r.Notices.OfSubject(ctx(t), want.SubjectID)
		must(t, "OfSubject kept", err)
		inOrder(checkNotice)(t, "a notice DeleteClaimedBefore does not reach", got, []library.Notice{want})
	}
}

func testNoticeDays(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	for _, day := range []string{"2025-05-02", "2025-05-02"} {
		must(t, "FinishDay", r.Notices.FinishDay(ctx(t), school, day))
	}
	for day, want := range map[string]bool{"2025-05-02": true, "2025-05-03": false} {
		got, err := r.Notices.DayFinished(ctx(t), school, day)
		must(t, "DayFinished", err)
		if got != want {
			t.Errorf("DayFinished %s = %v, want %v", day, got, want)
		}
	}
	if got, err := r.Notices.DayFinished(ctx(t), uuid.NewString(), "2025-05-02"); err != nil || got {
		t.Errorf("DayFinished of another school = %v %v, want false", got, err)
	}
}

func testHomerooms(t *testing.T, r ports.Repositories) {
	school, other := uuid.NewString(), uuid.NewString()
	first := []library.Homeroom{
		{SchoolID: school, Name: "3C", TeacherName: "Ms Ito", TeacherEmail: "ito@alder.example.org"},
		{SchoolID: school, Name: "4A", TeacherName: "Mr Abe", TeacherEmail: "abe@alder.example.org"},
	}
	must(t, "ReplaceHomerooms", r.Homerooms.ReplaceHomerooms(ctx(t), school, first))
	must(t, "ReplaceHomerooms of another school", r.Homerooms.ReplaceHomerooms(ctx(t), other, first[:1]))
	got, err := r.Homerooms.Homerooms(ctx(t), school)
	must(t, "Homerooms", err)
	checkEqual(t, "Homerooms", got, first)
	second := []library.Homeroom{{SchoolID: school, Name: "4A", TeacherName: "Ms Bell", TeacherEmail: "bell@alder.example.org"}}
	must(t, "ReplaceHomerooms again", r.Homerooms.ReplaceHomerooms(ctx(t), school, second))
	got, err = r.Homerooms.Homerooms(ctx(t), school)
	must(t, "Homerooms after a replace", err)
	checkEqual(t, "Homerooms after a replace", got, second)
	must(t, "ReplaceHomerooms with none", r.Homerooms.ReplaceHomerooms(ctx(t), school, nil))
	if got, err := r.Homerooms.Homerooms(ctx(t), school); err != nil || len(got) != 0 {
		t.Fatalf("Homerooms after replacing with none = %+v %v", got, err)
	}
	kept, err := r.Homerooms.Homerooms(ctx(t), other)
	must(t, "Homerooms of the other school", err)
	if len(kept) != 1 {
		t.Fatalf("another school's homerooms = %+v, want its one", kept)
	}
}
