package httpapi

import (
	"net/http"
	"time"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/service/identity"
)

type loginRequest struct {
	Email    string `json:"email" validate:"required"`
	Password string `json:"password" validate:"required"`
	// DeviceToken is the device_token of an earlier sign-in, for clients
	// that keep no cookies; it wins over the cookie.
	DeviceToken string `json:"device_token"`
}

type refreshRequest struct {
	RefreshToken string `json:"refresh_token" validate:"required"`
}

type signupRequest struct {
	Email    string `json:"email" validate:"required"`
	Password string `json:"password" validate:"required"`
	Name     string `json:"name" validate:"required"`
}

type changePasswordRequest struct {
	CurrentPassword string `json:"current_password" validate:"required"`
	NewPassword     string `json:"new_password" validate:"required"`
}

// sessionResponse is the body of login and refresh. The refresh token only
// travels in its HttpOnly cookie, never in a body.
type sessionResponse struct {
	Redirect    string `json:"redirect"`
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int    `json:"expires_in"`
}

// loginResponse adds the device token to a sign-in's session, for clients
// that keep no cookies (browsers get it in its cookie too).
type loginResponse struct {
	sessionResponse
	DeviceToken string `json:"device_token"`
}

func (h *handler) login(w http.ResponseWriter, r *http.Request) {
	if isFormPost(r) {
		h.formLogin(w, r)
		return
	}
	req, ok := decodeBody[loginRequest](w, r)
	if !ok {
		return
	}
	device := req.DeviceToken
	if device == "" {
		device = deviceFromCookie(r)
	}
	s, err := h.deps.Identity.Login(r.Context(), req.Email, req.Password, h.edge.ClientIP(r), device)
	if err != nil {
		if errs.Is(err, errs.Unauthenticated) {
			httpedge.Logger(r).Info("sign-in failed", "client", h.edge.ClientIP(r))
		}
		httpedge.WriteError(w, r, err)
		return
	}
	httpedge.SetAccount(r, s.Account.ID)
	h.setSessionCookies(w, s)
	httpedge.WriteJSON(w, http.StatusOK, loginResponse{sessionResponse: newSessionResponse(s), DeviceToken: s.DeviceToken})
}

// deviceFromCookie is the device token cookie's value, or "".
func deviceFromCookie(r *http.Request) string {
	if c, err := r.Cookie(deviceCookie); err == nil {
		return c.Value
	}
	return ""
}

// refresh takes the refresh token from the body when one is sent, else from
// its cookie; a cookie-borne refresh is a cookie-authenticated change and so
// passes the CSRF rule.
func (h *handler) refresh(w http.ResponseWriter, r *http.Request) {
	token, err := h.refreshToken(w, r)
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	s, err := h.deps.Identity.Refresh(r.Context(), token)
	if err != nil {
		if errs.CodeOf(err) == errs.CodeRefreshTokenReused {
			httpedge.Logger(r).Warn("refresh token reused; session family revoked", "client", h.edge.ClientIP(r))
		}
		h.clearCookies(w)
		httpedge.WriteError(w, r, err)
		return
	}
	httpedge.SetAccount(r, s.Account.ID)
	h.writeSession(w, s)
}

func (h *handler) logout(w http.ResponseWriter, r *http.Request) {
	if isFormPost(r) {
		h.formLogout(w, r)
		return
	}
	token, err := h.refreshToken(w, r)
	if err != nil && !errs.Is(err, errs.Unauthenticated) {
		httpedge.WriteError(w, r, err)
		return
	}
	if err := h.deps.Identity.Logout(r.Context(), token); err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	h.clearCookies(w)
	w.WriteHeader(http.StatusNoContent)
}

// refreshToken reads {refresh_token} from a JSON body, or the refresh cookie
// when there is no body. Errors: the decoder's, csrf_rejected, and
// Unauthenticated when there is no token at all.
func (h *handler) refreshToken(w http.ResponseWriter, r *http.Request) (string, error) {
	if httpedge.HasBody(r) {
		var req refreshRequest
		if err := decodeJSON(w, r, &req); err != nil {
			return "", err
		}
		return req.RefreshToken, nil
	}
	c, err := r.Cookie(refreshCookie)
	if err != nil || c.Value == "" {
		return "", errs.E(errs.Unauthenticated, errs.CodeInvalidRefreshToken, "No refresh token was sent.")
	}
	if err := h.edge.CheckCSRF(r); err != nil {
		return "", err
	}
	return c.Value, nil
}

