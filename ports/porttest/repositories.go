// Package porttest holds the contract suites of the ports: one set of
// subtests that every adapter of a port must pass, so the SQLite and the
// MongoDB repositories cannot drift apart. Each check maps to a line of the
// port's documentation in package ports.
//
// Within the module it may import only core packages and other ports packages
// (the layer rules of test/architecture_test.go).
package porttest

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ = register("Repositories", Repositories)

// Repositories checks the ports.Repositories contract. newRepos must return
// empty repositories that no other subtest sees.
func Repositories(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	tests := []struct {
		name string
		run  func(t *testing.T, r ports.Repositories)
	}{
		{"Accounts/CreateGet", testAccountCreateGet},
		{"Accounts/GetMissing", testAccountGetMissing},
		{"Accounts/DuplicateEmail", testAccountDuplicateEmail},
		{"Accounts/DuplicateID", testAccountDuplicateID},
		{"Accounts/Update", testAccountUpdate},
		{"Accounts/UpdateMissing", testAccountUpdateMissing},
		{"Accounts/UpdateEmailTaken", testAccountUpdateEmailTaken},
		{"Accounts/Count", testAccountCount},
		{"Accounts/Delete", testAccountDelete},
		{"Accounts/ListDeleted", testAccountListDeleted},
		{"Accounts/WithoutEmail", testAccountWithoutEmail},
		{"Accounts/ListBySchool", testAccountListBySchool},
		{"Accounts/GetMany", testAccountGetMany},
		{"Accounts/Guardians", testAccountGuardians},
		{"Accounts/GuardiansGoWithDelete", testAccountGuardiansGoWithDelete},
		{"Accounts/Language", testAccountLanguage},
		{"Schools/CreateGet", testSchoolCreateGet},
		{"Schools/GetMissing", testSchoolGetMissing},
		{"Schools/DuplicateDomain", testSchoolDuplicateDomain},
		{"Schools/DuplicateID", testSchoolDuplicateID},
		{"Schools/ListOrdered", testSchoolListOrdered},
		{"Schools/SaveSettings", testLibSaveSettings},
		{"Schools/SaveCalendar", testSchoolSaveCalendar},
		{"Schools/SaveLoanRules", testSchoolSaveLoanRules},
		{"Schools/Language", testSchoolLanguage},
		{"RefreshTokens/CreateGet", testTokenCreateGet},
		{"RefreshTokens/CreateDuplicate", testTokenCreateDuplicate},
		{"RefreshTokens/GetMissing", testTokenGetMissing},
		{"RefreshTokens/ClaimRotationOnce", testTokenClaimRotationOnce},
		{"RefreshTokens/ClaimRotationPerHash", testTokenClaimRotationPerHash},
		{"RefreshTokens/RotatedAt", testTokenRotatedAt},
		{"RefreshTokens/RevokeFamily", testTokenRevokeFamily},
		{"RefreshTokens/DeleteByAccount", testTokenDeleteByAccount},
		{"RefreshTokens/RevokeAccountFamilies", testTokenRevokeAccountFamilies},
		{"SigningKeys/ListEmpty", testKeyListEmpty},
		{"SigningKeys/EnsureActiveRace", testKeyEnsureActiveRace},
		{"SigningKeys/EnsureActiveKeepsFirst", testKeyEnsureActiveKeepsFirst},
		{"SigningKeys/NoAliasing", testKeyNoAliasing},
		{"SigningKeys/ReplacePrivateKey", testKeyReplacePrivateKey},
		{"Expiry/ClaimOncePerSlot", testExpiryClaimOncePerSlot},
		{"Expiry/DeleteExpired", testExpiryDeleteExpired},
		{"Expiry/SweepsOldClaims", testExpirySweepsOldClaims},
		{"Expiry/SweepsMailTokens", testExpirySweepsMailTokens},
		{"Health/Ping", testPing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, newRepos(t)) })
	}
}

// ctx bounds every call, as the service's handlers do; a hung adapter fails
// the test instead of stalling the run.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// base is a time with sub-millisecond digits in a non-UTC zone: adapters may
// drop precision below a millisecond and the zone, nothing more.
var base = time.Date(2025, 3, 14, 15, 9, 26, 535897932, time.FixedZone("UTC+2", 2*3600))

func sameTime(a, b time.Time) bool {
	return a.Truncate(time.Millisecond).Equal(b.Truncate(time.Millisecond))
}

func wantErr(t *testing.T, call string, err error, kind errs.Kind, code string) {
	t.Helper()
	if got := errs.KindOf(err); got != kind {
		t.Fatalf("%s: kind = %q (err %v), want %q", call, got, err, kind)
	}
	if got := errs.CodeOf(err); got != code {
		t.Fatalf("%s: code = %q (err %v), want %q", call, got, err, code)
	}
}

func must(t *testing.T, call string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", call, err)
	}
}

// --- schools ---

func newSchool(name, domain string) library.School {
	return library.School{
		ID:     uuid.NewString(),
		Name:   name,
		Domain: domain,
		Settings: library.Settings{DefaultLoanDays: 21, MaxRenewals: 3, RenewalDays: 10, AllowPublicCatalog: false,
			MaxCopiesPerBook: 40, MaxCopiesPerSchool: 900, Timezone: "Pacific/Auckland", HoldPickupDays: 5, ReadingLevelCheck: library.ReadingCheckOff,
			CatalogEndpoint: library.DefaultCatalogEndpoint},
		CreatedAt: base,
	}
}

