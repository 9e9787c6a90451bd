package webapp

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/gorilla/mux"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static/*
var staticFiles embed.FS

// pageCSP allows only the service's own scripts, styles and images: no
// inline script or style, no plugins, no framing, and forms post only to
// the service itself.
const pageCSP = "default-src 'self'; base-uri 'none'; object-src 'none'; form-action 'self'; frame-ancestors 'none'"

// mustParsePages parses every page template together with the layout,
// once for each language: the templates' t says its English text in that
// language.
func mustParsePages() map[i18n.Lang]map[string]*template.Template {
	out := map[i18n.Lang]map[string]*template.Template{}
	for _, lang := range i18n.Langs() {
		out[lang] = mustParsePagesIn(lang)
	}
	return out
}

func mustParsePagesIn(lang i18n.Lang) map[string]*template.Template {
	names, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		panic(err)
	}
	funcs := template.FuncMap{
		// t is every text a person reads on a page: its English is the
		// catalogues' key (core/i18n).
		"t":    lang.T,
		"date": lang.Date,
		// shortDate writes a day the view holds as YYYY-MM-DD (with a
		// time, "YYYY-MM-DD hh:mm") as the language writes one in a
		// table; the page keeps the ISO day in <time datetime>.
		"shortDate":  lang.ShortDateText,
		"holdStatus": func(status string) string { return holdStatus(lang, status) },
		"unlock": func(base, id, from, search, describedBy string) unlockForm {
			return unlockForm{Base: base, ID: id, From: from, Search: search, DescribedBy: describedBy}
		},
		"plural":  pluralize,
		"money":   lang.Money,
		"years":   formatYears,
		"perCopy": perCopy,
		"grades":  library.GradesText,
		"field":   newFormField,
		"codeField": func(form, focus, hint string) codeField {
			return codeField{Form: form, Hint: hint, Autofocus: focus == form}
		},
	}
	pages := map[string]*template.Template{}
	for _, name := range names {
		base := strings.TrimSuffix(path.Base(name), ".html")
		if base == "layout" {
			continue
		}
		pages[base] = template.Must(template.New(base).Funcs(funcs).ParseFS(templateFiles, "templates/layout.html", name))
	}
	return pages
}

// unlockForm is what the shared "unlock-form" template needs: the school's
// pages, the account, the page to go back to (with its search) and the id
// of the element naming the account.
type unlockForm struct {
	Base, ID, From, Search, DescribedBy string
}

// formField is what the shared "book-detail-field" template needs: one
// optional text field of a form, with its value and problem after a
// refusal.
type formField struct {
	Name, Label, ID, Max, Mode, Value, Error string
}

func newFormField(f *formState, name, label, id, max, mode string) formField {
	return formField{Name: name, Label: label, ID: id, Max: max, Mode: mode, Value: f.V(name), Error: f.F(name)}
}

// codeField is what the desk's "copy-code-field" template needs: the form
// it belongs to, its hint, and whether the last answer was about that form.
type codeField struct {
	Form, Hint string
	Autofocus  bool
}

// asset is one embedded static file.
type asset struct {
	body        []byte
	contentType string
	version     string
}

// assetURLs are the versioned URLs of the stylesheet and script; the
// version changes with the content, so browsers may cache them for good.
type assetURLs struct {
	CSS, JS string
	// Worker is the desk's service worker (sw.js).
	Worker string
}

func mustLoadAssets() (map[string]asset, assetURLs) {
	entries, err := fs.ReadDir(staticFiles, "static")
	if err != nil {
		panic(err)
	}
	out := map[string]asset{}
	for _, e := range entries {
		body, err := staticFiles.ReadFile("static/" + e.Name())
		if err != nil {
			panic(err)
		}
		sum := sha256.Sum256(body)
		ct := mime.TypeByExtension(path.Ext(e.Name()))
		switch path.Ext(e.Name()) {
		case ".css":
			ct = "text/css; charset=utf-8"
		case ".js":
			ct = "text/javascript; charset=utf-8"
		}
		out[e.Name()] = asset{body: body, contentType: ct, version: hex.EncodeToString(sum[:6])}
	}
	u := func(name string) string {
		a, ok := out[name]
		if !ok {
			panic("webapp: missing asset " + name)
		}
		return "/library/assets/" + name + "?v=" + a.version
	}
	return out, assetURLs{CSS: u("app.css"), JS: u("app.js"), Worker: u("sw.js")}
}

