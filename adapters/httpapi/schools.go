package httpapi

import (
	"net/http"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/schools"
)

type settingsBody struct {
	SchoolID           string `json:"school_id"`
	DefaultLoanDays    int    `json:"default_loan_days"`
	MaxRenewals        int    `json:"max_renewals"`
	RenewalDays        int    `json:"renewal_days"`
	AllowPublicCatalog bool   `json:"allow_public_catalog"`
	MaxCopiesPerBook   int    `json:"max_copies_per_book"`
	MaxCopiesPerSchool int    `json:"max_copies_per_school"`
	LoanHistoryDays    int    `json:"loan_history_days"`
	HistoryChoice      bool   `json:"history_choice"`
	Timezone           string `json:"timezone"`
	HoldPickupDays     int    `json:"hold_pickup_days"`
	SRUEndpoint        string `json:"sru_endpoint"`
	ReadingLevelCheck  string `json:"reading_level_check"`
	LabelPrefix        string `json:"label_prefix"`
	Language           string `json:"language"`
	chargeSettingsBody
}

func toSettingsBody(s library.School) settingsBody {
	set := s.Settings.WithCapDefaults()
	return settingsBody{SchoolID: s.ID, DefaultLoanDays: set.DefaultLoanDays, MaxRenewals: set.MaxRenewals,
		RenewalDays: set.RenewalDays, AllowPublicCatalog: set.AllowPublicCatalog,
		MaxCopiesPerBook: set.MaxCopiesPerBook, MaxCopiesPerSchool: set.MaxCopiesPerSchool, LoanHistoryDays: set.LoanHistoryDays,
		HistoryChoice: set.HistoryChoice, Timezone: set.Zone(), HoldPickupDays: set.HoldPickupDays, SRUEndpoint: set.CatalogEndpoint, ReadingLevelCheck: set.ReadingCheck(),
		LabelPrefix: set.LabelPrefix, Language: string(set.Lang()), chargeSettingsBody: toChargeSettingsBody(set.ChargeSettings)}
}

type calendarBody struct {
	SchoolID       string        `json:"school_id"`
	ClosedWeekdays []string      `json:"closed_weekdays"`
	Closures       []closureBody `json:"closures"`
	TermEnds       []string      `json:"term_ends"`
}

type closureBody struct {
	From string `json:"from"`
	To   string `json:"to"`
	Name string `json:"name"`
}

func toCalendarBody(s library.School) calendarBody {
	c := s.Calendar
	return calendarBody{SchoolID: s.ID, ClosedWeekdays: c.ClosedWeekdayNames(),
		Closures: mapSlice(c.Closures, func(cl library.Closure) closureBody { return closureBody(cl) }),
		TermEnds: append([]string{}, c.TermEnds...)}
}

type schoolBody struct {
	ID        string       `json:"id"`
	Name      string       `json:"name"`
	Domain    string       `json:"domain"`
	Settings  settingsBody `json:"settings"`
	CreatedAt string       `json:"created_at"`
}

func toSchoolBody(s library.School) schoolBody {
	return schoolBody{ID: s.ID, Name: s.Name, Domain: s.Domain, Settings: toSettingsBody(s), CreatedAt: timestamp(s.CreatedAt)}
}

type createSchoolRequest struct {
	Name   string `json:"name" validate:"required"`
	Domain string `json:"domain" validate:"required"`
}

func (h *handler) createSchool(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[createSchoolRequest](w, r)
	if !ok {
		return
	}
	s, err := h.deps.Library.Schools.Create(r.Context(), req.Name, req.Domain)
	respond(w, r, http.StatusCreated, schoolReply{School: toSchoolBody(s)}, err)
}

func (h *handler) listSchools(w http.ResponseWriter, r *http.Request) {
	schools, err := h.deps.Library.Schools.List(r.Context())
	respond(w, r, http.StatusOK, schoolsReply{Schools: mapSlice(schools, toSchoolBody)}, err)
}

func (h *handler) getSettings(w http.ResponseWriter, r *http.Request) {
	school, ok := schoolOf(w, r)
	if !ok {
		return
	}
	s, err := h.deps.Library.Schools.Settings(r.Context(), school)
	respond(w, r, http.StatusOK, toSettingsBody(s), err)
}

