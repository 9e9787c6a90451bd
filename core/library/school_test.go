package library_test

import (
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

var now = time.Date(2026, 11, 20, 9, 15, 0, 0, time.UTC)

func TestNewSchoolDomain(t *testing.T) {
	tests := []struct {
		name   string
		domain string
		wantOK bool
	}{
		{name: "OK", domain: "maple.example.org", wantOK: true},
		{name: "TwoLabels", domain: "maple.org", wantOK: true},
		{name: "DigitsAndHyphens", domain: "school-42.example.org", wantOK: true},
		{name: "Uppercase", domain: "Maple.example.org", wantOK: false},
		{name: "Underscore", domain: "maple_high.example.org", wantOK: false},
		{name: "NoDot", domain: "maple", wantOK: false},
		{name: "LeadingHyphen", domain: "-maple.example.org", wantOK: false},
		{name: "TrailingHyphenInLabel", domain: "maple-.example.org", wantOK: false},
		{name: "TrailingDot", domain: "maple.example.org.", wantOK: false},
		{name: "EmptyLabel", domain: "maple..org", wantOK: false},
		{name: "NumericTLD", domain: "maple.123", wantOK: false},
		{name: "Space", domain: "maple example.org", wantOK: false},
		{name: "Path", domain: "maple.example.org/x", wantOK: false},
		{name: "Empty", domain: "", wantOK: false},
		{name: "Label63", domain: strings.Repeat("a", 63) + ".org", wantOK: true},
		{name: "Label64", domain: strings.Repeat("a", 64) + ".org", wantOK: false},
		{name: "251Chars", domain: strings.Repeat(strings.Repeat("a", 61)+".", 4) + "org", wantOK: true}, // 4*62+3 = 251
		{name: "Over253", domain: strings.Repeat(strings.Repeat("a", 61)+".", 5) + "org", wantOK: false}, // 5*62+3 = 313
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := library.NewSchool("id1", "Maple High", tt.domain, now)
			if gotOK := err == nil; gotOK != tt.wantOK {
				t.Fatalf("NewSchool(domain %q) error = %v, want accepted=%v", tt.domain, err, tt.wantOK)
			}
			if err != nil {
				e, ok := errs.As(err)
				if !ok || e.Kind != errs.Invalid {
					t.Fatalf("error = %v, want an Invalid *errs.Error", err)
				}
				fields, _ := e.Details["fields"].(map[string]any)
				if _, ok := fields["domain"]; !ok || len(fields) != 1 {
					t.Errorf("fields = %v, want only \"domain\"", fields)
				}
				return
			}
			if s.Domain != tt.domain {
				t.Errorf("Domain = %q, want %q", s.Domain, tt.domain)
			}
		})
	}
}

func TestNewSchoolName(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		wantOK   bool
		wantName string
	}{
		{name: "Trimmed", in: "  Maple High  ", wantOK: true, wantName: "Maple High"},
		{name: "Empty", in: "", wantOK: false},
		{name: "Blank", in: "   ", wantOK: false},
		{name: "200Runes", in: strings.Repeat("é", 200), wantOK: true, wantName: strings.Repeat("é", 200)},
		{name: "201Chars", in: strings.Repeat("x", 201), wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := library.NewSchool("id1", tt.in, "maple.example.org", now)
			if gotOK := err == nil; gotOK != tt.wantOK {
				t.Fatalf("NewSchool(name %q) error = %v, want accepted=%v", tt.in, err, tt.wantOK)
			}
			if err != nil {
				e, _ := errs.As(err)
				fields, _ := e.Details["fields"].(map[string]any)
				if _, ok := fields["name"]; !ok {
					t.Errorf("fields = %v, want a \"name\" entry", fields)
				}
				return
			}
			if s.Name != tt.wantName {
				t.Errorf("Name = %q, want %q", s.Name, tt.wantName)
			}
		})
	}
}

func TestNewSchoolBothFieldsReported(t *testing.T) {
	_, err := library.NewSchool("id1", "", "BAD", now)
	e, ok := errs.As(err)
	if !ok {
		t.Fatalf("error = %v, want *errs.Error", err)
	}
	fields, _ := e.Details["fields"].(map[string]any)
	if len(fields) != 2 {
		t.Errorf("fields = %v, want entries for name and domain", fields)
	}
}

func TestNewSchoolDefaults(t *testing.T) {
	at := time.Date(2026, 11, 20, 10, 15, 0, 0, time.FixedZone("CET", 3600))
	s, err := library.NewSchool("id1", "Maple High", "maple.example.org", at)
	if err != nil {
		t.Fatalf("NewSchool() error = %v, want nil", err)
	}
	want := library.Settings{DefaultLoanDays: 14, MaxRenewals: 2, RenewalDays: 7, AllowPublicCatalog: true,
		MaxCopiesPerBook: 1000, MaxCopiesPerSchool: 100_000, Timezone: "UTC", HoldPickupDays: 7, ReadingLevelCheck: library.ReadingCheckWarn}
	if s.Settings != want {
		t.Errorf("Settings = %+v, want %+v", s.Settings, want)
	}
	if library.DefaultSettings() != want {
		t.Errorf("DefaultSettings() = %+v, want %+v", library.DefaultSettings(), want)
	}
	if s.ID != "id1" {
		t.Errorf("ID = %q, want %q", s.ID, "id1")
	}
	if !s.CreatedAt.Equal(now) || s.CreatedAt.Location() != time.UTC {
		t.Errorf("CreatedAt = %v, want %v in UTC", s.CreatedAt, now)
	}
}

func TestSchoolErrors(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		wantKind errs.Kind
		wantCode string
	}{
		{name: "NotFound", err: library.ErrSchoolNotFound(), wantKind: errs.NotFound, wantCode: "school_not_found"},
		{name: "DomainTaken", err: library.ErrDomainTaken(), wantKind: errs.Conflict, wantCode: "school_exists"},
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