// asset serves an embedded file; a request for the current version may be
// cached for a year.
func (a *App) asset(w http.ResponseWriter, r *http.Request) {
	f, ok := a.assets[mux.Vars(r)["name"]]
	if !ok {
		a.errorPage(w, r, http.StatusNotFound, nil)
		return
	}
	w.Header().Set("Content-Type", f.contentType)
	if mux.Vars(r)["name"] == "sw.js" {
		// The desk's service worker acts for the schools' pages, above the
		// assets' folder.
		w.Header().Set("Service-Worker-Allowed", signInPath+"/")
	}
	if r.URL.Query().Get("v") == f.version {
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		w.Header().Set("Cache-Control", "no-cache")
	}
	_, _ = w.Write(f.body)
}

// base is what the layout shows on every page.
type base struct {
	// Lang is the page's language: its lang and dir attributes.
	Lang     i18n.Lang
	Title    string
	Page     string // the section, for aria-current in the navigation
	School   *library.School
	Nav      []navLink
	Flash    *flash
	SignedIn bool
	Email    string
	Role     string
	Assets   assetURLs
	// Texts are the texts the pages' script shows, in Lang (pagetexts.go).
	Texts pageTexts
}

type navLink struct {
	Key, Label, Href string
	Current          bool
}

// tr says an English text of the pages' Go code in the request's
// language (the templates say theirs with t); the English is the
// catalogues' key.
func tr(r *http.Request, key string, args ...any) string {
	return i18n.From(r.Context()).T(key, args...)
}

// shortDate writes a day held as YYYY-MM-DD as the request's language
// writes one in a table or a short sentence (English keeps it as it is).
func shortDate(r *http.Request, iso string) string {
	return i18n.From(r.Context()).ShortDateText(iso)
}

// newBase fills the layout's fields for the caller. A title that is a
// catalogue key is said in the page's language; any other (one the
// caller has said already, with a name in it) stays as it is.
func (a *App) newBase(r *http.Request, title, page string) base {
	p := user.PrincipalFrom(r.Context())
	if said, ok := i18n.From(r.Context()).Say(title); ok {
		title = said
	}
	return base{Lang: i18n.From(r.Context()), Title: title, Page: page, SignedIn: !p.IsAnonymous(), Email: p.Email, Role: roleName(r, p.Role), Assets: a.urls, Texts: a.texts[i18n.From(r.Context())]}
}

// roleName is the role as the header names it, in the page's language.
func roleName(r *http.Request, role user.Role) string {
	switch role {
	case user.RoleAdmin:
		return tr(r, "admin")
	case user.RoleStaff:
		return tr(r, "staff")
	case user.RoleTeacher:
		return tr(r, "teacher")
	case user.RoleLibrarian:
		return tr(r, "librarian")
	case user.RoleStudent:
		return tr(r, "student")
	case user.RoleReader:
		return tr(r, "reader")
	}
	return string(role)
}

// schoolBase is newBase for a page of a school the caller belongs to (or
// administers), with the sections the caller's role may open.
func (a *App) schoolBase(r *http.Request, school library.School, title, page string) base {
	b := a.newBase(r, title, page)
	b.School = &school
	root := schoolPath(school)
	p := user.PrincipalFrom(r.Context())
	add := func(key, label, href, action, resource string) {
		if action == "" || a.allowed(r, action, resource) {
			b.Nav = append(b.Nav, navLink{Key: key, Label: label, Href: href, Current: key == page})
		}
	}
	switch p.Role {
	case user.RoleStudent:
		add("desk", tr(r, "My loans"), root, "read", "library:ownloans")
		add("history", tr(r, "My reading history"), root+"/my-history", "read", "library:ownhistory")
		add("picks", tr(r, "Books for you"), root+"/recommended", "read", "library:ownrecommendations")
	case user.RoleTeacher:
		// A teacher has no desk: the school's first page sends them here.
		add("classes", tr(r, "My classes"), root+"/classes", "read", "library:classes")
	default:
		add("desk", tr(r, "Desk"), root, "read", "library:loans")
		add("classes", tr(r, "Classes"), root+"/classes", "read", "library:classes")
	}
	add("books", tr(r, "Books"), root+"/books", "read", "library:copies")
	add("labels", tr(r, "Labels"), root+"/labels", "read", "library:copies")
	add("holds", tr(r, "Holds"), root+"/holds", "read", "library:holds")
	add("reviews", tr(r, "Reviews"), root+"/reviews", "read", "library:reviews")
	add("students", tr(r, "Students"), root+"/students", "read", "library:students")
	add("roster", tr(r, "Roster"), root+"/roster", "leavers", "library:students")
	add("holdings", tr(r, "Import/Export"), root+"/holdings", "export", "library:holdings")
	add("charges", tr(r, "Charges"), root+"/charges", "read", "library:charges")
	add("settings", tr(r, "Settings"), root+"/settings", "read", "library:settings")
	add("calendar", tr(r, "Calendar"), root+"/calendar", "read", "library:calendar")
	add("loanrules", tr(r, "Loan rules"), root+"/loan-rules", "read", "library:loanrules")
	add("reports", tr(r, "Reports"), root+"/reports", "read", "library:reports")
	add("stocktake", tr(r, "Stocktake"), root+"/stocktake", "read", "library:stocktakes")
	add("notices", tr(r, "Reminders"), root+"/notices", "read", "library:notices")
	add("accounts", tr(r, "Accounts"), root+"/accounts", "read", "library:accounts")
	add("kiosks", tr(r, "Kiosks"), root+"/kiosks", "read", "library:kiosks")
	add("offline", tr(r, "Offline scans"), root+"/offline", "read", "library:offline")
	add("audit", tr(r, "Audit log"), root+"/audit", "read", "library:audit")
	add("catalog", tr(r, "Public catalog"), root+"/catalog", "", "")
	return b
}

