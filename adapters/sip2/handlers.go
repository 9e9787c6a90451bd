package sip2

import (
	"context"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/selfcheck"
	"github.com/readinglibrary/service/core/user"
)

// Response codes.
const (
	codeLoginResp        = "94"
	codeStatusResp       = "98"
	codePatronStatusResp = "24"
	codePatronInfoResp   = "64"
	codeItemInfoResp     = "18"
	codeCheckoutResp     = "12"
	codeCheckinResp      = "10"
	codeRenewResp        = "30"
	codeEndSessionResp   = "36"
)

// supported is the status answer's BX field: which of the 16 SIP2
// requests this server answers, in the order SIP2 lists them (patron
// status, checkout, checkin, block patron, status, resend, login, patron
// information, end session, fee paid, item information, item status
// update, patron enable, hold, renew, renew all).
const supported = "YYYNYYYYYNYNNNYN"

// SIP2's language codes (the language field of 23, 24, 63 and 64), from
// the list of SIP2 2.00 as FOLIO's edge-sip2 maps them
// (src/main/java/org/folio/edge/sip2/parser/LanguageMapper.java): 000 is
// unknown (any code not here is one the service does not speak), and
// North American Spanish has a code of its own.
const (
	sipEnglish              = "001"
	sipSpanish              = "008"
	sipArabic               = "016"
	sipNorthAmericanSpanish = "021"
)

// sipLangs are the codes a kiosk may ask for that the service speaks.
var sipLangs = map[string]i18n.Lang{
	sipEnglish: i18n.English, sipSpanish: i18n.Spanish, sipNorthAmericanSpanish: i18n.Spanish, sipArabic: i18n.Arabic,
}

// asked is the language code a request's fixed fields start with (23 and
// 63 only), "" for any other request.
func asked(req Request) string {
	if req.Code == CodePatronStatus || req.Code == CodePatronInfo {
		return req.FixedAt(0, 3)
	}
	return ""
}

// lang is the language of an answer's texts: the one the request asks for
// when the service speaks it, else the patron's own choice (nil: no
// patron is known), else the school's.
func (k *conn) lang(req Request, patron *user.Account) i18n.Lang {
	if l, ok := sipLangs[asked(req)]; ok {
		return l
	}
	personal, school := "", ""
	if patron != nil {
		personal = patron.Preferences.Language
	}
	if k.sess != nil {
		school = k.sess.School.Settings.Language
	}
	return i18n.Choose(personal, school, "")
}

// langCode is the language field of an answer said in l: the request's
// own code when it asked for l (021 stays 021), else l's.
func langCode(req Request, l i18n.Lang) string {
	if code := asked(req); sipLangs[code] == l {
		return code
	}
	switch l {
	case i18n.Spanish:
		return sipSpanish
	case i18n.Arabic:
		return sipArabic
	default:
		return sipEnglish
	}
}

// handle answers one decoded request; false for a request this server
// does not answer.
func (k *conn) handle(ctx context.Context, req Request) (Response, bool) {
	if req.Code == CodeLogin {
		return k.login(ctx, req), true
	}
	if k.sess != nil {
		// A kiosk removed by a librarian is signed out at its next
		// request; the school's settings are read afresh.
		cur, err := k.s.SelfCheck.Current(ctx, *k.sess)
		if err != nil {
			k.sess = nil
			if !errs.Is(err, errs.Unauthenticated) {
				k.s.logger().Error("sip2: read the kiosk", "remote", k.remote, "error", err.Error())
			}
		} else {
			k.sess = &cur
		}
	}
	if req.Code == CodeSCStatus {
		return k.status(req), true
	}
	if _, known := fixedLength[req.Code]; !known || req.Code == CodeResend {
		return Response{}, false
	}
	if k.sess == nil {
		return k.signedOut(req), true
	}
	switch req.Code {
	case CodePatronStatus:
		return k.patronStatus(ctx, req), true
	case CodePatronInfo:
		return k.patronInfo(ctx, req), true
	case CodeItemInfo:
		return k.itemInfo(ctx, req), true
	case CodeCheckout:
		return k.checkout(ctx, req), true
	case CodeCheckin:
		return k.checkin(ctx, req), true
	case CodeRenew:
		return k.renew(ctx, req), true
	default: // CodeEndPatronSession
		r := Response{Code: codeEndSessionResp, Fixed: "Y" + k.date(k.s.now())}
		r.Add("AO", k.institution(req)).Add("AA", req.Value("AA"))
		return r, true
	}
}

