package webapp

import (
	"net/http"

	"github.com/readinglibrary/service/core/library"
)

// kiosksView is the Kiosks page: the school's self-check kiosks, the form
// that makes one, and, right after it, the new kiosk's password.
type kiosksView struct {
	base
	Base      string
	Kiosks    []kioskRow
	CanManage bool
	Form      *formState
	// NewLogin and NewPassword are the kiosk just made: the password is
	// shown in this answer only, never put in a URL or a cookie.
	NewLogin, NewPassword string
}

type kioskRow struct {
	ID, Name, Login, Created, CreatedBy string
}

func (a *App) kiosksPage(w http.ResponseWriter, r *http.Request, school library.School) {
	v := kiosksView{}
	v.Flash = a.takeFlash(w, r)
	a.renderKiosks(w, r, school, http.StatusOK, v)
}

func (a *App) renderKiosks(w http.ResponseWriter, r *http.Request, school library.School, status int, v kiosksView) {
	_, list, err := a.deps.Library.SelfCheck.Kiosks(r.Context(), school.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	fl := v.Flash
	v.base = a.schoolBase(r, school, "Self-check kiosks", "kiosks")
	v.Flash = fl
	v.Base = schoolPath(school)
	v.CanManage = a.allowed(r, "create", "library:kiosks")
	loc := school.Settings.Location()
	for _, k := range list {
		v.Kiosks = append(v.Kiosks, kioskRow{ID: k.ID, Name: k.Name, Login: k.Login, Created: k.CreatedAt.In(loc).Format("2006-01-02"), CreatedBy: k.CreatedBy})
	}
	a.render(w, r, status, "kiosks", v)
}

func (a *App) addKiosk(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	k, password, err := a.deps.Library.SelfCheck.CreateKiosk(r.Context(), school.ID, library.KioskDraft{Name: form.Get("name"), Login: form.Get("login")})
	if err != nil {
		a.renderKiosks(w, r, school, a.statusFor(err), kiosksView{Form: a.refused(r, err, form, "name", "login")})
		return
	}
	v := kiosksView{NewLogin: k.Login, NewPassword: password}
	v.Flash = &flash{Kind: "success", Message: tr(r, "Made the kiosk %s.", k.Name)}
	a.renderKiosks(w, r, school, http.StatusCreated, v)
}

func (a *App) removeKiosk(w http.ResponseWriter, r *http.Request, school library.School) {
	back := schoolPath(school) + "/kiosks"
	if a.refusedTo(w, r, back, a.deps.Library.SelfCheck.DeleteKiosk(r.Context(), school.ID, r.PostForm.Get("kiosk_id"))) {
		return
	}
	a.succeeded(w, r, back, tr(r, "Removed the kiosk: it can no longer sign in."))
}