func schoolPath(s library.School) string { return "/library/" + s.Domain }

// render executes a page into a buffer first, so a template error becomes
// a clean 500 instead of half a page.
func (a *App) render(w http.ResponseWriter, r *http.Request, status int, page string, data any) {
	buf, err := a.execute(i18n.From(r.Context()), page, data)
	if err != nil {
		renderFailed(w, r, page, err)
		return
	}
	pageHeaders(w)
	w.Header().Set("Content-Language", string(i18n.From(r.Context())))
	w.WriteHeader(status)
	_, _ = w.Write(buf)
}

// execute renders page in lang with data into memory.
func (a *App) execute(lang i18n.Lang, page string, data any) ([]byte, error) {
	t, ok := a.pages[lang][page]
	if !ok {
		panic("webapp: no page template " + page)
	}
	var buf bytes.Buffer
	err := t.ExecuteTemplate(&buf, "layout", data)
	return buf.Bytes(), err
}

// renderFailed logs a page that could not be rendered and answers a plain
// 500 in its place.
func renderFailed(w http.ResponseWriter, r *http.Request, page string, err error) {
	httpedge.Logger(r).Error("render page", "page", page, "error", err.Error())
	pageHeaders(w)
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = w.Write([]byte("<!doctype html><title>Error</title><p>Something went wrong.</p>"))
}

// renderStreaming renders page as render does, but for marker, which must
// come once in the page: content writes what takes its place as the page
// goes out, so what it writes is never held whole. The marker must be
// text the templates leave as it is (letters and digits), and content
// must write only text that is safe where the marker stands. A page cut
// short by content's error is logged: its status is already sent.
func (a *App) renderStreaming(w http.ResponseWriter, r *http.Request, status int, page string, data any, marker string, content func(io.Writer) error) {
	buf, err := a.execute(i18n.From(r.Context()), page, data)
	head, tail, found := bytes.Cut(buf, []byte(marker))
	if err == nil && (!found || bytes.Contains(tail, []byte(marker))) {
		err = fmt.Errorf("the marker is not in the page once")
	}
	if err != nil {
		renderFailed(w, r, page, err)
		return
	}
	pageHeaders(w)
	w.WriteHeader(status)
	_, _ = w.Write(head)
	if err := content(w); err != nil {
		httpedge.Logger(r).Error("render page", "page", page, "error", "streaming its content: "+err.Error())
		return
	}
	_, _ = w.Write(tail)
}

// pageHeaders are the headers of every HTML page. The referrer policy
// replaces the API's no-referrer: with no-referrer browsers send
// "Origin: null" on form posts, which the CSRF rule must refuse, while
// same-origin keeps the origin for the service's own forms and sends
// nothing to other sites.
func pageHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", pageCSP)
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

// ----- permissions -----

// allowed asks the policies whether the caller may do action on resource.
func (a *App) allowed(r *http.Request, action, resource string) bool {
	return a.deps.Authorizer.Authorize(r.Context(), ports.AccessRequest{
		Principal: user.PrincipalFrom(r.Context()), Action: action, Resource: resource,
	}) == nil
}

// require answers 403 with the error page unless the caller may do action
// on resource (the JSON route's permission).
func (a *App) require(w http.ResponseWriter, r *http.Request, action, resource string) bool {
	if a.allowed(r, action, resource) {
		return true
	}
	a.errorPage(w, r, http.StatusForbidden, nil)
	return false
}

// ----- errors -----