func (k *conn) login(ctx context.Context, req Request) Response {
	sess, err := k.s.SelfCheck.SignIn(ctx, req.Value("CN"), req.Value("CO"), k.clientIP())
	if err != nil {
		k.sess = nil
		switch {
		case errs.Is(err, errs.Unauthenticated):
			k.failedLogins++
			k.s.logger().Warn("sip2: kiosk sign-in refused", "remote", k.remote, "failures", k.failedLogins)
		case errs.Is(err, errs.RateLimited):
			// Locked by earlier wrong passwords: this connection gets no
			// more tries.
			k.failedLogins = maxFailedLogins
			k.s.logger().Warn("sip2: kiosk sign-in throttled", "remote", k.remote)
		default:
			k.s.logger().Error("sip2: kiosk sign-in", "remote", k.remote, "error", err.Error())
		}
		return Response{Code: codeLoginResp, Fixed: "0"}
	}
	k.failedLogins = 0
	k.sess = &sess
	k.s.logger().Info("sip2: kiosk signed in", "remote", k.remote, "kiosk", sess.Kiosk.Login, "school_id", sess.School.ID)
	return Response{Code: codeLoginResp, Fixed: "1"}
}

// status answers 99: online, and what may be done, once signed in.
func (k *conn) status(req Request) Response {
	on := "N"
	if k.sess != nil {
		on = "Y"
	}
	// Online, checkin, checkout, renewal policy, status update, offline;
	// a timeout of 10.0 s, 3 retries; the time; the protocol version.
	fixed := on + on + on + on + "N" + "N" + "100" + "003" + k.date(k.s.now()) + "2.00"
	r := Response{Code: codeStatusResp, Fixed: fixed}
	r.Add("AO", k.institution(req))
	if k.sess != nil {
		r.Add("AM", k.sess.School.Name)
	}
	r.Add("BX", supported)
	if k.sess != nil {
		r.Add("AN", k.sess.Kiosk.Name)
	} else {
		r.Add("AF", k.lang(req, nil).T("Sign the kiosk in first."))
	}
	return r
}

// signedOut answers a request made before a sign-in: refused, in the
// request's own answer where SIP2 has a yes or no for it.
func (k *conn) signedOut(req Request) Response {
	now := k.date(k.s.now())
	lang := k.lang(req, nil)
	var r Response
	switch req.Code {
	case CodeCheckout:
		r = Response{Code: codeCheckoutResp, Fixed: "0NUN" + now}
	case CodeCheckin:
		r = Response{Code: codeCheckinResp, Fixed: "0NUN" + now}
	case CodeRenew:
		r = Response{Code: codeRenewResp, Fixed: "0NUN" + now}
	case CodeItemInfo:
		r = Response{Code: codeItemInfoResp, Fixed: "01" + "00" + "01" + now}
	case CodePatronInfo:
		r = Response{Code: codePatronInfoResp, Fixed: deniedStatus + langCode(req, lang) + now + strings.Repeat("0000", 6)}
	case CodePatronStatus:
		r = Response{Code: codePatronStatusResp, Fixed: deniedStatus + langCode(req, lang) + now}
	default:
		r = Response{Code: codeEndSessionResp, Fixed: "N" + now}
	}
	r.Add("AO", k.institution(req))
	return *r.Add("AF", lang.T("The kiosk is not signed in."))
}

// deniedStatus is the 14 patron status flags of a patron who may do
// nothing: charge, renewal, recall and hold privileges denied.
const deniedStatus = "YYYY          "

