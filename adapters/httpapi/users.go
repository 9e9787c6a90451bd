package httpapi

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/service/users"
	"github.com/readinglibrary/service/core/user"
)

// ownProfile is openapi.json's OwnProfile.
type ownProfile struct {
	ID           string          `json:"id"`
	Email        string          `json:"email"`
	Name         string          `json:"name"`
	Avatar       string          `json:"avatar"`
	ReadingLevel string          `json:"reading_level"`
	CreatedAt    string          `json:"created_at"`
	Preferences  preferencesBody `json:"preferences"`
}

type preferencesBody struct {
	FontSize      int    `json:"font_size"`
	Theme         string `json:"theme"`
	Notifications bool   `json:"notifications"`
	Timezone      string `json:"timezone"`
	Language      string `json:"language"`
}

func toOwnProfile(a user.Account) ownProfile {
	return ownProfile{
		ID: a.PublicID(), Email: a.Email, Name: a.Name, Avatar: a.Avatar,
		ReadingLevel: a.ReadingLevel, CreatedAt: timestamp(a.CreatedAt),
		Preferences: preferencesBody{
			FontSize: a.Preferences.FontSize, Theme: a.Preferences.Theme,
			Notifications: a.Preferences.Notifications, Timezone: a.Preferences.Timezone,
			Language: a.Preferences.Language,
		},
	}
}

// timestamp formats t as RFC 3339 in UTC with Z, the API's one timestamp
// format.
func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func (h *handler) getMe(w http.ResponseWriter, r *http.Request) {
	acct, err := h.deps.Users.Me(r.Context())
	respond(w, r, http.StatusOK, toOwnProfile(acct), err)
}

// profilePatchRequest is the PATCH /v1/users/me body. The read-only fields
// are listed so that sending one gets a precise "is read-only" instead of
// "is not a known field"; either way it is a 422 and nothing changes.
type profilePatchRequest struct {
	Name         *string                  `json:"name"`
	Avatar       *string                  `json:"avatar"`
	Preferences  *preferencesPatchRequest `json:"preferences"`
	ID           json.RawMessage          `json:"id"`
	Email        json.RawMessage          `json:"email"`
	Role         json.RawMessage          `json:"role"`
	Tier         json.RawMessage          `json:"tier"`
	ReadingLevel json.RawMessage          `json:"reading_level"`
	CreatedAt    json.RawMessage          `json:"created_at"`
}

type preferencesPatchRequest struct {
	FontSize      *int    `json:"font_size" validate:"omitnil,min=8,max=72"`
	Theme         *string `json:"theme" validate:"omitnil,oneof=light dark sepia system"`
	Notifications *bool   `json:"notifications"`
	Timezone      *string `json:"timezone"`
	// "" clears the person's own choice; the use case checks the code.
	Language *string `json:"language"`
}

// patchMeResponse is openapi.json's ProfileUpdated, the PATCH /users/me
// answer.
type patchMeResponse struct {
	ID          string          `json:"id"`
	Email       string          `json:"email"`
	Name        string          `json:"name"`
	Avatar      string          `json:"avatar"`
	Preferences preferencesBody `json:"preferences"`
}

func (h *handler) patchMe(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[profilePatchRequest](w, r)
	if !ok {
		return
	}
	readOnly := errs.FieldErrors{}
	for name, v := range map[string]json.RawMessage{"id": req.ID, "email": req.Email, "role": req.Role, "tier": req.Tier, "reading_level": req.ReadingLevel, "created_at": req.CreatedAt} {
		if v != nil {
			readOnly.Add(name, "is read-only")
		}
	}
	if err := readOnly.Err(); err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	p := users.ProfilePatch{Name: req.Name, Avatar: req.Avatar}
	if pp := req.Preferences; pp != nil {
		p.Preferences = &users.PreferencesPatch{FontSize: pp.FontSize, Theme: pp.Theme, Notifications: pp.Notifications, Timezone: pp.Timezone,
			Language: pp.Language}
	}
	acct, err := h.deps.Users.UpdateMe(r.Context(), p)
	own := toOwnProfile(acct)
	respond(w, r, http.StatusOK, patchMeResponse{ID: own.ID, Email: own.Email, Name: own.Name, Avatar: own.Avatar, Preferences: own.Preferences}, err)
}

// publicProfile is openapi.json's PublicProfile.
type publicProfile struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Avatar       string `json:"avatar"`
	ReadingLevel string `json:"reading_level"`
	BooksRead    int    `json:"books_read"`
	MemberSince  string `json:"member_since"`
}

func (h *handler) getUser(w http.ResponseWriter, r *http.Request) {
	p, err := h.deps.Users.Profile(r.Context(), mux.Vars(r)["user_id"])
	a := p.Account
	respond(w, r, http.StatusOK, publicProfile{
		ID: a.PublicID(), Name: a.Name, Avatar: a.Avatar, ReadingLevel: a.ReadingLevel,
		BooksRead: p.BooksRead, MemberSince: a.CreatedAt.UTC().Format(time.DateOnly),
	}, err)
}

// statsBody is openapi.json's Stats.
type statsBody struct {
	UserID              string `json:"user_id"`
	TotalReadingTime    int64  `json:"total_reading_time"`
	BooksCompleted      int    `json:"books_completed"`
	PagesRead           int    `json:"pages_read"`
	AverageReadingSpeed int    `json:"average_reading_speed"`
	VocabularySize      int    `json:"vocabulary_size"`
	CurrentStreak       int    `json:"current_streak"`
	LongestStreak       int    `json:"longest_streak"`
	// Where the books completed came from.
	BooksCompletedBySource booksBySource `json:"books_completed_by_source"`
}