// fail shows err as an error page; an Unauthenticated error sends the
// browser to the sign-in form instead.
func (a *App) fail(w http.ResponseWriter, r *http.Request, err error) {
	if errs.Is(err, errs.Unauthenticated) {
		http.Redirect(w, r, signInPath, http.StatusSeeOther)
		return
	}
	status, ok := httpedge.StatusOf(errs.KindOf(err))
	if !ok {
		status = http.StatusInternalServerError
		httpedge.Logger(r).Error("internal error", "path", r.URL.Path, "error", err.Error())
	}
	a.errorPage(w, r, status, err)
}

type errorView struct {
	base
	Status  int
	Heading string
	Text    string
}

func (a *App) errorPage(w http.ResponseWriter, r *http.Request, status int, err error) {
	v := errorView{base: a.newBase(r, "", ""), Status: status}
	switch {
	case status == http.StatusNotFound:
		v.Heading, v.Text = tr(r, "Page not found"), tr(r, "There is no library page at this address.")
	case errs.CodeOf(err) == errs.CodeCSRFRejected:
		v.Heading, v.Text = tr(r, "This form was not accepted"), tr(r, "It did not come from this library's own pages. Go back, reload the page and try again.")
	case status == http.StatusForbidden:
		v.Heading, v.Text = tr(r, "You cannot use this page"), tr(r, "Your account does not have access to this page.")
	case status == http.StatusTooManyRequests:
		v.Heading, v.Text = tr(r, "Too many requests"), tr(r, "Wait a little and try again.")
	case status == http.StatusServiceUnavailable:
		v.Heading, v.Text = tr(r, "The library is not available right now"), tr(r, "Try again in a minute.")
	case status >= 500:
		v.Heading, v.Text = tr(r, "Something went wrong"), tr(r, "Try again. If it keeps happening, tell your administrator.")
	default:
		v.Heading, v.Text = tr(r, "The form could not be read"), tr(r, "Go back, reload the page and try again.")
	}
	v.Title = v.Heading
	a.render(w, r, status, "error", v)
}

// fieldLabels name the service's fields as the forms label them, in
// English: label says them in the page's language.
var fieldLabels = map[string]string{
	"due_at": textKey("Due date"), "code": textKey("Copy code"), "student_id": textKey("Student"), "title": textKey("Title"), "author": textKey("Author"),
	"isbn": textKey("ISBN"), "cover_url": textKey("Cover URL"), "loan_category": textKey("Loan category"), "copies": textKey("Copies"), "count": textKey("Number of copies"), "name": textKey("Name"),
	"email": textKey("Email"), "student_number": textKey("Student number"), "password": textKey("Password"), "default_loan_days": textKey("Loan period"),
	"max_renewals": textKey("Renewals allowed"), "renewal_days": textKey("Renewal period"), "role": textKey("Role"), "school_id": textKey("School"),
	"loan_history_days": textKey("Loan history"), "send_at": textKey("Time"), "due_soon_days": textKey("Due soon"), "overdue_steps": textKey("Overdue notices"),
	"homerooms":        textKey("Homerooms"),
	"hold_pickup_days": textKey("Days a copy waits for a hold"),
	"sru_endpoint":     textKey("Catalogue server"),
	"currency":         textKey("Currency"), "replacement_cost_cents": textKey("Replacement cost"), "block_overdue_items": textKey("Overdue items that block"),
	"block_charges_cents": textKey("Charges that block"), "price_cents": textKey("Replacement price"), "damaged.note": textKey("Damage note"),
	"damaged.charge_cents": textKey("Damage charge"), "note": textKey("Note"), "action": textKey("Action"),
	"call_number": textKey("Call number"), "genre": textKey("Genre"), "reading_level": textKey("Reading level"), "age_min": textKey("Youngest age"),
	"age_max": textKey("Oldest age"), "publisher": textKey("Publisher"), "published_year": textKey("Year published"), "subjects": textKey("Subjects"),
	"reading_level_check": textKey("Reading-level check"),
	"label_prefix":        textKey("Spine label prefix"),
	"language":            textKey("Language"), "timezone": textKey("Time zone"),
}

// messageOf is a sentence for the librarian: the service's client-safe
// message, with the fields it names, or a generic sentence for an internal
// error (which is logged).
func (a *App) messageOf(r *http.Request, err error) string {
	e, ok := errs.As(err)
	if _, known := httpedge.StatusOf(e.Kind); !ok || !known {
		httpedge.Logger(r).Error("internal error", "path", r.URL.Path, "error", err.Error())
		return tr(r, "Something went wrong; try again.")
	}
	say := i18n.From(r.Context()).Say
	fields := fieldErrors(r, err)
	if len(fields) == 0 {
		return e.Localized(say)
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, tr(r, "%s %s.", label(r, k), fields[k]))
	}
	return strings.Join(parts, " ")
}