// patronFlags are the 14 patron status flags of a student's standing.
func patronFlags(st library.Standing) string {
	f := []byte(strings.Repeat(" ", 14))
	for _, b := range st.Blocks {
		f[0], f[1], f[3] = 'Y', 'Y', 'Y' // no charges, renewals or holds
		switch b.Reason {
		case library.BlockOverdueItems:
			f[6] = 'Y' // too many items overdue
		default:
			f[10] = 'Y' // excessive outstanding fines
		}
	}
	return string(f)
}

func (k *conn) patronStatus(ctx context.Context, req Request) Response {
	now := k.date(k.s.now())
	number := req.Value("AA")
	p, err := k.s.SelfCheck.Patron(ctx, *k.sess, number)
	r := Response{Code: codePatronStatusResp}
	if err != nil {
		lang := k.lang(req, nil)
		r.Fixed = deniedStatus + langCode(req, lang) + now
		r.Add("AO", k.institution(req)).Add("AA", number).Add("AE", "").Add("BL", "N")
		return *r.Add("AF", k.message(lang, err))
	}
	lang := k.lang(req, &p.Student)
	r.Fixed = patronFlags(p.Standing) + langCode(req, lang) + now
	r.Add("AO", k.institution(req)).Add("AA", number).Add("AE", p.Student.Name).Add("BL", "Y")
	k.addFees(&r, p)
	if p.Standing.Blocked() {
		r.Add("AF", lang.T("You cannot borrow now; please see the librarian."))
	}
	return r
}

func (k *conn) addFees(r *Response, p selfcheck.Patron) {
	if p.Standing.OpenCharges > 0 {
		r.Add("BH", p.Standing.Currency).Add("BV", money(p.Standing.OpenCharges))
	}
}

// money writes minor units as a decimal amount ("12.50").
func money(minor int64) string {
	return strconv.FormatInt(minor/100, 10) + "." + strconv.FormatInt(100+minor%100, 10)[1:]
}

// maxListedItems caps the item ids a patron information answer lists.
const maxListedItems = 50

func (k *conn) patronInfo(ctx context.Context, req Request) Response {
	now := k.date(k.s.now())
	number := req.Value("AA")
	p, err := k.s.SelfCheck.Patron(ctx, *k.sess, number)
	r := Response{Code: codePatronInfoResp}
	if err != nil {
		lang := k.lang(req, nil)
		r.Fixed = deniedStatus + langCode(req, lang) + now + strings.Repeat("0000", 6)
		r.Add("AO", k.institution(req)).Add("AA", number).Add("AE", "").Add("BL", "N")
		return *r.Add("AF", k.message(lang, err))
	}
	lang := k.lang(req, &p.Student)
	overdue := p.Overdue()
	r.Fixed = patronFlags(p.Standing) + langCode(req, lang) + now + count4(0) + count4(overdue) + count4(len(p.Loans)) + count4(0) + count4(0) + count4(0)
	r.Add("AO", k.institution(req)).Add("AA", number).Add("AE", p.Student.Name).Add("BL", "Y")
	k.addFees(&r, p)
	// The summary (fixed offset 21) asks for one list: position 1 the
	// overdue items, 2 the charged ones; BP and BQ choose a range of it.
	summary := req.FixedAt(21, 10)
	from, to := itemRange(req.Value("BP"), req.Value("BQ"))
	listed := 0
	for i, l := range p.Loans {
		n := i + 1
		if n < from || n > to || listed == maxListedItems {
			continue
		}
		switch {
		case len(summary) > 2 && summary[2] == 'Y':
			r.Add("AU", l.Loan.CopyCode)
			listed++
		case len(summary) > 1 && summary[1] == 'Y' && l.Status == library.LoanOverdue:
			r.Add("AT", l.Loan.CopyCode)
			listed++
		}
	}
	if p.Standing.Blocked() {
		r.Add("AF", lang.T("You cannot borrow now; please see the librarian."))
	}
	return r
}

