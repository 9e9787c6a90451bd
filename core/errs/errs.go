// Package errs holds the single error type that crosses every port of the
// service. A Kind decides the HTTP status (mapped once, in adapters/httpedge);
// a Code is the snake_case identifier shown to clients.
//
// Like all of the core it may import only the standard library (not net/http
// or database/sql), other core packages, github.com/google/uuid and
// golang.org/x/text; of the core only core/service may import ports (the
// layer rules of test/architecture_test.go).
package errs

import (
	"errors"
	"fmt"
	"time"
)

// Kind classifies an error. Each kind maps to exactly one HTTP status.
type Kind string

// The kinds an error can have. Anything that is not an *Error is Internal.
const (
	Malformed        Kind = "malformed"          // 400: the request cannot be parsed
	Unauthenticated  Kind = "unauthenticated"    // 401
	Forbidden        Kind = "forbidden"          // 403
	NotFound         Kind = "not_found"          // 404
	MethodNotAllowed Kind = "method_not_allowed" // 405
	Conflict         Kind = "conflict"           // 409
	TooLarge         Kind = "too_large"          // 413
	UnsupportedMedia Kind = "unsupported_media"  // 415
	Invalid          Kind = "invalid"            // 422: parsed, but the values are wrong
	RateLimited      Kind = "rate_limited"       // 429
	Internal         Kind = "internal"           // 500
	Unavailable      Kind = "unavailable"        // 503: a dependency is down
	// An outside server the request needed (a school's catalogue server)
	// answered wrongly (502) or too late (504); the service itself is fine.
	BadGateway     Kind = "bad_gateway"     // 502
	GatewayTimeout Kind = "gateway_timeout" // 504
)

// defaultCode is the client-facing code used when an error names none.
var defaultCode = map[Kind]string{
	Malformed:        CodeMalformedJSON,
	Unauthenticated:  CodeUnauthorized,
	Forbidden:        CodeForbidden,
	NotFound:         CodeNotFound,
	MethodNotAllowed: CodeMethodNotAllowed,
	Conflict:         CodeConflict,
	TooLarge:         CodePayloadTooLarge,
	UnsupportedMedia: CodeUnsupportedMediaType,
	Invalid:          CodeValidationFailed,
	RateLimited:      CodeRateLimitExceeded,
	Internal:         CodeInternalError,
	Unavailable:      CodeUnavailable,
	BadGateway:       CodeCatalogSourceUnavailable,
	GatewayTimeout:   CodeCatalogSourceTimeout,
}

// Error is the only error type that crosses a port. Message and Details are
// safe to show to clients; Err is the cause and is only ever logged.
type Error struct {
	Kind    Kind
	Code    string         // snake_case, e.g. "book_not_found"; empty means the kind's default
	Message string         // one human sentence
	Details map[string]any // e.g. {"fields": {"limit": "must be between 1 and 100"}}
	// RetryAfter, when set, tells the client how long to wait (429, 503).
	RetryAfter time.Duration
	Err        error
	// format and args are what Message was formatted from, so that a
	// front door can say it again in the reader's language (Localized).
	format string
	args   []any
}

// Error implements error. It includes the cause for logs; clients only ever
// see Message.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.ClientCode(), e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.ClientCode(), e.Message)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// ClientCode returns the code shown to clients.
func (e *Error) ClientCode() string {
	if e.Code != "" {
		return e.Code
	}
	if c, ok := defaultCode[e.Kind]; ok {
		return c
	}
	return defaultCode[Internal]
}

// E builds an error of the given kind and code with a formatted message.
func E(kind Kind, code, format string, args ...any) *Error {
	return &Error{Kind: kind, Code: code, Message: fmt.Sprintf(format, args...), format: format, args: args}
}

// Wrap builds an Internal error that keeps cause for the logs only.
func Wrap(cause error, format string, args ...any) *Error {
	return &Error{Kind: Internal, Message: fmt.Sprintf(format, args...), Err: cause, format: format, args: args}
}

// Translator says an English text in a reader's language: it reports
// false when it has no translation of format, and the English stays.
type Translator func(format string, args ...any) (string, bool)

// Localized returns Message in the language tr speaks, formatted from the
// same arguments; a message built without E or Wrap is looked up as it
// stands.
func (e *Error) Localized(tr Translator) string {
	if tr == nil {
		return e.Message
	}
	if e.format != "" {
		if s, ok := tr(e.format, sayArgs(tr, e.args)...); ok {
			return s
		}
		return e.Message
	}
	if s, ok := tr(e.Message); ok {
		return s
	}
	return e.Message
}

// sayer is an argument that is a sentence of its own (an i18n.Text, a
// part the message is built from): Localized says it in the reader's
// language too.
type sayer interface {
	SayWith(say func(format string, args ...any) (string, bool)) string
}

func sayArgs(tr Translator, args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		if s, ok := a.(sayer); ok {
			a = s.SayWith(tr)
		}
		out[i] = a
	}
	return out
}

// LocalizedDetails returns Details with each field's message (details.fields)
// in the language tr speaks; the other details, and the field names, stay
// as they are: clients match on them.
func (e *Error) LocalizedDetails(tr Translator) map[string]any {
	fields, ok := e.Details["fields"].(map[string]any)
	if tr == nil || !ok {
		return e.Details
	}
	out := make(map[string]any, len(e.Details))
	for k, v := range e.Details {
		out[k] = v
	}
	said := make(map[string]any, len(fields))
	for name, v := range fields {
		said[name] = v
		if msg, isText := v.(string); isText {
			if s, ok := tr(msg); ok {
				said[name] = s
			}
		}
	}
	out["fields"] = said
	return out
}

// WithDetail returns e with one more detail entry.
func (e *Error) WithDetail(key string, value any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[key] = value
	return e
}

// FieldErrors collects per-field validation messages, keyed by the JSON name
// of the field as the client sent it.
type FieldErrors map[string]string

// Add records a message for field unless one is already recorded.
func (f FieldErrors) Add(field, message string) {
	if _, ok := f[field]; !ok {
		f[field] = message
	}
}

// Err returns nil when there are no field errors, otherwise an Invalid error
// with details.fields set.
func (f FieldErrors) Err() error {
	if len(f) == 0 {
		return nil
	}
	fields := make(map[string]any, len(f))
	for k, v := range f {
		fields[k] = v
	}
	e := E(Invalid, "", "The request contains invalid values.")
	e.Details = map[string]any{"fields": fields}
	return e
}

// InvalidField is a shortcut for a single bad field.
func InvalidField(field, message string) error {
	return FieldErrors{field: message}.Err()
}

// As returns the *Error in err's chain, if any.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// KindOf returns the kind of err; nil has no kind, and any error that is not
// an *Error is Internal.
func KindOf(err error) Kind {
	if err == nil {
		return ""
	}
	if e, ok := As(err); ok {
		return e.Kind
	}
	return Internal
}

// CodeOf returns the client code of err (internal_error for foreign errors).
func CodeOf(err error) string {
	if err == nil {
		return ""
	}
	if e, ok := As(err); ok {
		return e.ClientCode()
	}
	return defaultCode[Internal]
}

// Is reports whether err has the given kind.
func Is(err error, kind Kind) bool { return err != nil && KindOf(err) == kind }