// label is a field's label in the page's language, or the field's own
// name when the forms have none for it.
func label(r *http.Request, field string) string {
	if l, ok := fieldLabels[field]; ok {
		return tr(r, l)
	}
	return field
}

// textKey marks an English text that is said later, through tr, from
// where it is kept (a table): the catalogue test reads it as a key.
func textKey(english string) string { return english }

// fieldErrors returns the service's per-field messages (details.fields),
// in the page's language.
func fieldErrors(r *http.Request, err error) map[string]string {
	e, ok := errs.As(err)
	if !ok {
		return nil
	}
	raw, _ := e.LocalizedDetails(i18n.From(r.Context()).Say)["fields"].(map[string]any)
	out := map[string]string{}
	for k, v := range raw {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// ----- forms -----

// form parses a posted form of at most maxFormBytes; on failure it has
// answered with an error page.
func (a *App) form(w http.ResponseWriter, r *http.Request) (url.Values, bool) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			a.fail(w, r, errs.E(errs.TooLarge, errs.CodePayloadTooLarge, "The form is too large."))
			return nil, false
		}
		a.fail(w, r, errs.E(errs.Malformed, errs.CodeMalformedForm, "The form could not be read."))
		return nil, false
	}
	return r.PostForm, true
}

// ----- flash messages -----

// flash is the one-time message shown by the page a form post redirects
// to (Post/Redirect/Get). It travels in a short-lived HttpOnly cookie, not
// in the URL, so names and titles stay out of browser history and logs.
// It is not signed: it holds nothing secret and is only ever shown as
// escaped text, so a forged one can only show a wrong sentence.
type flash struct {
	Kind    string            `json:"k"`           // success, info, warning (done, with a note) or error
	Message string            `json:"m"`           // shown as text
	Focus   string            `json:"f,omitempty"` // which desk form gets the focus
	Values  map[string]string `json:"v,omitempty"` // values to refill after an error
}

const maxFlashMessage = 1500

// setFlash stores f for the next page of this browser.
func (a *App) setFlash(w http.ResponseWriter, f flash) {
	if utf8.RuneCountInString(f.Message) > maxFlashMessage {
		f.Message = string([]rune(f.Message)[:maxFlashMessage]) + "…"
	}
	for k, v := range f.Values {
		if len(v) > 200 {
			f.Values[k] = v[:200]
		}
	}
	b, _ := json.Marshal(f)
	http.SetCookie(w, &http.Cookie{
		Name: flashCookie, Value: base64.RawURLEncoding.EncodeToString(b), Path: "/library/",
		MaxAge: flashCookieAge, HttpOnly: true, Secure: a.cfg.CookieSecure, SameSite: http.SameSiteLaxMode,
	})
}

// takeFlash reads and clears the flash message, if there is a valid one.
func (a *App) takeFlash(w http.ResponseWriter, r *http.Request) *flash {
	c, err := r.Cookie(flashCookie)
	if err != nil {
		return nil
	}
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: "", Path: "/library/", MaxAge: -1, HttpOnly: true, Secure: a.cfg.CookieSecure, SameSite: http.SameSiteLaxMode})
	return decodeFlash(c.Value)
}

func decodeFlash(v string) *flash {
	b, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil {
		return nil
	}
	var f flash
	if json.Unmarshal(b, &f) != nil || f.Message == "" {
		return nil
	}
	switch f.Kind {
	case "success", "info", "warning", "error":
	default:
		return nil
	}
	return &f
}

// redirect ends a form post: the flash for the next page, then 303 See
// Other, so reloading the page never posts the form again.
func (a *App) redirect(w http.ResponseWriter, r *http.Request, to string, f flash) {
	a.setFlash(w, f)
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// refusedTo ends a form post the use case refused: back to the page at
// back, with the refusal as an error flash. It reports whether err was a
// refusal, so the caller returns.
func (a *App) refusedTo(w http.ResponseWriter, r *http.Request, back string, err error) bool {
	if err == nil {
		return false
	}
	a.redirect(w, r, back, flash{Kind: "error", Message: a.messageOf(r, err)})
	return true
}

// succeeded ends a form post that did what it asked: back to the page at
// back, saying so.
func (a *App) succeeded(w http.ResponseWriter, r *http.Request, back, msg string) {
	a.redirect(w, r, back, flash{Kind: "success", Message: msg})
}

// quote puts a title or name in typographic quotes for a message.
func quote(s string) string { return fmt.Sprintf("“%s”", s) }
