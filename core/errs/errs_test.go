package errs_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/errs"
)

func TestClientCodeDefaults(t *testing.T) {
	tests := []struct {
		name string
		kind errs.Kind
		want string
	}{
		{name: "Malformed", kind: errs.Malformed, want: "malformed_json"},
		{name: "Unauthenticated", kind: errs.Unauthenticated, want: "unauthorized"},
		{name: "Forbidden", kind: errs.Forbidden, want: "forbidden"},
		{name: "NotFound", kind: errs.NotFound, want: "not_found"},
		{name: "MethodNotAllowed", kind: errs.MethodNotAllowed, want: "method_not_allowed"},
		{name: "Conflict", kind: errs.Conflict, want: "conflict"},
		{name: "TooLarge", kind: errs.TooLarge, want: "payload_too_large"},
		{name: "UnsupportedMedia", kind: errs.UnsupportedMedia, want: "unsupported_media_type"},
		{name: "Invalid", kind: errs.Invalid, want: "validation_failed"},
		{name: "RateLimited", kind: errs.RateLimited, want: "rate_limit_exceeded"},
		{name: "Internal", kind: errs.Internal, want: "internal_error"},
		{name: "Unavailable", kind: errs.Unavailable, want: "unavailable"},
		{name: "BadGateway", kind: errs.BadGateway, want: "catalog_source_unavailable"},
		{name: "GatewayTimeout", kind: errs.GatewayTimeout, want: "catalog_source_timeout"},
		{name: "UnknownKind", kind: errs.Kind("bogus"), want: "internal_error"},
		{name: "EmptyKind", kind: "", want: "internal_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &errs.Error{Kind: tt.kind, Message: "m"}
			if got := e.ClientCode(); got != tt.want {
				t.Errorf("ClientCode() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestClientCodeExplicitWins(t *testing.T) {
	e := errs.E(errs.NotFound, "book_not_found", "No book %q.", "bk_1")
	if got, want := e.ClientCode(), "book_not_found"; got != want {
		t.Errorf("ClientCode() = %q, want %q", got, want)
	}
	if got, want := e.Message, `No book "bk_1".`; got != want {
		t.Errorf("Message = %q, want %q", got, want)
	}
}

func TestKindOfAndCodeOf(t *testing.T) {
	notFound := errs.E(errs.NotFound, "book_not_found", "No such book.")
	tests := []struct {
		name     string
		err      error
		wantKind errs.Kind
		wantCode string
	}{
		{name: "Nil", err: nil, wantKind: "", wantCode: ""},
		{name: "Foreign", err: io.EOF, wantKind: errs.Internal, wantCode: "internal_error"},
		{name: "ForeignWrapped", err: fmt.Errorf("read: %w", io.EOF), wantKind: errs.Internal, wantCode: "internal_error"},
		{name: "Direct", err: notFound, wantKind: errs.NotFound, wantCode: "book_not_found"},
		{name: "Wrapped", err: fmt.Errorf("lookup: %w", notFound), wantKind: errs.NotFound, wantCode: "book_not_found"},
		{name: "DoubleWrapped", err: fmt.Errorf("a: %w", fmt.Errorf("b: %w", notFound)), wantKind: errs.NotFound, wantCode: "book_not_found"},
		{name: "WrappedDefaultCode", err: fmt.Errorf("x: %w", errs.E(errs.Conflict, "", "Taken.")), wantKind: errs.Conflict, wantCode: "conflict"},
		{name: "WrapIsInternal", err: errs.Wrap(io.EOF, "read body"), wantKind: errs.Internal, wantCode: "internal_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errs.KindOf(tt.err); got != tt.wantKind {
				t.Errorf("KindOf() = %q, want %q", got, tt.wantKind)
			}
			if got := errs.CodeOf(tt.err); got != tt.wantCode {
				t.Errorf("CodeOf() = %q, want %q", got, tt.wantCode)
			}
		})
	}
}

func TestIs(t *testing.T) {
	wrapped := fmt.Errorf("ctx: %w", errs.E(errs.Forbidden, "account_suspended", "Suspended."))
	tests := []struct {
		name string
		err  error
		kind errs.Kind
		want bool
	}{
		{name: "NilIsNothing", err: nil, kind: errs.Internal, want: false},
		{name: "NilIsNotEmptyKind", err: nil, kind: "", want: false},
		{name: "WrappedMatches", err: wrapped, kind: errs.Forbidden, want: true},
		{name: "WrappedOtherKind", err: wrapped, kind: errs.Unauthenticated, want: false},
		{name: "ForeignIsInternal", err: io.EOF, kind: errs.Internal, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errs.Is(tt.err, tt.kind); got != tt.want {
				t.Errorf("Is(%v, %q) = %v, want %v", tt.err, tt.kind, got, tt.want)
			}
		})
	}
}

func TestAs(t *testing.T) {
	orig := errs.E(errs.Invalid, "", "Bad.")
	e, ok := errs.As(fmt.Errorf("wrap: %w", orig))
	if !ok {
		t.Fatalf("As(wrapped) ok = false, want true")
	}
	if e != orig {
		t.Errorf("As(wrapped) = %p, want the original %p", e, orig)
	}
	if _, ok := errs.As(io.EOF); ok {
		t.Errorf("As(io.EOF) ok = true, want false")
	}
}

func TestFieldErrorsEmptyIsNil(t *testing.T) {
	if err := (errs.FieldErrors{}).Err(); err != nil {
		t.Errorf("FieldErrors{}.Err() = %v, want nil", err)
	}
	var nilFields errs.FieldErrors
	if err := nilFields.Err(); err != nil {
		t.Errorf("nil FieldErrors.Err() = %v, want nil", err)
	}
}

func TestFieldErrorsShape(t *testing.T) {
	f := errs.FieldErrors{}
	f.Add("limit", "must be between 1 and 100")
	f.Add("page", "must be at least 1")
	f.Add("limit", "second message is ignored")
	err := f.Err()
	e, ok := errs.As(err)
	if !ok {
		t.Fatalf("Err() = %T, want *errs.Error", err)
	}
	if got, want := e.Kind, errs.Invalid; got != want {
		t.Errorf("Kind = %q, want %q", got, want)
	}
	if got, want := e.ClientCode(), "validation_failed"; got != want {
		t.Errorf("ClientCode() = %q, want %q", got, want)
	}
	fields, ok := e.Details["fields"].(map[string]any)
	if !ok {
		t.Fatalf("Details[\"fields\"] = %T, want map[string]any", e.Details["fields"])
	}
	want := map[string]string{"limit": "must be between 1 and 100", "page": "must be at least 1"}
	if len(fields) != len(want) {
		t.Errorf("len(fields) = %d, want %d (%v)", len(fields), len(want), fields)
	}
	for k, v := range want {
		if got := fields[k]; got != v {
			t.Errorf("fields[%q] = %v, want %q", k, got, v)
		}
	}
	if len(e.Details) != 1 {
		t.Errorf("Details = %v, want only the fields key", e.Details)
	}

	// The details are a copy: later changes to f do not leak into the error.
	f["other"] = "late"
	if _, ok := fields["other"]; ok {
		t.Errorf("fields[\"other\"] present after the error was built, want the error to be a snapshot")
	}
}

func TestInvalidField(t *testing.T) {
	e, ok := errs.As(errs.InvalidField("email", "is required"))
	if !ok {
		t.Fatalf("InvalidField() is not an *errs.Error")
	}
	fields, _ := e.Details["fields"].(map[string]any)
	if got, want := fields["email"], "is required"; got != want {
		t.Errorf("fields[\"email\"] = %v, want %q", got, want)
	}
	if got, want := e.Kind, errs.Invalid; got != want {
		t.Errorf("Kind = %q, want %q", got, want)
	}
}

func TestErrorTextKeepsCauseOutOfClientFields(t *testing.T) {
	cause := errors.New("dial tcp 10.0.0.7:27017: connection refused")
	e := errs.Wrap(cause, "load account %s", "a1")

	if got := e.Error(); !strings.Contains(got, cause.Error()) {
		t.Errorf("Error() = %q, want it to contain the cause %q", got, cause.Error())
	}
	if got, want := e.Error(), "internal_error: load account a1: "+cause.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got := e.ClientCode(); strings.Contains(got, "10.0.0.7") {
		t.Errorf("ClientCode() = %q, want no cause text", got)
	}
	if got := e.Message; strings.Contains(got, "10.0.0.7") || got != "load account a1" {
		t.Errorf("Message = %q, want %q without the cause", got, "load account a1")
	}
	if !errors.Is(e, cause) {
		t.Errorf("errors.Is(e, cause) = false, want true (Unwrap returns the cause)")
	}
}

func TestErrorTextWithoutCause(t *testing.T) {
	e := errs.E(errs.NotFound, "book_not_found", "No book.")
	if got, want := e.Error(), "book_not_found: No book."; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if e.Unwrap() != nil {
		t.Errorf("Unwrap() = %v, want nil", e.Unwrap())
	}
}

func TestWithDetail(t *testing.T) {
	e := errs.E(errs.RateLimited, "", "Slow down.").WithDetail("limit", 100).WithDetail("reset", 1700000000)
	if got, want := e.Details["limit"], 100; got != want {
		t.Errorf("Details[\"limit\"] = %v, want %v", got, want)
	}
	if got, want := e.Details["reset"], 1700000000; got != want {
		t.Errorf("Details[\"reset\"] = %v, want %v", got, want)
	}
}

func TestLocalizedSaysTheMessageFromItsArguments(t *testing.T) {
	spanish := func(format string, args ...any) (string, bool) {
		switch format {
		case "The copy %s is on loan.":
			return fmt.Sprintf("El ejemplar %s está prestado.", args...), true
		case "must be at most 10":
			return "debe ser como máximo 10", true
		}
		return "", false
	}
	e := errs.E(errs.Conflict, "copy_on_loan", "The copy %s is on loan.", "B-7")
	if got := e.Localized(spanish); got != "El ejemplar B-7 está prestado." {
		t.Errorf("Localized: %q", got)
	}
	if e.Message != "The copy B-7 is on loan." || e.Localized(nil) != e.Message {
		t.Errorf("the English stays: %q", e.Message)
	}
	// A message the translator does not know stays English, even one
	// with a percent sign in it.
	odd := &errs.Error{Kind: errs.Invalid, Message: "100% of the copies are out."}
	if got := odd.Localized(spanish); got != odd.Message {
		t.Errorf("unknown message: %q", got)
	}
	fe := errs.FieldErrors{"limit": "must be at most 10", "name": "is not a name we know"}
	err, _ := errs.As(fe.Err())
	d := err.LocalizedDetails(spanish)
	fields := d["fields"].(map[string]any)
	if fields["limit"] != "debe ser como máximo 10" || fields["name"] != "is not a name we know" {
		t.Errorf("field messages: %v", fields)
	}
	// The error itself is not changed: another request may say it in
	// another language.
	if err.Details["fields"].(map[string]any)["limit"] != "must be at most 10" {
		t.Errorf("the details were changed in place: %v", err.Details)
	}
}
