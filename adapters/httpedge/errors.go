package httpedge

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strconv"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/i18n"
)

// errorBody is the error envelope of every JSON answer.
type errorBody struct {
	Error ErrorPayload `json:"error"`
}

// ErrorPayload is an error as the error body shows it.
type ErrorPayload struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details"`
}

// statusOf is the only table that maps error kinds to HTTP statuses. A kind
// missing here is a 500.
var statusOf = map[errs.Kind]int{
	errs.Malformed:        http.StatusBadRequest,
	errs.Unauthenticated:  http.StatusUnauthorized,
	errs.Forbidden:        http.StatusForbidden,
	errs.NotFound:         http.StatusNotFound,
	errs.MethodNotAllowed: http.StatusMethodNotAllowed,
	errs.Conflict:         http.StatusConflict,
	errs.TooLarge:         http.StatusRequestEntityTooLarge,
	errs.UnsupportedMedia: http.StatusUnsupportedMediaType,
	errs.Invalid:          http.StatusUnprocessableEntity,
	errs.RateLimited:      http.StatusTooManyRequests,
	errs.Unavailable:      http.StatusServiceUnavailable,
	errs.BadGateway:       http.StatusBadGateway,
	errs.GatewayTimeout:   http.StatusGatewayTimeout,
}

// PayloadOf is e as the error body shows it, for answers that carry an
// error inside another body (a finished import job's outcome).
func PayloadOf(e *errs.Error) ErrorPayload {
	p := ErrorPayload{Code: e.ClientCode(), Message: e.Message, Details: e.Details}
	if p.Details == nil {
		p.Details = map[string]any{}
	}
	return p
}

// StatusOf returns the HTTP status of an error kind; false for a kind the
// table does not know, which is answered as 500. The pages use it too, so
// both front doors answer the same status for an error.
func StatusOf(kind errs.Kind) (int, bool) {
	s, ok := statusOf[kind]
	return s, ok
}

// WriteError renders err as the JSON error body. Internal errors are logged
// with their cause and shown to the client only as "internal error".
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	e, ok := errs.As(err)
	if !ok {
		e = errs.Wrap(err, "internal error")
	}
	status, known := statusOf[e.Kind]
	if !known {
		status = http.StatusInternalServerError
	}
	if status == http.StatusInternalServerError {
		Logger(r).Error("internal error", "error", err.Error())
	} else if e.Err != nil && (status == http.StatusServiceUnavailable || status == http.StatusBadGateway || status == http.StatusGatewayTimeout) {
		// An outside server's cause names no URL (adapters/sru keeps the
		// query, and whatever it carries, out of it).
		Logger(r).Warn("dependency unavailable", "error", e.Err.Error())
	}
	renderError(w, r, e, status)
}

// renderError writes e with status and logs nothing, for callers that have
// logged the cause their own way.
func renderError(w http.ResponseWriter, r *http.Request, e *errs.Error, status int) {
	// The message is said in the language the client asks for; the code,
	// the field names and every other detail stay as they are.
	lang := MessageLang(r)
	payload := ErrorPayload{Code: e.ClientCode(), Message: e.Localized(lang.Say), Details: e.LocalizedDetails(lang.Say)}
	if e.Kind == errs.Unavailable && errors.Is(r.Context().Err(), context.DeadlineExceeded) {
		// The request's own deadline passed: a slow request, not an outage
		// (an unreachable database fails server selection in 2 s, long
		// before the deadline), so say so rather than "unavailable".
		payload.Code, payload.Message = errs.CodeRequestTimeout, lang.T("The request took too long and was stopped; try again, or ask for less (a narrower search, a smaller page).")
	}
	if status == http.StatusInternalServerError {
		payload = ErrorPayload{Code: errs.CodeInternalError, Message: lang.T("An internal error occurred.")}
	}
	w.Header().Add("Vary", "Accept-Language")
	w.Header().Set("Content-Language", string(lang))
	if payload.Details == nil {
		payload.Details = map[string]any{}
	}
	if status == http.StatusUnauthorized && e.ClientCode() != errs.CodeInvalidCredentials {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(e.RetryAfter.Seconds()))))
	}
	WriteJSON(w, status, errorBody{Error: payload})
}

// MessageLang is the language an API answer's messages are said in: the
// first language of the request's Accept-Language header that the service
// speaks, else English. Codes, field names and paths never change with it.
func MessageLang(r *http.Request) i18n.Lang {
	if l, ok := i18n.FromAcceptLanguage(r.Header.Get("Accept-Language")); ok {
		return l
	}
	return i18n.Default
}

// WriteJSON writes v with status. Encoding errors after the header is sent
// can only show in the access log's byte count, so they are ignored here.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(true)
	_ = enc.Encode(v)
}
