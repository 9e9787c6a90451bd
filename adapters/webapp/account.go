package webapp

import (
	"net/http"
	"sort"
	"strings"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/core/user"
)

// The account pages: signing in, changing a password, a forgotten password
// and a confirmed sign-up. The last two call the same use cases as POST
// /api/auth/password-reset, .../confirm and /api/auth/verify-email, and ask
// the same permissions. The mailed links open the GET pages; every change is
// the form's POST, so a mail scanner that opens links changes nothing.

type forgotView struct {
	base
	Sent bool // the request was taken; the page says the same for every address
	Form *formState
}

type tokenFormView struct {
	base
	Token string // from the mailed link, carried in the form's body
	Form  *formState
}

func (a *App) forgotPasswordPage(w http.ResponseWriter, r *http.Request) {
	a.render(w, r, http.StatusOK, "forgot", forgotView{base: a.newBase(r, "Forgot your password?", "forgot")})
}

// forgotPassword answers alike whether or not an account has the address.
func (a *App) forgotPassword(w http.ResponseWriter, r *http.Request) {
	form := r.PostForm
	v := forgotView{base: a.newBase(r, "Forgot your password?", "forgot")}
	if err := a.deps.Identity.RequestPasswordReset(r.Context(), form.Get("email")); err != nil {
		v.Form = &formState{Values: map[string]string{"email": form.Get("email")}, Fields: fieldErrors(r, err), Error: a.messageOf(r, err)}
		a.render(w, r, a.statusFor(err), "forgot", v)
		return
	}
	v.Sent = true
	a.render(w, r, http.StatusOK, "forgot", v)
}

func (a *App) resetPasswordPage(w http.ResponseWriter, r *http.Request) {
	a.render(w, r, http.StatusOK, "reset", tokenFormView{base: a.newBase(r, "Choose a new password", "reset"), Token: r.URL.Query().Get("token")})
}

// resetPassword sets the new password and sends the owner to sign in. A
// refused password shows the form again with the same link's token (it
// is still usable); a refused token says to ask for a new link.
func (a *App) resetPassword(w http.ResponseWriter, r *http.Request) {
	form := r.PostForm
	token, password := strings.TrimSpace(form.Get("token")), form.Get("password")
	v := tokenFormView{base: a.newBase(r, "Choose a new password", "reset"), Token: token}
	if password != form.Get("password_again") {
		v.Form = &formState{Error: tr(r, "The two passwords are not the same."), Fields: map[string]string{"password_again": tr(r, "The two passwords are not the same")}}
		a.render(w, r, http.StatusUnprocessableEntity, "reset", v)
		return
	}
	if err := a.deps.Identity.ResetPassword(r.Context(), token, password); err != nil {
		v.Form = &formState{Fields: fieldErrors(r, err), Error: a.messageOf(r, err)}
		if p, ok := v.Form.Fields["new_password"]; ok {
			v.Form.Fields["password"] = p
		}
		if errs.CodeOf(err) == errs.CodeResetTokenInvalid {
			v.Token = "" // nothing left to retry with it
		}
		a.render(w, r, a.statusFor(err), "reset", v)
		return
	}
	http.Redirect(w, r, signInPath+"?reset=1", http.StatusSeeOther)
}

func (a *App) verifyEmailPage(w http.ResponseWriter, r *http.Request) {
	a.render(w, r, http.StatusOK, "verify", tokenFormView{base: a.newBase(r, "Confirm your account", "verify"), Token: r.URL.Query().Get("token")})
}

// verifyEmail creates the account of the sign-up and sends its owner to
// sign in.
func (a *App) verifyEmail(w http.ResponseWriter, r *http.Request) {
	form := r.PostForm
	if _, err := a.deps.Identity.ConfirmSignup(r.Context(), strings.TrimSpace(form.Get("token"))); err != nil {
		a.render(w, r, a.statusFor(err), "verify", tokenFormView{base: a.newBase(r, "Confirm your account", "verify"),
			Form: &formState{Fields: fieldErrors(r, err), Error: a.messageOf(r, err)}})
		return
	}
	http.Redirect(w, r, signInPath+"?verified=1", http.StatusSeeOther)
}

// The pages' paths, as the mailed links name them.
var (
	forgotPasswordPath = identity.ForgotPasswordPage
	resetPasswordPath  = identity.ResetPasswordPage
	verifyEmailPath    = identity.VerifyEmailPage
)