// itemRange reads BP and BQ (1-based, both included); a missing or bad
// one leaves that end open.
func itemRange(bp, bq string) (int, int) {
	from, to := 1, int(^uint(0)>>1)
	if n, err := strconv.Atoi(strings.TrimSpace(bp)); err == nil && n > 0 {
		from = n
	}
	if n, err := strconv.Atoi(strings.TrimSpace(bq)); err == nil && n > 0 {
		to = n
	}
	return from, to
}

func count4(n int) string {
	if n > 9999 {
		n = 9999
	}
	s := strconv.Itoa(n)
	return strings.Repeat("0", 4-len(s)) + s
}

// Circulation status codes of the item information answer.
const (
	circOther     = "01"
	circAvailable = "03"
	circCharged   = "04"
	circClaimed   = "11"
	circLost      = "12"
)

func itemStatus(it selfcheck.Item) string {
	switch {
	case it.Loan != nil:
		return circCharged
	case it.Copy.Condition.Condition == library.ConditionLost:
		return circLost
	case it.Copy.Condition.Condition == library.ConditionClaimsReturned:
		return circClaimed
	case it.Copy.Condition.Condition != library.ConditionNone:
		return circOther
	}
	return circAvailable
}

func (k *conn) itemInfo(ctx context.Context, req Request) Response {
	now := k.date(k.s.now())
	code := req.Value("AB")
	it, err := k.s.SelfCheck.Item(ctx, *k.sess, code)
	r := Response{Code: codeItemInfoResp}
	if err != nil {
		r.Fixed = circOther + "00" + "01" + now
		r.Add("AB", code).Add("AJ", "")
		// No patron in the request: the school's language.
		return *r.Add("AF", k.message(k.lang(req, nil), err))
	}
	r.Fixed = itemStatus(it) + "00" + "01" + now
	r.Add("AB", code).Add("AJ", it.Book.Title)
	if it.Loan != nil {
		r.Add("AH", k.dueDate(it.Loan.DueAt))
	}
	k.addLocation(&r, it)
	return r
}

func (k *conn) addLocation(r *Response, it selfcheck.Item) {
	if it.Copy.Location != "" {
		r.Add("AQ", it.Copy.Location)
	}
}

func (k *conn) checkout(ctx context.Context, req Request) Response {
	now := k.date(k.s.now())
	number, code := req.Value("AA"), req.Value("AB")
	// The kiosk's renewal policy (the first fixed field): a copy the
	// student already has is renewed.
	renew := req.FixedAt(0, 1) == "Y"
	v, it, err := k.s.SelfCheck.CheckOut(ctx, *k.sess, number, code, renew)
	return k.loanAnswer(codeCheckoutResp, req, k.patronLang(ctx, req, number), now, number, code, v, it, err)
}

func (k *conn) renew(ctx context.Context, req Request) Response {
	now := k.date(k.s.now())
	number, code := req.Value("AA"), req.Value("AB")
	v, it, err := k.s.SelfCheck.Renew(ctx, *k.sess, number, code)
	return k.loanAnswer(codeRenewResp, req, k.patronLang(ctx, req, number), now, number, code, v, it, err)
}

// patronLang is the language of the answers to the student with the card
// number (a check-out and a renewal name one, with no language): their own
// choice, else the school's, which an unknown card gets too.
func (k *conn) patronLang(ctx context.Context, req Request, number string) i18n.Lang {
	st, err := k.s.SelfCheck.PatronAccount(ctx, *k.sess, number)
	if err != nil {
		// The request itself says what went wrong.
		return k.lang(req, nil)
	}
	return k.lang(req, &st)
}

