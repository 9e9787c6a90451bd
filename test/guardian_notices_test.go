package test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/mailer/mailpittest"
	"github.com/readinglibrary/service/core/service/circulation"
)

// A school that chooses it copies overdue and hold-ready notices to the
// students' guardians, read back from a real SMTP server: a guardian gets
// one copy per notice, naming the child, with the library's contact; a
// student with no address still has their guardians told; a parent of two
// children gets each child's notices; nothing goes twice. A client that
// leaves the new settings out keeps them, and bad ones change nothing.
func TestNoticesCopiedToGuardians(t *testing.T) {
	mp := mailpittest.Start(t)
	a := startService(t, mailEnv(t, mp, nil))
	lib := a.login(demoLibrarian, demoPassword).Access
	settings := func() map[string]any {
		t.Helper()
		r := a.do(req{Path: "/api/library/notices/settings", Token: lib})
		if r.Status != 200 {
			t.Fatalf("notice settings: %d %s", r.Status, r.Body)
		}
		return r.json(t)
	}
	put := func(body string) response {
		return a.do(req{Method: http.MethodPut, Path: "/api/library/notices/settings", Token: lib, Body: body})
	}
	if got := settings(); fmt.Sprint(got["guardian_copies"]) != "[]" || got["contact"] != "" {
		t.Fatalf("a school's guardian copies start off: %v", got)
	}
	const contact = "library@maplegrove.example.org, 555-0100, weekdays 8–4"
	if r := put(`{"enabled":true,"send_at":"00:00","due_soon_days":2,"overdue_steps":[1,7],"guardian_copies":["hold_ready","overdue"],"contact":"  ` + contact + ` "}`); r.Status != 200 {
		t.Fatalf("turn guardian copies on: %d %s", r.Status, r.Body)
	}
	want := func(what string) {
		t.Helper()
		if got := settings(); fmt.Sprint(got["guardian_copies"]) != "[overdue hold_ready]" || got["contact"] != contact {
			t.Fatalf("%s: settings %v, want both copies and the contact, trimmed", what, got)
		}
	}
	want("after turning them on")
	// A client written before these settings leaves them out: they stay.
	if r := put(`{"enabled":true,"send_at":"00:00","due_soon_days":2,"overdue_steps":[1,7]}`); r.Status != 200 {
		t.Fatalf("PUT without the guardian settings: %d %s", r.Status, r.Body)
	}
	want("after a PUT that left them out")
	for _, bad := range []string{
		`"guardian_copies":["due_soon"]`,
		`"guardian_copies":["overdue","hold_ready","overdue"]`,
		`"contact":"` + strings.Repeat("x", 201) + `"`,
		`"contact":"line one\nline two"`,
	} {
		if r := put(`{"enabled":true,"send_at":"00:00","due_soon_days":2,"overdue_steps":[1,7],` + bad + `}`); r.Status != 422 {
			t.Errorf("PUT notice settings with %s: %d %s, want 422", bad, r.Status, r.Body)
		}
	}
	want("after refused PUTs")

	mkStudent := func(body string) string {
		t.Helper()
		r := a.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: lib, Body: body})
		if r.Status != 201 {
			t.Fatalf("create student %s: %d %s", body, r.Status, r.Body)
		}
		return r.json(t)["student"].(map[string]any)["student_id"].(string)
	}
	// Kit is too young for an address; Lia, her sister, has one. Ann is
	// the parent of both; Bo of Kit alone; Cy has no address.
	kit := mkStudent(`{"name":"Kit Moss","student_number":"M-1","guardians":[
		{"name":"Ann Moss","email":"ann.moss@example.org","relationship":"parent"},
		{"name":"Bo Moss","email":"bo.moss@example.org","relationship":"parent"},
		{"name":"Cy Moss","relationship":"relative"}]}`)
	lia := mkStudent(`{"name":"Lia Moss","email":"lia.moss@maplegrove.example.org","student_number":"M-2",
		"guardians":[{"name":"Ann Moss","email":"ann.moss@example.org","relationship":"parent"}]}`)
	bookID, bookCopies := addLibraryBook(t, a, lib, `{"title":"River Song","author":"Ola Berg","copies":1}`)
	today := time.Now().UTC()
	r := a.do(req{Method: http.MethodPost, Path: "/api/library/loans", Token: lib, Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q,"due_at":%q}`,
		bookID, bookCopies[0]["id"], kit, today.AddDate(0, 0, 2).Format("2006-01-02"))})
	if r.Status != 201 {
		t.Fatalf("lend to Kit: %d %s", r.Status, r.Body)
	}
	kitLoan := r.json(t)["loan"].(map[string]any)["id"].(string)
	if r := a.do(req{Method: http.MethodPost, Path: "/api/library/holds", Token: lib, Body: fmt.Sprintf(`{"book_id":%q,"student_id":%q}`, bookID, lia)}); r.Status != 201 {
		t.Fatalf("Lia's hold: %d %s", r.Status, r.Body)
	}

	at := func(when time.Time) {
		a.App.Library.SetClock(func() time.Time { return when }, nil)
	}
	run := func(when time.Time) circulation.NoticeRun {
		t.Helper()
		at(when)
		res, err := a.App.Library.Notices.Run(context.Background(), when)
		if err != nil {
			t.Fatalf("notices run at %s: %v", when, err)
		}
		return res
	}
	// Today Kit's book is due soon: no copy of that kind, and Kit has no
	// address, so nothing goes.
	if res := run(today); res.Sent != 0 {
		t.Fatalf("today's run: %+v, want nothing (due-soon notices are not copied)", res)
	}
	// Nine days on, the book is seven days overdue: Ann and Bo get a copy
	// each, Cy has no address, and Kit none either.
	later := today.AddDate(0, 0, 9)
	if res := run(later); res.Sent != 2 || res.Mails != 2 {
		t.Fatalf("the overdue run: %+v, want two copies in two mails (Ann, Bo)", res)
	}
	for _, to := range []string{"ann.moss@example.org", "bo.moss@example.org"} {
		m := mp.WaitFor(t, to, 1)
		if len(m) != 1 || !strings.Contains(m[0].Text, "Kit Moss has River Song") || !strings.Contains(m[0].Text, "7 days overdue") ||
			!strings.Contains(m[0].Text, contact) {
			t.Fatalf("%s's copy: %d mails, %q", to, len(m), m)
		}
	}
	// Again on the same day at the school: an hour on is the next day
	// when the test runs after 23:00 UTC, so the same instant again.
	if res := run(later); res.Sent != 0 {
		t.Fatalf("the same day again: %+v, want nothing", res)
	}

	// Kit returns the book; it is put aside for Lia. The next day Lia gets
	// her notice, and Ann a copy naming Lia.
	// The return goes through the use case on the test's clock (in the
	// container suites a service on the same store): the hold's pickup
	// window starts nine days on.
	at(later)
	if _, err := a.App.Library.Circulation.ReturnLoan(asDemoLibrarian(t, a), kitLoan); err != nil {
		t.Fatalf("return: %v", err)
	}
	if res := run(later.AddDate(0, 0, 1)); res.Sent != 2 || res.Mails != 2 {
		t.Fatalf("the hold-ready run: %+v, want Lia's notice and Ann's copy", res)
	}
	if m := mp.WaitFor(t, "lia.moss@maplegrove.example.org", 1); len(m) != 1 || !strings.Contains(m[0].Text, "the book you reserved") {
		t.Fatalf("Lia's notice: %q", m)
	}
	anns := mp.WaitFor(t, "ann.moss@example.org", 2)
	if len(anns) != 2 || !strings.Contains(anns[0].Text+anns[1].Text, "River Song (Ola Berg), which Lia Moss reserved, is waiting") {
		t.Fatalf("Ann's mail: %q", anns)
	}
	if got := len(mp.To(t, "bo.moss@example.org")); got != 1 {
		t.Fatalf("Bo, who is not Lia's guardian, got %d mails, want only Kit's copy", got)
	}

	// The loan's log at the desk lists each copy with its address.
	var log struct {
		Notices []map[string]any `json:"notices"`
	}
	r = a.do(req{Path: "/api/library/loans/" + kitLoan + "/notices", Token: lib})
	_ = json.Unmarshal(r.Body, &log)
	copies := map[string]bool{}
	for _, n := range log.Notices {
		if n["kind"] == "overdue_guardian" && n["status"] == "sent" {
			copies[fmt.Sprint(n["recipient"])] = true
		}
	}
	if r.Status != 200 || len(copies) != 2 || !copies["ann.moss@example.org"] || !copies["bo.moss@example.org"] {
		t.Fatalf("Kit's loan log: %d %s, want the two guardians' copies", r.Status, r.Body)
	}

	// At the desk, the reminders page shows the choices and saves them; a
	// contact it refuses is named and changes nothing.
	b := newBrowser(t, a)
	if p := b.signIn(demoLibrarian, demoPassword); p.Status != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", p.Status)
	}
	page := "/library/" + demoDomain + "/notices"
	p := b.get(page)
	for _, id := range []string{"notices-guardian-overdue", "notices-guardian-hold-ready"} {
		if in := p.byID(id); in == nil || !hasHTMLAttr(in, "checked") {
			t.Fatalf("the reminders page: %s is not checked", id)
		}
	}
	if in := p.byID("notices-contact"); in == nil || htmlAttr(in, "value") != contact {
		t.Fatalf("the reminders page's contact field is not %q", contact)
	}
	form := url.Values{"enabled": {"true"}, "send_at": {"00:00"}, "due_soon_days": {"2"}, "overdue_steps": {"1, 7"}, "guardian_hold_ready": {"true"},
		"contact": {strings.Repeat("x", 201)}}
	if p := b.submit(page, form); p.Status != 422 || p.byID("notices-contact-error") == nil {
		t.Fatalf("a contact too long at the desk: %d, want 422 with the field's error", p.Status)
	}
	want("after the desk refused a contact")
	form.Set("contact", "")
	b.follow(page, form)
	if got := settings(); fmt.Sprint(got["guardian_copies"]) != "[hold_ready]" || got["contact"] != "" {
		t.Fatalf("saved at the desk: %v, want hold-ready copies alone and no contact", got)
	}
}