// ----- sign-in and password change -----

type signInView struct {
	base
	Notice   string // after accepting an invitation, a reset or a sign-up
	Failure  string
	Schools  []library.School // admins: every school
	NoSchool bool             // a signed-in account without a school
}

// signInFailure is the sign-in form's outcome (see httpapi's form login)
// in the page's language, "" for none; an unknown email and a wrong
// password share the first.
func signInFailure(r *http.Request, failed string) string {
	switch failed {
	case "1":
		return tr(r, "The email or password is not right.")
	case "suspended":
		return tr(r, "This account is suspended. Ask your school's administrator.")
	case "throttled":
		return tr(r, "Too many attempts to sign in. Wait 15 minutes and try again.")
	case "busy":
		return tr(r, "Many people are signing in from here at once. Try again in a moment.")
	case "unavailable":
		return tr(r, "Signing in is not possible right now. Try again in a minute.")
	}
	return ""
}

// passwordOutcome is the password form's outcome (see httpapi's form
// password change), by the word it sends back, in the page's language;
// "" for none. None repeats a password.
func passwordOutcome(r *http.Request, failed string) string {
	switch failed {
	case "wrong":
		return tr(r, "The current password is not right.")
	case "mismatch":
		return tr(r, "The two new passwords are not the same.")
	case "missing":
		return tr(r, "Fill in the current password and the new one twice.")
	case "short":
		return tr(r, "The new password must be at least 10 characters.")
	case "long":
		return tr(r, "The new password must be at most 1024 bytes.")
	case "common":
		return tr(r, "The new password is too common or too easy to guess. A few unrelated words make a good one.")
	case "name":
		return tr(r, "The new password must not contain your name.")
	case "email":
		return tr(r, "The new password must not contain your email address.")
	case "throttled":
		return tr(r, "Too many wrong passwords. Wait 15 minutes and try again.")
	case "unavailable":
		return tr(r, "Changing the password is not possible right now. Try again in a minute.")
	}
	return ""
}

type passwordView struct {
	base
	Notice, Failure string
}

// passwordPage shows the change-password form to a signed-in member (the
// guard sends an anonymous visitor to sign in first).
func (a *App) passwordPage(w http.ResponseWriter, r *http.Request) {
	v := passwordView{base: a.newBase(r, "Change password", "password")}
	q := r.URL.Query()
	v.Failure = passwordOutcome(r, q.Get("failed"))
	if q.Get("changed") == "1" {
		v.Notice = tr(r, "Your password is changed. Every other session of your account has been signed out.")
	}
	a.render(w, r, http.StatusOK, "password", v)
}

// signIn shows the sign-in form; a signed-in member of a school goes to
// the school's page, an admin chooses a school.
func (a *App) signIn(w http.ResponseWriter, r *http.Request) {
	p := user.PrincipalFrom(r.Context())
	v := signInView{base: a.newBase(r, "Sign in", "signin")}
	switch {
	case p.IsAnonymous():
		v.Failure = signInFailure(r, r.URL.Query().Get("failed"))
		switch {
		case r.URL.Query().Get("accepted") == "1", r.URL.Query().Get("reset") == "1":
			v.Notice = tr(r, "Your password is set. Sign in with your email and the new password.")
		case r.URL.Query().Get("verified") == "1":
			v.Notice = tr(r, "Your account is confirmed. Sign in with your email and the password you chose.")
		}
	case p.Role.SchoolBound() && p.SchoolID != "":
		school, err := a.deps.Library.Schools.Settings(r.Context(), "")
		if err != nil {
			a.fail(w, r, err)
			return
		}
		http.Redirect(w, r, schoolPath(school), http.StatusSeeOther)
		return
	case p.Role == user.RoleAdmin && a.allowed(r, "read", "admin:schools"):
		schools, err := a.deps.Library.Schools.List(r.Context())
		if err != nil {
			a.fail(w, r, err)
			return
		}
		sort.Slice(schools, func(i, j int) bool { return schools[i].Name < schools[j].Name })
		v.Title, v.Schools = tr(r, "Schools"), schools
	default:
		v.Title, v.NoSchool = tr(r, "No school library"), true
	}
	a.render(w, r, http.StatusOK, "signin", v)
}