func checkSchool(t *testing.T, call string, got, want library.School) {
	t.Helper()
	if !sameTime(got.CreatedAt, want.CreatedAt) {
		t.Errorf("%s: CreatedAt = %v, want %v (at ms precision)", call, got.CreatedAt, want.CreatedAt)
	}
	got.CreatedAt = want.CreatedAt
	if !reflect.DeepEqual(emptyAsNil(got.Calendar), emptyAsNil(want.Calendar)) {
		t.Errorf("%s: Calendar = %+v, want %+v", call, got.Calendar, want.Calendar)
	}
	got.Calendar, want.Calendar = library.Calendar{}, library.Calendar{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

// emptyAsNil returns c with its empty lists nil: a store may read an empty
// list either way.
func emptyAsNil(c library.Calendar) library.Calendar {
	if len(c.ClosedWeekdays) == 0 {
		c.ClosedWeekdays = nil
	}
	if len(c.Closures) == 0 {
		c.Closures = nil
	}
	if len(c.TermEnds) == 0 {
		c.TermEnds = nil
	}
	return c
}

func testSchoolCreateGet(t *testing.T, r ports.Repositories) {
	s := newSchool("Maple High", "maple.example.org")
	must(t, "Create", r.Schools.Create(ctx(t), s))
	got, err := r.Schools.Get(ctx(t), s.ID)
	must(t, "Get", err)
	checkSchool(t, "Get", got, s)
	got, err = r.Schools.GetByDomain(ctx(t), s.Domain)
	must(t, "GetByDomain", err)
	checkSchool(t, "GetByDomain", got, s)
}

func testSchoolGetMissing(t *testing.T, r ports.Repositories) {
	must(t, "Create", r.Schools.Create(ctx(t), newSchool("Maple High", "maple.example.org")))
	_, err := r.Schools.Get(ctx(t), uuid.NewString())
	wantErr(t, "Get", err, errs.NotFound, "school_not_found")
	_, err = r.Schools.GetByDomain(ctx(t), "oak.example.org")
	wantErr(t, "GetByDomain", err, errs.NotFound, "school_not_found")
}

func testSchoolDuplicateDomain(t *testing.T, r ports.Repositories) {
	s := newSchool("Maple High", "maple.example.org")
	must(t, "Create", r.Schools.Create(ctx(t), s))
	dup := newSchool("Other", s.Domain)
	wantErr(t, "Create same domain", r.Schools.Create(ctx(t), dup), errs.Conflict, "school_exists")
	got, err := r.Schools.GetByDomain(ctx(t), s.Domain)
	must(t, "GetByDomain", err)
	checkSchool(t, "GetByDomain after conflict", got, s)
	_, err = r.Schools.Get(ctx(t), dup.ID)
	wantErr(t, "Get rejected id", err, errs.NotFound, "school_not_found")
}

func testSchoolDuplicateID(t *testing.T, r ports.Repositories) {
	s := newSchool("Maple High", "maple.example.org")
	must(t, "Create", r.Schools.Create(ctx(t), s))
	dup := newSchool("Other", "other.example.org")
	dup.ID = s.ID
	wantErr(t, "Create same id", r.Schools.Create(ctx(t), dup), errs.Conflict, "school_exists")
	got, err := r.Schools.Get(ctx(t), s.ID)
	must(t, "Get", err)
	checkSchool(t, "Get after conflict", got, s)
}

func testSchoolListOrdered(t *testing.T, r ports.Repositories) {
	list, err := r.Schools.List(ctx(t))
	must(t, "List empty", err)
	if len(list) != 0 {
		t.Fatalf("List on empty = %d schools, want 0", len(list))
	}
	twinA, twinB := newSchool("Birch", "birch-a.example.org"), newSchool("Birch", "birch-b.example.org")
	twinA.ID, twinB.ID = "00000000-0000-4000-8000-00000000000a", "00000000-0000-4000-8000-00000000000b"
	in := []library.School{
		newSchool("Oak", "oak.example.org"),
		twinB,
		newSchool("Ash", "ash.example.org"),
		twinA,
		newSchool("Maple", "maple.example.org"),
	}
	for _, s := range in {
		must(t, "Create "+s.Domain, r.Schools.Create(ctx(t), s))
	}
	list, err = r.Schools.List(ctx(t))
	must(t, "List", err)
	want := []string{"ash.example.org", "birch-a.example.org", "birch-b.example.org", "maple.example.org", "oak.example.org"}
	var got []string
	for _, s := range list {
		got = append(got, s.Domain)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("List order = %v, want %v (by name, then id)", got, want)
	}
	for _, s := range in {
		if s.Domain == list[0].Domain {
			checkSchool(t, "List[0]", list[0], s)
		}
	}
}

// --- health ---

func testPing(t *testing.T, r ports.Repositories) {
	if err := r.Health.Ping(ctx(t)); err != nil {
		t.Fatalf("Ping on a healthy backend = %v, want nil", err)
	}
}
