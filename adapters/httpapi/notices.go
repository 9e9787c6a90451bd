package httpapi

import (
	"net/http"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/library"
)

// ----- reminder mail: notice settings, homerooms and a loan's log -----

type noticeSettingsBody struct {
	SchoolID     string `json:"school_id"`
	Enabled      bool   `json:"enabled"`
	SendAt       string `json:"send_at"`
	DueSoonDays  int    `json:"due_soon_days"`
	OverdueSteps []int  `json:"overdue_steps"`
	// GuardianCopies are the student notices copied to guardians.
	GuardianCopies []string `json:"guardian_copies"`
	Contact        string   `json:"contact"`
}

func toNoticeSettingsBody(school library.School, s library.NoticeSettings) noticeSettingsBody {
	steps := s.OverdueSteps
	if steps == nil {
		steps = []int{}
	}
	copies := s.GuardianCopies
	if copies == nil {
		copies = []string{}
	}
	return noticeSettingsBody{SchoolID: school.ID, Enabled: s.Enabled, SendAt: s.SendAt, DueSoonDays: s.DueSoonDays, OverdueSteps: steps,
		GuardianCopies: copies, Contact: s.Contact}
}

// noticeSettingsRequest replaces the settings; the guardian fields, which
// came later, keep their stored values when left out, so a client written
// before them does not turn the copies off.
type noticeSettingsRequest struct {
	Enabled        *bool     `json:"enabled" validate:"required"`
	SendAt         string    `json:"send_at" validate:"required"`
	DueSoonDays    *int      `json:"due_soon_days" validate:"required,min=0,max=14"`
	OverdueSteps   []int     `json:"overdue_steps" validate:"required,max=10,dive,min=1,max=365"`
	GuardianCopies *[]string `json:"guardian_copies" validate:"omitnil,max=2,dive,oneof=overdue hold_ready"`
	Contact        *string   `json:"contact" validate:"omitnil,max=200"`
}

func (h *handler) getNoticeSettings(w http.ResponseWriter, r *http.Request) {
	schoolID, ok := schoolOf(w, r)
	if !ok {
		return
	}
	school, set, err := h.deps.Library.Notices.Settings(r.Context(), schoolID)
	respond(w, r, http.StatusOK, toNoticeSettingsBody(school, set), err)
}

func (h *handler) putNoticeSettings(w http.ResponseWriter, r *http.Request) {
	schoolID, req, ok := schoolAndBody[noticeSettingsRequest](w, r)
	if !ok {
		return
	}
	set := library.NoticeSettings{Enabled: *req.Enabled, SendAt: req.SendAt, DueSoonDays: *req.DueSoonDays, OverdueSteps: req.OverdueSteps}
	if req.GuardianCopies == nil || req.Contact == nil {
		_, stored, err := h.deps.Library.Notices.Settings(r.Context(), schoolID)
		if err != nil {
			httpedge.WriteError(w, r, err)
			return
		}
		set.GuardianCopies, set.Contact = stored.GuardianCopies, stored.Contact
	}
	if req.GuardianCopies != nil {
		set.GuardianCopies = *req.GuardianCopies
	}
	if req.Contact != nil {
		set.Contact = *req.Contact
	}
	school, saved, err := h.deps.Library.Notices.PutSettings(r.Context(), schoolID, set)
	if err == nil {
		httpedge.Logger(r).Info("notice settings changed", "school_id", school.ID, "enabled", saved.Enabled, "guardian_copies", saved.GuardianCopies)
	}
	respond(w, r, http.StatusOK, toNoticeSettingsBody(school, saved), err)
}

type homeroomBody struct {
	Name         string `json:"name"`
	TeacherName  string `json:"teacher_name"`
	TeacherEmail string `json:"teacher_email"`
}

type homeroomsBody struct {
	SchoolID  string         `json:"school_id"`
	Homerooms []homeroomBody `json:"homerooms"`
}

func toHomeroomsBody(school library.School, rooms []library.Homeroom) homeroomsBody {
	return homeroomsBody{SchoolID: school.ID, Homerooms: mapSlice(rooms, func(h library.Homeroom) homeroomBody {
		return homeroomBody{Name: h.Name, TeacherName: h.TeacherName, TeacherEmail: h.TeacherEmail}
	})}
}

type homeroomsRequest struct {
	Homerooms []homeroomRequest `json:"homerooms" validate:"required,max=500,dive"`
}

type homeroomRequest struct {
	Name         string `json:"name" validate:"required"`
	TeacherName  string `json:"teacher_name"`
	TeacherEmail string `json:"teacher_email" validate:"required"`
}

func (h *handler) getHomerooms(w http.ResponseWriter, r *http.Request) {
	schoolID, ok := schoolOf(w, r)
	if !ok {
		return
	}
	school, rooms, err := h.deps.Library.Notices.Homerooms(r.Context(), schoolID)
	respond(w, r, http.StatusOK, toHomeroomsBody(school, rooms), err)
}

func (h *handler) putHomerooms(w http.ResponseWriter, r *http.Request) {
	schoolID, req, ok := schoolAndBody[homeroomsRequest](w, r)
	if !ok {
		return
	}
	rooms := mapSlice(req.Homerooms, func(hr homeroomRequest) library.Homeroom {
		return library.Homeroom{Name: hr.Name, TeacherName: hr.TeacherName, TeacherEmail: hr.TeacherEmail}
	})
	school, saved, err := h.deps.Library.Notices.ReplaceHomerooms(r.Context(), schoolID, rooms)
	if err == nil {
		httpedge.Logger(r).Info("homerooms replaced", "school_id", school.ID, "homerooms", len(saved))
	}
	respond(w, r, http.StatusOK, toHomeroomsBody(school, saved), err)
}

type noticeBody struct {
	Kind      string  `json:"kind"`
	Step      int     `json:"step"`
	DueAt     string  `json:"due_at"`
	Day       string  `json:"day"`
	Recipient string  `json:"recipient"`
	Status    string  `json:"status"`
	SentAt    *string `json:"sent_at"`
}

type noticesBody struct {
	Notices []noticeBody `json:"notices"`
}

func toNoticeBody(n library.Notice) noticeBody {
	b := noticeBody{Kind: n.Kind, Step: n.Step, DueAt: n.DueAt, Day: n.Day, Recipient: n.Recipient, Status: "pending"}
	if n.Sent() {
		at := timestamp(n.SentAt)
		b.Status, b.SentAt = "sent", &at
	}
	return b
}

func (h *handler) loanNotices(w http.ResponseWriter, r *http.Request) {
	notices, err := h.deps.Library.Notices.LoanNotices(r.Context(), "", pathID(r))
	respond(w, r, http.StatusOK, noticesBody{Notices: mapSlice(notices, toNoticeBody)}, err)
}
