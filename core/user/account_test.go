package user_test

import (
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/user"
)

// validParams returns parameters that NewAccount accepts; tests change one
// field at a time.
func validParams() user.NewAccountParams {
	return user.NewAccountParams{
		ID:           "0b6c9a1e-6f1d-4c39-9d55-2f0f6f1c1e11",
		Email:        "ada@example.org",
		Name:         "Ada Lovelace",
		PasswordHash: "hash",
		Role:         user.RoleReader,
		Now:          time.Date(2026, 11, 20, 9, 15, 0, 0, time.UTC),
	}
}

// fieldsOf returns details.fields of an Invalid error, failing the test for
// anything else.
func fieldsOf(tb testing.TB, err error) map[string]any {
	tb.Helper()
	e, ok := errs.As(err)
	if !ok {
		tb.Fatalf("err = %v (%T), want *errs.Error", err, err)
	}
	if e.Kind != errs.Invalid {
		tb.Fatalf("Kind = %q, want %q", e.Kind, errs.Invalid)
	}
	fields, ok := e.Details["fields"].(map[string]any)
	if !ok {
		tb.Fatalf("Details[\"fields\"] = %T, want map[string]any", e.Details["fields"])
	}
	return fields
}

func TestNewAccountFieldErrors(t *testing.T) {
	tests := []struct {
		name   string
		modify func(p *user.NewAccountParams)
		field  string
	}{
		{name: "EmptyEmail", modify: func(p *user.NewAccountParams) { p.Email = "" }, field: "email"},
		{name: "BlankEmail", modify: func(p *user.NewAccountParams) { p.Email = "   " }, field: "email"},
		{name: "NoAt", modify: func(p *user.NewAccountParams) { p.Email = "ada.example.org" }, field: "email"},
		{name: "DisplayNameForm", modify: func(p *user.NewAccountParams) { p.Email = "A <a@b.c>" }, field: "email"},
		{name: "QuotedDisplayName", modify: func(p *user.NewAccountParams) { p.Email = `"Ada" <ada@example.org>` }, field: "email"},
		{name: "TwoAddresses", modify: func(p *user.NewAccountParams) { p.Email = "a@b.c, d@e.f" }, field: "email"},
		{name: "TooLongEmail", modify: func(p *user.NewAccountParams) { p.Email = strings.Repeat("a", 250) + "@b.co" }, field: "email"},
		{name: "EmptyName", modify: func(p *user.NewAccountParams) { p.Name = "" }, field: "name"},
		{name: "BlankName", modify: func(p *user.NewAccountParams) { p.Name = "   " }, field: "name"},
		{name: "Name101Chars", modify: func(p *user.NewAccountParams) { p.Name = strings.Repeat("x", 101) }, field: "name"},
		{name: "Name101Runes", modify: func(p *user.NewAccountParams) { p.Name = strings.Repeat("é", 101) }, field: "name"},
		{name: "UnknownRole", modify: func(p *user.NewAccountParams) { p.Role = "superuser" }, field: "role"},
		{name: "EmptyRole", modify: func(p *user.NewAccountParams) { p.Role = "" }, field: "role"},
		{name: "StudentWithoutSchool", modify: func(p *user.NewAccountParams) { p.Role = user.RoleStudent }, field: "school_id"},
		{name: "LibrarianWithoutSchool", modify: func(p *user.NewAccountParams) { p.Role = user.RoleLibrarian }, field: "school_id"},
		{name: "StaffWithoutSchool", modify: func(p *user.NewAccountParams) { p.Role = user.RoleStaff }, field: "school_id"},
		{name: "ReaderWithSchool", modify: func(p *user.NewAccountParams) { p.SchoolID = "s1" }, field: "school_id"},
		{name: "AdminWithSchool", modify: func(p *user.NewAccountParams) { p.Role = user.RoleAdmin; p.SchoolID = "s1" }, field: "school_id"},
		{name: "BadTier", modify: func(p *user.NewAccountParams) { p.Tier = "gold" }, field: "tier"},
		{name: "UppercaseTier", modify: func(p *user.NewAccountParams) { p.Tier = "Premium" }, field: "tier"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := validParams()
			tt.modify(&p)
			acct, err := user.NewAccount(p)
			if err == nil {
				t.Fatalf("NewAccount() = %+v, nil; want an Invalid error for %q", acct, tt.field)
			}
			fields := fieldsOf(t, err)
			if msg, ok := fields[tt.field].(string); !ok || msg == "" {
				t.Errorf("fields[%q] = %v, want a message (fields: %v)", tt.field, fields[tt.field], fields)
			}
			if len(fields) != 1 {
				t.Errorf("got %d field errors %v, want only %q", len(fields), fields, tt.field)
			}
		})
	}
}