type settingsRequest struct {
	DefaultLoanDays    *int  `json:"default_loan_days" validate:"required,min=1"`
	MaxRenewals        *int  `json:"max_renewals" validate:"required,min=0"`
	RenewalDays        *int  `json:"renewal_days" validate:"required,min=1"`
	AllowPublicCatalog *bool `json:"allow_public_catalog" validate:"required"`
	// The copy caps are optional: left out, the school keeps its caps.
	MaxCopiesPerBook   *int `json:"max_copies_per_book" validate:"omitnil,min=1"`
	MaxCopiesPerSchool *int `json:"max_copies_per_school" validate:"omitnil,min=1"`
	// Optional too: left out, the school keeps how long it keeps history.
	LoanHistoryDays *int `json:"loan_history_days" validate:"omitnil,min=0,max=3650"`
	// Left out, the school keeps whether its students choose to keep a
	// history.
	HistoryChoice *bool `json:"history_choice"`
	// Left out, the school keeps its time zone.
	Timezone *string `json:"timezone" validate:"omitnil,min=1"`
	// Optional too: left out, the school keeps its pickup window.
	HoldPickupDays *int `json:"hold_pickup_days" validate:"omitnil,min=1"`
	// Left out, the school keeps its catalogue server; "" turns lookups
	// off.
	SRUEndpoint *string `json:"sru_endpoint"`
	// Left out, the school keeps its reading-level check.
	ReadingLevelCheck *string `json:"reading_level_check"`
	// Left out, the school keeps its spine labels' prefix; "" prints none.
	LabelPrefix *string `json:"label_prefix"`
	// Left out, the school keeps its language; the use case checks the
	// code against the languages the service speaks.
	Language *string `json:"language"`
	// The charge settings are optional too; left out, each is kept.
	Currency             *string `json:"currency" validate:"omitnil,len=3,alpha,uppercase"`
	ReplacementCostCents *int64  `json:"replacement_cost_cents" validate:"omitnil,min=0,max=100000000"`
	BlockOverdueItems    *int    `json:"block_overdue_items" validate:"omitnil,min=0,max=1000"`
	BlockChargesCents    *int64  `json:"block_charges_cents" validate:"omitnil,min=0,max=100000000"`
}

// change is the request as a settings change: what it leaves out, the
// school keeps.
func (req settingsRequest) change() library.SettingsChange {
	return library.SettingsChange{
		DefaultLoanDays: req.DefaultLoanDays, MaxRenewals: req.MaxRenewals, RenewalDays: req.RenewalDays, AllowPublicCatalog: req.AllowPublicCatalog,
		MaxCopiesPerBook: req.MaxCopiesPerBook, MaxCopiesPerSchool: req.MaxCopiesPerSchool, LoanHistoryDays: req.LoanHistoryDays,
		HistoryChoice: req.HistoryChoice, Timezone: req.Timezone, HoldPickupDays: req.HoldPickupDays, CatalogEndpoint: req.SRUEndpoint, ReadingLevelCheck: req.ReadingLevelCheck,
		LabelPrefix: req.LabelPrefix, Language: req.Language, Currency: req.Currency, ReplacementCostCents: req.ReplacementCostCents, BlockOverdueItems: req.BlockOverdueItems, BlockChargesCents: req.BlockChargesCents,
	}
}

func (h *handler) putSettings(w http.ResponseWriter, r *http.Request) {
	school, req, ok := schoolAndBody[settingsRequest](w, r)
	if !ok {
		return
	}
	s, err := h.deps.Library.Schools.ChangeSettings(r.Context(), school, req.change())
	if err == nil {
		httpedge.Logger(r).Info("library settings changed", "school_id", s.ID)
	}
	respond(w, r, http.StatusOK, toSettingsBody(s), err)
}

func (h *handler) getCalendar(w http.ResponseWriter, r *http.Request) {
	school, ok := schoolOf(w, r)
	if !ok {
		return
	}
	s, err := h.deps.Library.Schools.Calendar(r.Context(), school)
	respond(w, r, http.StatusOK, toCalendarBody(s), err)
}

// calendarRequest is a whole calendar: PUT replaces it, so every list must
// be sent (empty to clear it).
type calendarRequest struct {
	ClosedWeekdays []string      `json:"closed_weekdays" validate:"required"`
	Closures       []closureBody `json:"closures" validate:"required"`
	TermEnds       []string      `json:"term_ends" validate:"required"`
}

func (h *handler) putCalendar(w http.ResponseWriter, r *http.Request) {
	school, req, ok := schoolAndBody[calendarRequest](w, r)
	if !ok {
		return
	}
	in := schools.CalendarInput{ClosedWeekdays: req.ClosedWeekdays, TermEnds: req.TermEnds}
	for _, c := range req.Closures {
		in.Closures = append(in.Closures, library.Closure(c))
	}
	s, err := h.deps.Library.Schools.PutCalendar(r.Context(), school, in)
	if err == nil {
		httpedge.Logger(r).Info("library calendar changed", "school_id", s.ID)
	}
	respond(w, r, http.StatusOK, toCalendarBody(s), err)
}
