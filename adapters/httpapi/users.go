package httpapi

import (
	"net/http"
	"time"

	"github.com/readinglibrary/service/core/user"
)

// ownProfile is the seed's "User (own profile)".
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
}

func toOwnProfile(a user.Account) ownProfile {
	return ownProfile{
		ID: a.PublicID(), Email: a.Email, Name: a.Name, Avatar: a.Avatar,
		ReadingLevel: a.ReadingLevel, CreatedAt: timestamp(a.CreatedAt),
		Preferences: preferencesBody{
			FontSize: a.Preferences.FontSize, Theme: a.Preferences.Theme,
			Notifications: a.Preferences.Notifications, Timezone: a.Preferences.Timezone,
		},
	}
}

// timestamp formats t as the contract's RFC 3339 UTC with Z.
func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func (h *handler) getMe(w http.ResponseWriter, r *http.Request) {
	acct, err := h.deps.Users.Me(r.Context())
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toOwnProfile(acct))
}
