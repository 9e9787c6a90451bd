package sqliterepo_test

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/adapters/sqliterepo"
	"github.com/readinglibrary/service/adapters/sqliterepo/sqlitetest"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
)

// The methods below are not in the ports yet (the split of the library
// repository adds them); these tests hold them to the contract they will
// have.

func accountNames(list []user.Account) []string {
	out := make([]string, len(list))
	for i, a := range list {
		out[i] = a.Name
	}
	return out
}

func TestAccountsGetMany(t *testing.T) {
	accounts := sqliterepo.NewAccounts(sqlitetest.NewDB(t))
	var ids []string
	for i := range 4 {
		a := user.Account{ID: uuid.NewString(), Name: fmt.Sprintf("A%d", i), Role: user.RoleStudent, CreatedAt: time.Now(), UpdatedAt: time.Now()}
		if i%2 == 0 {
			a.Email = fmt.Sprintf("a%d@example.org", i)
		}
		if err := accounts.Create(testCtx(t), a); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, a.ID)
	}
	got, err := accounts.GetMany(testCtx(t), []string{ids[3], uuid.NewString(), ids[0], ids[3]})
	if err != nil {
		t.Fatal(err)
	}
	names := accountNames(got)
	sort.Strings(names)
	if want := []string{"A0", "A3"}; !slices.Equal(names, want) {
		t.Fatalf("GetMany(3, missing, 0, 3) = %v, want %v (those that exist, once each)", names, want)
	}
	for _, empty := range [][]string{nil, {}} {
		got, err := accounts.GetMany(testCtx(t), empty)
		if err != nil || got == nil || len(got) != 0 {
			t.Fatalf("GetMany(%#v) = %v, %v; want an empty list", empty, got, err)
		}
	}
}

func TestAccountsListBySchool(t *testing.T) {
	accounts := sqliterepo.NewAccounts(sqlitetest.NewDB(t))
	school, other := uuid.NewString(), uuid.NewString()
	for _, a := range []struct {
		name, school string
		role         user.Role
	}{
		{"Zoe", school, user.RoleStudent},
		{"Amy", school, user.RoleLibrarian},
		{"Bob", school, user.RoleStudent},
		{"Cid", school, user.RoleStaff},
		{"Amy", school, user.RoleStudent},
		{"Dan", other, user.RoleStudent},
		{"Eve", "", user.RoleReader},
	} {
		if err := accounts.Create(testCtx(t), user.Account{ID: uuid.NewString(), Name: a.name, SchoolID: a.school, Role: a.role}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		roles []user.Role
		want  []string
	}{
		{[]user.Role{user.RoleStudent}, []string{"Amy", "Bob", "Zoe"}},
		{[]user.Role{user.RoleLibrarian, user.RoleStaff}, []string{"Amy", "Cid"}},
		{[]user.Role{user.RoleAdmin}, []string{}},
		{nil, []string{"Amy", "Amy", "Bob", "Cid", "Zoe"}},
		{[]user.Role{}, []string{"Amy", "Amy", "Bob", "Cid", "Zoe"}},
	} {
		got, err := accounts.ListBySchool(testCtx(t), school, c.roles)
		if err != nil {
			t.Fatal(err)
		}
		if names := accountNames(got); !slices.Equal(names, c.want) {
			t.Errorf("ListBySchool(%v) = %v, want %v", c.roles, names, c.want)
		}
	}
	// Equal names are ordered by id.
	all, err := accounts.ListBySchool(testCtx(t), school, nil)
	if err != nil {
		t.Fatal(err)
	}
	if all[0].ID > all[1].ID {
		t.Errorf("ListBySchool: the two Amys are not in id order: %s, %s", all[0].ID, all[1].ID)
	}
}

func TestSchoolsSaveSettings(t *testing.T) {
	schools := sqliterepo.NewSchools(sqlitetest.NewDB(t))
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	s := library.School{ID: uuid.NewString(), Name: "Maple", Domain: "maple.example.org", Settings: library.DefaultSettings(), CreatedAt: at}
	other := library.School{ID: uuid.NewString(), Name: "Oak", Domain: "oak.example.org", Settings: library.DefaultSettings(), CreatedAt: at}
	for _, sc := range []library.School{s, other} {
		if err := schools.Create(testCtx(t), sc); err != nil {
			t.Fatal(err)
		}
	}
	for _, settings := range []library.Settings{
		{DefaultLoanDays: 7, MaxRenewals: 0, RenewalDays: 3, AllowPublicCatalog: false, MaxCopiesPerBook: 1, MaxCopiesPerSchool: 1, HoldPickupDays: 1}, // zero values stay zero
		{DefaultLoanDays: 28, MaxRenewals: 5, RenewalDays: 14, AllowPublicCatalog: true, MaxCopiesPerBook: 5000, MaxCopiesPerSchool: 1_000_000, HoldPickupDays: 60},
	} {
		if err := schools.SaveSettings(testCtx(t), s.ID, settings); err != nil {
			t.Fatal(err)
		}
		want := s
		want.Settings = settings
		for _, get := range []func() (library.School, error){
			func() (library.School, error) { return schools.Get(testCtx(t), s.ID) },
			func() (library.School, error) { return schools.GetByDomain(testCtx(t), s.Domain) },
		} {
			got, err := get()
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("school after SaveSettings(%+v) = %+v, %v; want %+v", settings, got, err, want)
			}
		}
	}
	if got, err := schools.Get(testCtx(t), other.ID); err != nil || !reflect.DeepEqual(got, other) {
		t.Fatalf("the other school = %+v, %v; want it untouched", got, err)
	}
	err := schools.SaveSettings(testCtx(t), uuid.NewString(), library.DefaultSettings())
	if errs.KindOf(err) != errs.NotFound || errs.CodeOf(err) != "school_not_found" {
		t.Fatalf("SaveSettings of a missing school = %v, want NotFound school_not_found", err)
	}
}

// TestTimesAreUTCMilliseconds: times are stored as INTEGER unix
// milliseconds and come back in UTC at millisecond precision, before 1970
// and for the zero time too.
func TestTimesAreUTCMilliseconds(t *testing.T) {
	db := sqlitetest.NewDB(t)
	accounts := sqliterepo.NewAccounts(db)
	zone := time.FixedZone("UTC-5", -5*3600)
	for _, at := range []time.Time{
		time.Date(2025, 3, 14, 15, 9, 26, 535897932, zone),
		time.Date(1969, 7, 20, 20, 17, 40, 999999999, time.UTC),
		{},
	} {
		a := user.Account{ID: uuid.NewString(), CreatedAt: at, UpdatedAt: at.Add(time.Millisecond)}
		if err := accounts.Create(testCtx(t), a); err != nil {
			t.Fatal(err)
		}
		var stored int64
		var typ string
		if err := rawDB(t, db.Path()).QueryRow(`SELECT created_at, typeof(created_at) FROM accounts WHERE id = ?`, a.ID).Scan(&stored, &typ); err != nil {
			t.Fatal(err)
		}
		if typ != "integer" || stored != at.UnixMilli() {
			t.Fatalf("stored created_at = %d (%s), want %d (integer)", stored, typ, at.UnixMilli())
		}
		got, err := accounts.Get(testCtx(t), a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if want := at.Truncate(time.Millisecond).UTC(); at.IsZero() != got.CreatedAt.IsZero() || !got.CreatedAt.Equal(want) || got.CreatedAt.Location() != time.UTC {
			t.Fatalf("CreatedAt = %v, want %v in UTC", got.CreatedAt, want)
		}
	}
}