// loanAnswer is the checkout or renew answer: ok, renewal ok, magnetic
// media unknown, desensitize, the date, and the loan's due date.
func (k *conn) loanAnswer(respCode string, req Request, lang i18n.Lang, now, number, code string, v circulation.LoanView, it selfcheck.Item, err error) Response {
	r := Response{Code: respCode}
	if err != nil {
		r.Fixed = "0NUN" + now
		r.Add("AO", k.institution(req)).Add("AA", number).Add("AB", code).Add("AJ", it.Book.Title).Add("AH", "")
		return *r.Add("AF", k.message(lang, err))
	}
	renewed := "N"
	if v.Renewals > 0 {
		renewed = "Y"
	}
	r.Fixed = "1" + renewed + "U" + "Y" + now
	r.Add("AO", k.institution(req)).Add("AA", number).Add("AB", code).Add("AJ", it.Book.Title).Add("AH", k.dueDate(v.DueAt))
	return *r.Add("AF", lang.T("Due %s.", dueText(lang, v.DueAt)))
}

func (k *conn) checkin(ctx context.Context, req Request) Response {
	now := k.date(k.s.now())
	code := req.Value("AB")
	v, it, err := k.s.SelfCheck.CheckIn(ctx, *k.sess, code)
	// A return names no patron: whoever is at the kiosk reads the
	// school's language.
	lang := k.lang(req, nil)
	r := Response{Code: codeCheckinResp}
	if err != nil {
		r.Fixed = "0NUN" + now
		r.Add("AO", k.institution(req)).Add("AB", code).Add("AJ", it.Book.Title)
		k.addLocation(&r, it)
		return *r.Add("AF", k.message(lang, err))
	}
	// A copy put aside for a hold is not re-armed and raises the alert:
	// the student hands it to the desk rather than the shelf.
	alert, resensitize := "N", "Y"
	msg := lang.T("Returned. Thank you.")
	if v.PutAside != nil {
		alert, resensitize = "Y", "N"
		msg = lang.T("Returned. Someone is waiting for this book: please hand it to the librarian.")
	}
	r.Fixed = "1" + resensitize + "U" + alert + now
	r.Add("AO", k.institution(req)).Add("AB", code).Add("AJ", it.Book.Title)
	k.addLocation(&r, it)
	return *r.Add("AF", msg)
}

// clientIP is the kiosk's address without its port, as the login
// throttle counts people's sign-ins by address.
func (k *conn) clientIP() string {
	if host, _, err := net.SplitHostPort(k.remote); err == nil {
		return host
	}
	return k.remote
}

// institution echoes the request's AO, which kiosks check, or names the
// school by its domain.
func (k *conn) institution(req Request) string {
	if v, ok := req.Get("AO"); ok && v != "" {
		return v
	}
	if k.sess != nil {
		return k.sess.School.Domain
	}
	return ""
}

// message is the screen message of an error in lang: the use case's
// sentence for what the student can act on, a general one for a failure
// of the service, which is logged.
func (k *conn) message(lang i18n.Lang, err error) string {
	if e, ok := errs.As(err); ok && e.Kind != errs.Internal && e.Kind != errs.Unavailable && e.Message != "" {
		return e.Localized(lang.Say)
	}
	k.s.logger().Error("sip2: request failed", "remote", k.remote, "error", err.Error())
	return lang.T("The library system could not do this now; please see the librarian.")
}

// dueText is a due day (YYYY-MM-DD) in a screen message, as the language
// writes a date in a sentence; English keeps the YYYY-MM-DD its kiosks
// have always shown.
func dueText(lang i18n.Lang, day string) string {
	d, err := time.Parse(time.DateOnly, day)
	if err != nil || lang == i18n.English {
		return day
	}
	return lang.Date(d)
}

// date is SIP2's date and time in the school's zone: YYYYMMDD, four
// spaces for local time, HHMMSS.
func (k *conn) date(t time.Time) string {
	if k.sess != nil {
		t = t.In(k.sess.School.Settings.Location())
	}
	return t.Format("20060102") + "    " + t.Format("150405")
}

// dueDate is a loan's due day (YYYY-MM-DD) as SIP2's date at the end of
// that day.
func (k *conn) dueDate(day string) string {
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return ""
	}
	return d.Format("20060102") + "    235959"
}
