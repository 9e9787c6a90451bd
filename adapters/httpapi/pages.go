package httpapi

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/user"
)

// ExtraRoute is a route served by another inbound adapter (the web app's
// pages) through this package's middleware chain: request id, access log,
// security headers, CORS, cookie or bearer authentication, rate limits, the
// CSRF rule for cookie sessions, the route's Ladon policy and the body type
// check all apply exactly as to the JSON routes.
type ExtraRoute struct {
	RouteInfo
	Handle http.HandlerFunc
	// MediaType is the body type a POST/PUT/PATCH takes, e.g.
	// "application/x-www-form-urlencoded"; empty means JSON. Several types
	// are separated by commas.
	MediaType string
	// Error renders the route guard's refusals (CSRF, policy, body type) for
	// this route, e.g. as an HTML page; nil means the JSON error body.
	Error func(http.ResponseWriter, *http.Request, error)
}

func (x ExtraRoute) route() route {
	return route{RouteInfo: x.RouteInfo, handle: x.Handle, mediaType: x.MediaType, onError: x.Error}
}

// Media types of request bodies.
const (
	mediaForm = "application/x-www-form-urlencoded"
	// mediaJSONOrForm is taken by the sign-in and sign-out routes: JSON
	// clients and the web app's forms.
	mediaJSONOrForm = "application/json," + mediaForm
)

// jsonOrForm marks a route that also takes HTML form posts.
func jsonOrForm(rt route) route {
	rt.mediaType = mediaJSONOrForm
	return rt
}

// fail writes a refusal of the route guard in the route's own format.
func (rt route) fail(w http.ResponseWriter, r *http.Request, err error) {
	if rt.onError != nil {
		rt.onError(w, r, err)
		return
	}
	writeError(w, r, err)
}

// checkMediaType accepts a body of one of the comma-separated media types
// (empty means JSON), with an optional utf-8 charset.
func checkMediaType(r *http.Request, mediaTypes string) error {
	if mediaTypes == "" {
		return checkJSONContentType(r)
	}
	var firstErr error
	for _, want := range strings.Split(mediaTypes, ",") {
		var err error
		switch want = strings.TrimSpace(want); want {
		case "application/json":
			err = checkJSONContentType(r)
		case "text/csv":
			err = checkCSVContentType(r)
		default:
			err = checkPlainMediaType(r, want)
		}
		if err == nil {
			return nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}

func checkPlainMediaType(r *http.Request, want string) error {
	return checkUTF8MediaType(r, want, "The request body must be UTF-8 encoded.")
}

// isFormPost reports whether the request is an HTML form submission
// (urlencoded), as opposed to a JSON API call.
func isFormPost(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == mediaForm
}

// withOwnOrigin adds the origin of the service's own public URL to the
// allowed origins: its own pages post forms to it, and a same-origin request
// is never a cross-site one, whatever LIBRARY_ALLOWED_ORIGINS lists.
func withOwnOrigin(origins []string, issuerURL string) []string {
	u, err := url.Parse(issuerURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return origins
	}
	own := []string{u.Scheme + "://" + u.Host}
	// On a developer's machine the same service is reached as localhost,
	// 127.0.0.1 or [::1]; a browser sends whichever was typed as the Origin.
	if loopbackNames[strings.ToLower(u.Hostname())] {
		port := ""
		if u.Port() != "" {
			port = ":" + u.Port()
		}
		own = own[:0]
		for _, host := range []string{"localhost", "127.0.0.1", "[::1]"} {
			own = append(own, u.Scheme+"://"+host+port)
		}
	}
	out := append([]string(nil), origins...)
	for _, o := range own {
		if !slices.ContainsFunc(out, func(have string) bool { return strings.EqualFold(have, o) }) {
			out = append(out, o)
		}
	}
	return out
}

var loopbackNames = map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true}

// Where the sign-in form ends after a failure. The reason is a fixed word,
// never a message or a value from the request; an unknown email and a wrong
// password give the same one, so the form is no account oracle.
const (
	signInPage         = "/library"
	signInFailed       = signInPage + "?failed=1"
	signInSuspended    = signInPage + "?failed=suspended"
	signInThrottled    = signInPage + "?failed=throttled"
	signInUnavailable  = signInPage + "?failed=unavailable"
	maxSignInFormBytes = 16 << 10
)

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
		writeError(w, r, errTooLarge())
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
	if err := h.checkCSRF(r); err != nil {
		writeError(w, r, err)
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
	s, err := h.deps.Identity.Login(r.Context(), email, password, h.clientIP(r), deviceFromCookie(r))
	if err != nil {
		target := signInFailed
		switch {
		case errs.Is(err, errs.Unauthenticated), errs.Is(err, errs.Invalid):
			loggerFrom(r).Info("sign-in failed", "client", h.clientIP(r))
		case errs.Is(err, errs.Forbidden): // account_suspended, with the right password
			target = signInSuspended
		case errs.Is(err, errs.RateLimited):
			target = signInThrottled
		default:
			loggerFrom(r).Error("sign-in error", "error", err.Error())
			target = signInUnavailable
		}
		http.Redirect(w, r, target, http.StatusSeeOther)
		return
	}
	infoFrom(r).accountID = s.Account.ID
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
	err := h.deps.Identity.ChangePassword(r.Context(), current, next, h.clientIP(r))
	if err == nil {
		loggerFrom(r).Info("password changed; other sessions ended")
		http.Redirect(w, r, passwordPage+"?changed=1", http.StatusSeeOther)
		return
	}
	outcome := "unavailable"
	switch {
	case errs.CodeOf(err) == errs.CodeInvalidCurrentPassword:
		loggerFrom(r).Info("password change refused: wrong current password", "client", h.clientIP(r))
		outcome = "wrong"
	case errs.Is(err, errs.RateLimited):
		outcome = "throttled"
	case errs.Is(err, errs.Unauthenticated):
		http.Redirect(w, r, signInPage, http.StatusSeeOther)
		return
	case errs.Is(err, errs.Invalid):
		outcome = newPasswordOutcome(err)
	default:
		loggerFrom(r).Error("password change error", "error", err.Error())
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
	if err := h.checkCSRF(r); err != nil {
		writeError(w, r, err)
		return
	}
	token := ""
	if c, err := r.Cookie(refreshCookie); err == nil {
		token = c.Value
	}
	if err := h.deps.Identity.Logout(r.Context(), token); err != nil {
		writeError(w, r, err)
		return
	}
	h.clearCookies(w)
	http.Redirect(w, r, signInPage, http.StatusSeeOther)
}