type booksBySource struct {
	App     int `json:"app"`
	Library int `json:"library"`
}

func toStatsBody(a user.Account, s catalog.Stats) statsBody {
	return statsBody{
		UserID: a.PublicID(), TotalReadingTime: s.TotalReadingTime, BooksCompleted: s.BooksCompleted, PagesRead: s.PagesRead,
		AverageReadingSpeed: s.AverageReadingSpeed, VocabularySize: s.VocabularySize,
		CurrentStreak: s.CurrentStreak, LongestStreak: s.LongestStreak,
		BooksCompletedBySource: booksBySource{App: s.BooksCompletedApp, Library: s.BooksCompletedLibrary},
	}
}

func (h *handler) getStats(w http.ResponseWriter, r *http.Request) {
	id := mux.Vars(r)["user_id"]
	if id == "" {
		id = "me"
	}
	acct, stats, err := h.deps.Users.Stats(r.Context(), id)
	respond(w, r, http.StatusOK, toStatsBody(acct, stats), err)
}

func (h *handler) deleteMe(w http.ResponseWriter, r *http.Request) {
	if err := h.deps.Users.DeleteMe(r.Context()); err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	httpedge.Logger(r).Info("account deleted at its owner's request", "account_id", user.PrincipalFrom(r.Context()).AccountID)
	h.clearCookies(w)
	httpedge.WriteJSON(w, http.StatusOK, successBody{Success: true, Message: "Your account and its reading data were deleted permanently."})
}

// exportBody is GET /v1/users/me/export: everything stored about the
// caller, for data-portability requests.
type exportBody struct {
	ExportedAt  string           `json:"exported_at"`
	Profile     exportProfile    `json:"profile"`
	ReadingList []listItem       `json:"reading_list"`
	Progress    []exportProgress `json:"progress"`
	Sessions    []exportSession  `json:"reading_sessions"`
	Statistics  statsBody        `json:"statistics"`
	Loans       []loanBody       `json:"loans"`
	// FinishedLoans are the library loans the student marked as read.
	FinishedLoans []finishedLoanBody `json:"finished_loans"`
}

type exportProfile struct {
	ownProfile
	Role      string `json:"role"`
	Tier      string `json:"tier"`
	SchoolID  string `json:"school_id,omitempty"`
	UpdatedAt string `json:"updated_at"`
	// HoldsFromReadingList is a student's choice that their reading list
	// places holds; left out for other accounts.
	HoldsFromReadingList *bool `json:"holds_from_reading_list,omitempty"`
}

type exportProgress struct {
	BookID        string  `json:"book_id"`
	PageNumber    int     `json:"page_number"`
	Percentage    float64 `json:"percentage"`
	MaxPage       int     `json:"max_page"`
	MaxPercentage float64 `json:"max_percentage"`
	LastRead      string  `json:"last_read"`
	CompletedAt   *string `json:"completed_at"`
}

type exportSession struct {
	ID            string `json:"id"`
	BookID        string `json:"book_id"`
	At            string `json:"at"`
	LocalDay      string `json:"local_day"`
	Seconds       int    `json:"seconds"`
	FromPage      int    `json:"from_page"`
	ToPage        int    `json:"to_page"`
	PagesAdvanced int    `json:"pages_advanced"`
	WordsRead     int    `json:"words_read"`
	Completed     bool   `json:"completed"`
}

func toExportProgress(p catalog.Progress) exportProgress {
	ep := exportProgress{BookID: p.BookID, PageNumber: p.PageNumber, Percentage: p.Percentage, MaxPage: p.MaxPage,
		MaxPercentage: p.MaxPercentage, LastRead: timestamp(p.LastRead)}
	if p.Completed() {
		c := timestamp(p.CompletedAt)
		ep.CompletedAt = &c
	}
	return ep
}

func toExportSession(s catalog.ReadingSession) exportSession {
	return exportSession{ID: s.ID, BookID: s.BookID, At: timestamp(s.At), LocalDay: s.LocalDay,
		Seconds: s.Seconds, FromPage: s.FromPage, ToPage: s.ToPage, PagesAdvanced: s.PagesAdvanced, WordsRead: s.WordsRead, Completed: s.Completed}
}

func (h *handler) exportMe(w http.ResponseWriter, r *http.Request) {
	ex, err := h.deps.Users.ExportMe(r.Context())
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	a := ex.Account
	var listHolds *bool
	if a.Role == user.RoleStudent {
		listHolds = &a.HoldsFromReadingList
	}
	body := exportBody{
		ExportedAt: timestamp(time.Now()),
		Profile: exportProfile{ownProfile: toOwnProfile(a), Role: string(a.Role), Tier: string(a.Tier),
			SchoolID: a.SchoolID, UpdatedAt: timestamp(a.UpdatedAt), HoldsFromReadingList: listHolds},
		ReadingList:   mapSlice(ex.ReadingList, toListItem),
		Progress:      mapSlice(ex.Progress, toExportProgress),
		Sessions:      mapSlice(ex.Sessions, toExportSession),
		Statistics:    toStatsBody(a, ex.Stats),
		Loans:         mapSlice(ex.Loans, toLoanBody),
		FinishedLoans: mapSlice(ex.Finished, toFinishedLoanBody),
	}
	w.Header().Set("Content-Disposition", `attachment; filename="reading-library-export.json"`)
	httpedge.WriteJSON(w, http.StatusOK, body)
}