func TestNewAccountReportsEveryBadField(t *testing.T) {
	_, err := user.NewAccount(user.NewAccountParams{Email: "nope", Name: "", Role: "x", Tier: "y"})
	fields := fieldsOf(t, err)
	for _, f := range []string{"email", "name", "role", "tier"} {
		if _, ok := fields[f]; !ok {
			t.Errorf("fields[%q] missing, got %v", f, fields)
		}
	}
}

func TestNewAccountAccepts(t *testing.T) {
	tests := []struct {
		name   string
		modify func(p *user.NewAccountParams)
	}{
		{name: "Reader", modify: func(p *user.NewAccountParams) {}},
		{name: "AdminNoSchool", modify: func(p *user.NewAccountParams) { p.Role = user.RoleAdmin }},
		{name: "StudentWithSchool", modify: func(p *user.NewAccountParams) { p.Role = user.RoleStudent; p.SchoolID = "s1" }},
		{name: "LibrarianWithSchool", modify: func(p *user.NewAccountParams) { p.Role = user.RoleLibrarian; p.SchoolID = "s1" }},
		{name: "StaffWithSchool", modify: func(p *user.NewAccountParams) { p.Role = user.RoleStaff; p.SchoolID = "s1" }},
		{name: "Premium", modify: func(p *user.NewAccountParams) { p.Tier = user.TierPremium }},
		{name: "Name100Chars", modify: func(p *user.NewAccountParams) { p.Name = strings.Repeat("x", 100) }},
		{name: "Name100MultiByteRunes", modify: func(p *user.NewAccountParams) { p.Name = strings.Repeat("é", 100) }},
		{name: "Name1Char", modify: func(p *user.NewAccountParams) { p.Name = "A" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := validParams()
			tt.modify(&p)
			if _, err := user.NewAccount(p); err != nil {
				t.Errorf("NewAccount() error = %v, want nil", err)
			}
		})
	}
}

func TestNewAccountNormalisesAndDefaults(t *testing.T) {
	p := validParams()
	p.Email = "  Ada.Lovelace@Example.ORG "
	p.Name = "  Ada Lovelace  "
	p.Now = time.Date(2026, 11, 20, 10, 15, 0, 0, time.FixedZone("CET", 3600))
	acct, err := user.NewAccount(p)
	if err != nil {
		t.Fatalf("NewAccount() error = %v, want nil", err)
	}
	if got, want := acct.Email, "ada.lovelace@example.org"; got != want {
		t.Errorf("Email = %q, want %q", got, want)
	}
	if got, want := acct.Name, "Ada Lovelace"; got != want {
		t.Errorf("Name = %q, want %q", got, want)
	}
	if got, want := acct.Tier, user.TierStandard; got != want {
		t.Errorf("Tier = %q, want %q", got, want)
	}
	if got, want := acct.ReadingLevel, user.LevelBeginner; got != want {
		t.Errorf("ReadingLevel = %q, want %q", got, want)
	}
	wantPrefs := user.Preferences{FontSize: 16, Theme: "light", Notifications: true, Timezone: "UTC"}
	if acct.Preferences != wantPrefs {
		t.Errorf("Preferences = %+v, want %+v", acct.Preferences, wantPrefs)
	}
	if got, want := acct.CreatedAt, time.Date(2026, 11, 20, 9, 15, 0, 0, time.UTC); !got.Equal(want) || got.Location() != time.UTC {
		t.Errorf("CreatedAt = %v, want %v in UTC", got, want)
	}
	if !acct.UpdatedAt.Equal(acct.CreatedAt) {
		t.Errorf("UpdatedAt = %v, want %v", acct.UpdatedAt, acct.CreatedAt)
	}
	if acct.ID != p.ID || acct.PasswordHash != p.PasswordHash || acct.Role != p.Role {
		t.Errorf("ID/PasswordHash/Role = %q/%q/%q, want %q/%q/%q", acct.ID, acct.PasswordHash, acct.Role, p.ID, p.PasswordHash, p.Role)
	}
	if acct.Suspended || acct.Deleted {
		t.Errorf("Suspended/Deleted = %v/%v, want false/false", acct.Suspended, acct.Deleted)
	}
}

