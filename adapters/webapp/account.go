package webapp

import (
	"net/http"
	"strings"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/service"
)

// The pages of a forgotten password and of a confirmed sign-up. They call
// the same use cases as POST /api/auth/password-reset, .../confirm and
// /api/auth/verify-email, and ask the same permissions. The mailed links
// open the GET pages; every change is the form's POST, so a mail scanner
// that opens links changes nothing.

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
	if !a.require(w, r, "request", "auth:password-reset") {
		return
	}
	a.render(w, r, http.StatusOK, "forgot", forgotView{base: a.newBase(r, "Forgot your password?", "forgot")})
}

// forgotPassword answers alike whether or not an account has the address.
func (a *App) forgotPassword(w http.ResponseWriter, r *http.Request) {
	if !a.require(w, r, "request", "auth:password-reset") {
		return
	}
	form, ok := a.form(w, r)
	if !ok {
		return
	}
	v := forgotView{base: a.newBase(r, "Forgot your password?", "forgot")}
	if err := a.deps.Identity.RequestPasswordReset(r.Context(), form.Get("email")); err != nil {
		v.Form = &formState{Values: map[string]string{"email": form.Get("email")}, Fields: fieldErrors(err), Error: a.messageOf(r, err)}
		a.render(w, r, a.statusFor(err), "forgot", v)
		return
	}
	v.Sent = true
	a.render(w, r, http.StatusOK, "forgot", v)
}

func (a *App) resetPasswordPage(w http.ResponseWriter, r *http.Request) {
	if !a.require(w, r, "confirm", "auth:password-reset") {
		return
	}
	a.render(w, r, http.StatusOK, "reset", tokenFormView{base: a.newBase(r, "Choose a new password", "reset"), Token: r.URL.Query().Get("token")})
}

// resetPassword sets the new password and sends the owner to sign in. A
// refused password shows the form again with the same link's token (it
// is still usable); a refused token says to ask for a new link.
func (a *App) resetPassword(w http.ResponseWriter, r *http.Request) {
	if !a.require(w, r, "confirm", "auth:password-reset") {
		return
	}
	form, ok := a.form(w, r)
	if !ok {
		return
	}
	token, password := strings.TrimSpace(form.Get("token")), form.Get("password")
	v := tokenFormView{base: a.newBase(r, "Choose a new password", "reset"), Token: token}
	if password != form.Get("password_again") {
		v.Form = &formState{Error: "The two passwords are not the same.", Fields: map[string]string{"password_again": "The two passwords are not the same"}}
		a.render(w, r, http.StatusUnprocessableEntity, "reset", v)
		return
	}
	if err := a.deps.Identity.ResetPassword(r.Context(), token, password); err != nil {
		v.Form = &formState{Fields: fieldErrors(err), Error: a.messageOf(r, err)}
		if p, ok := v.Form.Fields["new_password"]; ok {
			v.Form.Fields["password"] = p
		}
		if errs.CodeOf(err) == "reset_token_invalid" {
			v.Token = "" // nothing left to retry with it
		}
		a.render(w, r, a.statusFor(err), "reset", v)
		return
	}
	http.Redirect(w, r, signInPath+"?reset=1", http.StatusSeeOther)
}

func (a *App) verifyEmailPage(w http.ResponseWriter, r *http.Request) {
	if !a.require(w, r, "verify", "auth:account") {
		return
	}
	a.render(w, r, http.StatusOK, "verify", tokenFormView{base: a.newBase(r, "Confirm your account", "verify"), Token: r.URL.Query().Get("token")})
}

// verifyEmail creates the account of the sign-up and sends its owner to
// sign in.
func (a *App) verifyEmail(w http.ResponseWriter, r *http.Request) {
	if !a.require(w, r, "verify", "auth:account") {
		return
	}
	form, ok := a.form(w, r)
	if !ok {
		return
	}
	if _, err := a.deps.Identity.ConfirmSignup(r.Context(), strings.TrimSpace(form.Get("token"))); err != nil {
		a.render(w, r, a.statusFor(err), "verify", tokenFormView{base: a.newBase(r, "Confirm your account", "verify"),
			Form: &formState{Fields: fieldErrors(err), Error: a.messageOf(r, err)}})
		return
	}
	http.Redirect(w, r, signInPath+"?verified=1", http.StatusSeeOther)
}

// The pages' paths, as the mailed links name them.
var (
	forgotPasswordPath = service.ForgotPasswordPage
	resetPasswordPath  = service.ResetPasswordPage
	verifyEmailPath    = service.VerifyEmailPage
)