func (h *handler) signup(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[signupRequest](w, r)
	if !ok {
		return
	}
	// The confirmation mail goes to someone with no account yet: it is
	// written in the language their request asks for.
	res, err := h.deps.Identity.Signup(i18n.With(r.Context(), httpedge.MessageLang(r)), req.Email, req.Password, req.Name)
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	if res.Pending {
		httpedge.WriteJSON(w, http.StatusAccepted, acceptedResponse{
			Message: "Check your mailbox: we sent a link to this address. Your account is created when you follow it.",
		})
		return
	}
	httpedge.SetAccount(r, res.Account.ID)
	httpedge.WriteJSON(w, http.StatusCreated, userReply{User: toOwnProfile(res.Account)})
}

// changePassword answers 204: the caller's session goes on with the tokens
// it has, every other session of the account is ended.
func (h *handler) changePassword(w http.ResponseWriter, r *http.Request) {
	if isFormPost(r) {
		h.formChangePassword(w, r)
		return
	}
	req, ok := decodeBody[changePasswordRequest](w, r)
	if !ok {
		return
	}
	if err := h.deps.Identity.ChangePassword(r.Context(), req.CurrentPassword, req.NewPassword, h.edge.ClientIP(r)); err != nil {
		if errs.CodeOf(err) == errs.CodeInvalidCurrentPassword {
			httpedge.Logger(r).Info("password change refused: wrong current password", "client", h.edge.ClientIP(r))
		}
		httpedge.WriteError(w, r, err)
		return
	}
	httpedge.Logger(r).Info("password changed; other sessions ended")
	w.WriteHeader(http.StatusNoContent)
}

func (h *handler) writeSession(w http.ResponseWriter, s identity.Session) {
	h.setSessionCookies(w, s)
	httpedge.WriteJSON(w, http.StatusOK, newSessionResponse(s))
}

func newSessionResponse(s identity.Session) sessionResponse {
	return sessionResponse{
		Redirect: s.Redirect, AccessToken: s.AccessToken, TokenType: "Bearer", ExpiresIn: int(s.AccessTTL / time.Second),
	}
}

// setSessionCookies sets the access and refresh cookies of a session.
func (h *handler) setSessionCookies(w http.ResponseWriter, s identity.Session) {
	http.SetCookie(w, &http.Cookie{
		Name: accessCookie, Value: s.AccessToken, Path: "/",
		MaxAge: int(s.AccessTTL / time.Second), HttpOnly: true, Secure: h.edge.Config().CookieSecure, SameSite: http.SameSiteLaxMode,
	})
	http.SetCookie(w, &http.Cookie{
		Name: refreshCookie, Value: s.RefreshToken, Path: "/api/auth",
		MaxAge: int(s.RefreshTTL / time.Second), HttpOnly: true, Secure: h.edge.Config().CookieSecure, SameSite: http.SameSiteStrictMode,
	})
	if s.DeviceToken != "" {
		// Kept after sign-out: it names the device, not a session.
		http.SetCookie(w, &http.Cookie{
			Name: deviceCookie, Value: s.DeviceToken, Path: "/api/auth/login",
			Expires: s.DeviceExpires, HttpOnly: true, Secure: h.edge.Config().CookieSecure, SameSite: http.SameSiteStrictMode,
		})
	}
}

// clearCookies expires both cookies with the attributes they were set with.
func (h *handler) clearCookies(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{Name: accessCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: h.edge.Config().CookieSecure, SameSite: http.SameSiteLaxMode})
	http.SetCookie(w, &http.Cookie{Name: refreshCookie, Value: "", Path: "/api/auth", MaxAge: -1, HttpOnly: true, Secure: h.edge.Config().CookieSecure, SameSite: http.SameSiteStrictMode})
}
