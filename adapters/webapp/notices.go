package webapp

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

// ----- reminder mail: the school's settings, its homerooms, a loan's log -----

type noticesView struct {
	base
	Base      string
	Settings  library.NoticeSettings
	Homerooms []library.Homeroom
	CanEdit   bool
	Form      *formState // the reminder settings form
	Rooms     *formState // the homerooms form
}

func (a *App) notices(w http.ResponseWriter, r *http.Request, school library.School) {
	a.renderNotices(w, r, school, http.StatusOK, nil, nil)
}

func (a *App) renderNotices(w http.ResponseWriter, r *http.Request, school library.School, status int, form, rooms *formState) {
	_, set, err := a.deps.Library.Notices.Settings(r.Context(), school.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	_, list, err := a.deps.Library.Notices.Homerooms(r.Context(), school.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	v := noticesView{base: a.schoolBase(r, school, "Reminders", "notices"), Base: schoolPath(school), Settings: set, Homerooms: list,
		CanEdit: a.allowed(r, "update", "library:notices"), Form: form, Rooms: rooms}
	if form == nil {
		v.Flash = a.takeFlash(w, r)
		steps := make([]string, len(set.OverdueSteps))
		for i, d := range set.OverdueSteps {
			steps[i] = strconv.Itoa(d)
		}
		v.Form = &formState{Values: map[string]string{"enabled": strconv.FormatBool(set.Enabled), "send_at": set.SendAt,
			"due_soon_days": strconv.Itoa(set.DueSoonDays), "overdue_steps": strings.Join(steps, ", "),
			"guardian_overdue":    strconv.FormatBool(set.CopiesToGuardians(library.NoticeOverdue)),
			"guardian_hold_ready": strconv.FormatBool(set.CopiesToGuardians(library.NoticeHoldReady)), "contact": set.Contact}}
	}
	if rooms == nil {
		lines := make([]string, len(list))
		for i, h := range list {
			lines[i] = h.Name + "; " + h.TeacherName + "; " + h.TeacherEmail
		}
		v.Rooms = &formState{Values: map[string]string{"homerooms": strings.Join(lines, "\n")}}
	}
	a.render(w, r, status, "notices", v)
}

func (a *App) saveNotices(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	fields := errs.FieldErrors{}
	due, err := atoi(form, "due_soon_days", -1)
	if err != nil || strings.TrimSpace(form.Get("due_soon_days")) == "" {
		fields.Add("due_soon_days", "must be a whole number")
	}
	steps, bad := parseSteps(form.Get("overdue_steps"))
	if bad {
		fields.Add("overdue_steps", "must be whole numbers of days separated by commas, such as 1, 7, 14")
	}
	set := library.NoticeSettings{Enabled: form.Get("enabled") == "true", SendAt: strings.TrimSpace(form.Get("send_at")),
		DueSoonDays: due, OverdueSteps: steps, Contact: form.Get("contact")}
	if form.Get("guardian_overdue") == "true" {
		set.GuardianCopies = append(set.GuardianCopies, library.NoticeOverdue)
	}
	if form.Get("guardian_hold_ready") == "true" {
		set.GuardianCopies = append(set.GuardianCopies, library.NoticeHoldReady)
	}
	err = fields.Err()
	if err == nil {
		_, _, err = a.deps.Library.Notices.PutSettings(r.Context(), school.ID, set)
	}
	if err != nil {
		st := a.refused(r, err, form, "send_at", "due_soon_days", "overdue_steps", "contact")
		st.Values["enabled"] = strconv.FormatBool(set.Enabled)
		st.Values["guardian_overdue"] = strconv.FormatBool(set.CopiesToGuardians(library.NoticeOverdue))
		st.Values["guardian_hold_ready"] = strconv.FormatBool(set.CopiesToGuardians(library.NoticeHoldReady))
		a.renderNotices(w, r, school, a.statusFor(err), st, nil)
		return
	}
	msg := tr(r, "Reminder settings saved. Reminders are off.")
	if set.Enabled {
		msg = tr(r, "Reminder settings saved. Reminders go out each day from %s.", set.SendAt)
		if len(set.GuardianCopies) > 0 {
			msg += " " + tr(r, "Guardians get copies.")
		}
	}
	a.succeeded(w, r, schoolPath(school)+"/notices", msg)
}

// parseSteps reads "1, 7, 14" (commas or spaces) as days.
func parseSteps(s string) ([]int, bool) {
	out := []int{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == ';' }) {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, true
		}
		out = append(out, n)
	}
	return out, false
}

func (a *App) saveHomerooms(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	var rooms []library.Homeroom
	var err error
	for i, line := range strings.Split(form.Get("homerooms"), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		parts := strings.Split(line, ";")
		if len(parts) != 3 {
			err = errs.InvalidField("homerooms", tr(r, "line %s must be homeroom; teacher's name; teacher's email", strconv.Itoa(i+1)))
			break
		}
		rooms = append(rooms, library.Homeroom{Name: parts[0], TeacherName: parts[1], TeacherEmail: parts[2]})
	}
	if err == nil {
		_, _, err = a.deps.Library.Notices.ReplaceHomerooms(r.Context(), school.ID, rooms)
	}
	if err != nil {
		st := a.refused(r, err, form, "homerooms")
		a.renderNotices(w, r, school, a.statusFor(err), nil, st)
		return
	}
	msg := tr(r, "%d homerooms saved.", len(rooms))
	if len(rooms) == 1 {
		msg = tr(r, "1 homeroom saved.")
	}
	a.succeeded(w, r, schoolPath(school)+"/notices", msg)
}

type loanNoticesView struct {
	base
	Base    string
	LoanID  string
	Notices []library.Notice
}

func (a *App) loanNotices(w http.ResponseWriter, r *http.Request, school library.School) {
	id := mux.Vars(r)["id"]
	list, err := a.deps.Library.Notices.LoanNotices(r.Context(), school.ID, id)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.render(w, r, http.StatusOK, "loan_notices", loanNoticesView{base: a.schoolBase(r, school, "Reminders sent about a loan", "desk"),
		Base: schoolPath(school), LoanID: id, Notices: list})
}