func TestNormalizeEmail(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "Lowercases", in: "Ada@Example.ORG", want: "ada@example.org"},
		{name: "Trims", in: "\t ada@example.org \n", want: "ada@example.org"},
		{name: "AlreadyNormal", in: "ada@example.org", want: "ada@example.org"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := user.NormalizeEmail(tt.in); got != tt.want {
				t.Errorf("NormalizeEmail(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestParsePublicID(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		wantID string
		wantOK bool
	}{
		{name: "OK", in: "usr_0b6c9a1e-6f1d-4c39-9d55-2f0f6f1c1e11", wantID: "0b6c9a1e-6f1d-4c39-9d55-2f0f6f1c1e11", wantOK: true},
		{name: "BareUUID", in: "0b6c9a1e-6f1d-4c39-9d55-2f0f6f1c1e11", wantID: "", wantOK: false},
		{name: "OtherPrefix", in: "bk_123", wantID: "", wantOK: false},
		{name: "UppercasePrefix", in: "USR_123", wantID: "", wantOK: false},
		{name: "Empty", in: "", wantID: "", wantOK: false},
		{name: "PrefixOnlyStripsOnce", in: "usr_usr_1", wantID: "usr_1", wantOK: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, ok := user.ParsePublicID(tt.in)
			if id != tt.wantID || ok != tt.wantOK {
				t.Errorf("ParsePublicID(%q) = %q, %v; want %q, %v", tt.in, id, ok, tt.wantID, tt.wantOK)
			}
		})
	}
}

func TestPublicIDRoundTrip(t *testing.T) {
	a := user.Account{ID: "0b6c9a1e-6f1d-4c39-9d55-2f0f6f1c1e11"}
	if got, want := a.PublicID(), "usr_0b6c9a1e-6f1d-4c39-9d55-2f0f6f1c1e11"; got != want {
		t.Errorf("PublicID() = %q, want %q", got, want)
	}
	id, ok := user.ParsePublicID(a.PublicID())
	if !ok || id != a.ID {
		t.Errorf("ParsePublicID(PublicID()) = %q, %v; want %q, true", id, ok, a.ID)
	}
}

func TestRoleRules(t *testing.T) {
	tests := []struct {
		name            string
		role            user.Role
		wantValid       bool
		wantSchoolBound bool
	}{
		{name: "Admin", role: user.RoleAdmin, wantValid: true, wantSchoolBound: false},
		{name: "Staff", role: user.RoleStaff, wantValid: true, wantSchoolBound: true},
		{name: "Librarian", role: user.RoleLibrarian, wantValid: true, wantSchoolBound: true},
		{name: "Student", role: user.RoleStudent, wantValid: true, wantSchoolBound: true},
		{name: "Reader", role: user.RoleReader, wantValid: true, wantSchoolBound: false},
		{name: "Teacher", role: user.RoleTeacher, wantValid: true, wantSchoolBound: true},
		{name: "Unknown", role: "principal", wantValid: false, wantSchoolBound: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.role.Valid(); got != tt.wantValid {
				t.Errorf("Valid() = %v, want %v", got, tt.wantValid)
			}
			if got := tt.role.SchoolBound(); got != tt.wantSchoolBound {
				t.Errorf("SchoolBound() = %v, want %v", got, tt.wantSchoolBound)
			}
		})
	}
}

func TestValidReadingLevel(t *testing.T) {
	tests := []struct {
		name  string
		level string
		want  bool
	}{
		{name: "Beginner", level: "beginner", want: true},
		{name: "Intermediate", level: "intermediate", want: true},
		{name: "Advanced", level: "advanced", want: true},
		{name: "Capitalised", level: "Beginner", want: false},
		{name: "Empty", level: "", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := user.ValidReadingLevel(tt.level); got != tt.want {
				t.Errorf("ValidReadingLevel(%q) = %v, want %v", tt.level, got, tt.want)
			}
		})
	}
}

func TestErrorConstructors(t *testing.T) {
	if got, want := errs.CodeOf(user.ErrNotFound("x")), "account_not_found"; got != want {
		t.Errorf("CodeOf(ErrNotFound) = %q, want %q", got, want)
	}
	if got, want := errs.KindOf(user.ErrNotFound("x")), errs.NotFound; got != want {
		t.Errorf("KindOf(ErrNotFound) = %q, want %q", got, want)
	}
	if got, want := errs.CodeOf(user.ErrEmailTaken()), "account_exists"; got != want {
		t.Errorf("CodeOf(ErrEmailTaken) = %q, want %q", got, want)
	}
	if got, want := errs.KindOf(user.ErrEmailTaken()), errs.Conflict; got != want {
		t.Errorf("KindOf(ErrEmailTaken) = %q, want %q", got, want)
	}
}
