package httpapi

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/user"
)

// Media types of request bodies.
const (
	mediaForm = "application/x-www-form-urlencoded"
	// mediaJSONOrForm is taken by the sign-in and sign-out routes: JSON
	// clients and the web app's forms.
	mediaJSONOrForm = "application/json," + mediaForm
)

// jsonOrForm marks a route that also takes HTML form posts.
func jsonOrForm(rt httpedge.Route) httpedge.Route {
	rt.MediaType = mediaJSONOrForm
	return rt
}

// isFormPost reports whether the request is an HTML form submission
// (urlencoded), as opposed to a JSON API call.
func isFormPost(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == mediaForm
}

// Where the sign-in form ends after a failure. The reason is a fixed word,
// never a message or a value from the request; an unknown email and a wrong
// password give the same one, so the form is no account oracle.
const (
	signInPage         = "/library"
	signInFailed       = signInPage + "?failed=1"
	signInSuspended    = signInPage + "?failed=suspended"
	signInThrottled    = signInPage + "?failed=throttled"
	signInBusy         = signInPage + "?failed=busy"
	signInUnavailable  = signInPage + "?failed=unavailable"
	maxSignInFormBytes = 16 << 10
)

// busyRetry is the longest Retry-After of a sign-in refused for being one
// of too many checked at once rather than for failures: the form says to
// try again in a moment, not in 15 minutes.
const busyRetry = 5 * time.Second

// parseSmallForm reads a form post of at most maxSignInFormBytes. A larger
// body is refused as too large; one that cannot be read sends the browser
// back to failed. False means it has answered.
func parseSmallForm(w http.ResponseWriter, r *http.Request, failed string) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxSignInFormBytes)
	err := r.ParseForm()
	var tooBig *http.MaxBytesError
	switch {
	case err == nil:
		return true
	case errors.As(err, &tooBig):
		httpedge.WriteError(w, r, errTooLarge())
	default:
		http.Redirect(w, r, failed, http.StatusSeeOther)
	}
	return false
}

// formLogin is the sign-in page's form post: the same sign-in as the JSON
// route, the same cookies, then 303 See Other to the account's page. Login
// CSRF (a foreign site signing the browser into the attacker's account) is
// refused by requiring an allowed Origin, as for cookie-authenticated
// changes.
func (h *handler) formLogin(w http.ResponseWriter, r *http.Request) {
	if err := h.edge.CheckCSRF(r); err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	if !parseSmallForm(w, r, signInFailed) {
		return
	}
	email, password := r.PostForm.Get("email"), r.PostForm.Get("password")
	if strings.TrimSpace(email) == "" || password == "" {
		http.Redirect(w, r, signInFailed, http.StatusSeeOther)
		return
	}
	s, err := h.deps.Identity.Login(r.Context(), email, password, h.edge.ClientIP(r), deviceFromCookie(r))
	if err != nil {
		target := signInFailed
		switch {
		case errs.Is(err, errs.Unauthenticated), errs.Is(err, errs.Invalid):
			httpedge.Logger(r).Info("sign-in failed", "client", h.edge.ClientIP(r))
		case errs.Is(err, errs.Forbidden): // account_suspended, with the right password
			target = signInSuspended
		case errs.Is(err, errs.RateLimited):
			target = signInThrottled
			if e, ok := errs.As(err); ok && e.RetryAfter <= busyRetry {
				// Not locked: too many sign-ins from this address were
				// being checked at once (a class signing in).
				target = signInBusy
			}
		default:
			httpedge.Logger(r).Error("sign-in error", "error", err.Error())
			target = signInUnavailable
		}
		http.Redirect(w, r, target, http.StatusSeeOther)
		return
	}
	httpedge.SetAccount(r, s.Account.ID)
	h.setSessionCookies(w, s)
	http.Redirect(w, r, s.Redirect, http.StatusSeeOther)
}

// Where the web app's password form ends; the outcome is a fixed word the
// page turns into a sentence, never a value from the request.
const passwordPage = "/library/password"

// formChangePassword is the web app's change-password form: the same use
// case as the JSON route, then 303 See Other back to the form with the
// outcome. The session is a cookie one, so the route guard has already
// applied the CSRF rule.
func (h *handler) formChangePassword(w http.ResponseWriter, r *http.Request) {
	if !parseSmallForm(w, r, passwordPage+"?failed=missing") {
		return
	}
	current, next := r.PostForm.Get("current_password"), r.PostForm.Get("new_password")
	if current == "" || next == "" {
		http.Redirect(w, r, passwordPage+"?failed=missing", http.StatusSeeOther)
		return
	}
	if next != r.PostForm.Get("new_password_again") {
		http.Redirect(w, r, passwordPage+"?failed=mismatch", http.StatusSeeOther)
		return
	}
	err := h.deps.Identity.ChangePassword(r.Context(), current, next, h.edge.ClientIP(r))
	if err == nil {
		httpedge.Logger(r).Info("password changed; other sessions ended")
		http.Redirect(w, r, passwordPage+"?changed=1", http.StatusSeeOther)
		return
	}
	outcome := "unavailable"
	switch {
	case errs.CodeOf(err) == errs.CodeInvalidCurrentPassword:
		httpedge.Logger(r).Info("password change refused: wrong current password", "client", h.edge.ClientIP(r))
		outcome = "wrong"
	case errs.Is(err, errs.RateLimited):
		outcome = "throttled"
	case errs.Is(err, errs.Unauthenticated):
		http.Redirect(w, r, signInPage, http.StatusSeeOther)
		return
	case errs.Is(err, errs.Invalid):
		outcome = newPasswordOutcome(err)
	default:
		httpedge.Logger(r).Error("password change error", "error", err.Error())
	}
	http.Redirect(w, r, passwordPage+"?failed="+outcome, http.StatusSeeOther)
}

// newPasswordOutcomes name the password rule's refusals for the form.
var newPasswordOutcomes = map[string]string{
	user.PasswordTooShort:  "short",
	user.PasswordTooLong:   "long",
	user.PasswordTooCommon: "common",
	user.PasswordHasName:   "name",
	user.PasswordHasEmail:  "email",
}

// newPasswordOutcome is the form outcome of an Invalid error of a password
// change.
func newPasswordOutcome(err error) string {
	if e, ok := errs.As(err); ok {
		fields, _ := e.Details["fields"].(map[string]any)
		if outcome, ok := newPasswordOutcomes[fmt.Sprint(fields["new_password"])]; ok {
			return outcome
		}
	}
	return "missing"
}

// formLogout is the sign-out button: it ends the session of the refresh
// cookie, clears both cookies and goes back to the sign-in page. It needs an
// allowed Origin, so a foreign page cannot sign the librarian out.
func (h *handler) formLogout(w http.ResponseWriter, r *http.Request) {
	if err := h.edge.CheckCSRF(r); err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	token := ""
	if c, err := r.Cookie(refreshCookie); err == nil {
		token = c.Value
	}
	if err := h.deps.Identity.Logout(r.Context(), token); err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	h.clearCookies(w)
	http.Redirect(w, r, signInPage, http.StatusSeeOther)
}
