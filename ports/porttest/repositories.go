// Package porttest holds the contract suites of the ports: one set of
// subtests that every adapter of a port must pass, so the SQLite and the
// MongoDB repositories cannot drift apart. Each check maps to a line of the
// port's documentation in package ports.
//
// Within the module it may import only core packages and other ports packages
// (the layer rules of test/architecture_test.go).
package porttest

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

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
		{"Schools/CreateGet", testSchoolCreateGet},
		{"Schools/GetMissing", testSchoolGetMissing},
		{"Schools/DuplicateDomain", testSchoolDuplicateDomain},
		{"Schools/DuplicateID", testSchoolDuplicateID},
		{"Schools/ListOrdered", testSchoolListOrdered},
		{"Schools/SaveSettings", testLibSaveSettings},
		{"Schools/SaveCalendar", testSchoolSaveCalendar},
		{"Schools/SaveLoanRules", testSchoolSaveLoanRules},
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

// --- accounts ---

func newAccount(email string) user.Account {
	return user.Account{
		ID:           uuid.NewString(),
		Email:        email,
		Name:         "Ada Lovelace",
		PasswordHash: "$argon2id$v=19$m=65536,t=3,p=2$c2FsdA$aGFzaA",
		Role:         user.RoleLibrarian,
		SchoolID:     uuid.NewString(),
		Tier:         user.TierPremium,
		Suspended:    true,
		Deleted:      true,
		Avatar:       "https://cdn.example.org/a.png",
		ReadingLevel: user.LevelAdvanced,
		Preferences:  user.Preferences{FontSize: 22, Theme: "sepia", Notifications: false, Timezone: "Europe/Paris"},
		// Stored whatever the role: the store does not apply the rules.
		StudentNumber: "2024-017",
		Grade:         "Year 7",
		Homeroom:      "7b Maple",
		CreatedAt:     base,
		UpdatedAt:     base.Add(90 * time.Minute),
	}
}

func checkAccount(t *testing.T, call string, got, want user.Account) {
	t.Helper()
	if !sameTime(got.CreatedAt, want.CreatedAt) || !sameTime(got.UpdatedAt, want.UpdatedAt) {
		t.Errorf("%s: times = %v, %v, want %v, %v (at ms precision)", call, got.CreatedAt, got.UpdatedAt, want.CreatedAt, want.UpdatedAt)
	}
	got.CreatedAt, got.UpdatedAt = want.CreatedAt, want.UpdatedAt
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func testAccountCreateGet(t *testing.T, r ports.Repositories) {
	a := newAccount("ada@example.org")
	must(t, "Create", r.Accounts.Create(ctx(t), a))

	got, err := r.Accounts.Get(ctx(t), a.ID)
	must(t, "Get", err)
	checkAccount(t, "Get", got, a)

	got, err = r.Accounts.GetByEmail(ctx(t), a.Email)
	must(t, "GetByEmail", err)
	checkAccount(t, "GetByEmail", got, a)

	// Zero values must come back as zero values, not as defaults.
	z := user.Account{ID: uuid.NewString(), Email: "zero@example.org"}
	must(t, "Create zero", r.Accounts.Create(ctx(t), z))
	got, err = r.Accounts.Get(ctx(t), z.ID)
	must(t, "Get zero", err)
	checkAccount(t, "Get zero", got, z)
}

func testAccountGetMissing(t *testing.T, r ports.Repositories) {
	must(t, "Create", r.Accounts.Create(ctx(t), newAccount("ada@example.org")))
	_, err := r.Accounts.Get(ctx(t), uuid.NewString())
	wantErr(t, "Get", err, errs.NotFound, "account_not_found")
	_, err = r.Accounts.GetByEmail(ctx(t), "nobody@example.org")
	wantErr(t, "GetByEmail", err, errs.NotFound, "account_not_found")
}

func testAccountDuplicateEmail(t *testing.T, r ports.Repositories) {
	a := newAccount("ada@example.org")
	must(t, "Create", r.Accounts.Create(ctx(t), a))
	b := newAccount(a.Email)
	b.Name = "Impostor"
	wantErr(t, "Create same email", r.Accounts.Create(ctx(t), b), errs.Conflict, "account_exists")

	got, err := r.Accounts.GetByEmail(ctx(t), a.Email)
	must(t, "GetByEmail", err)
	checkAccount(t, "GetByEmail after conflict", got, a)
	_, err = r.Accounts.Get(ctx(t), b.ID)
	wantErr(t, "Get rejected id", err, errs.NotFound, "account_not_found")
}

func testAccountDuplicateID(t *testing.T, r ports.Repositories) {
	a := newAccount("ada@example.org")
	must(t, "Create", r.Accounts.Create(ctx(t), a))
	b := newAccount("other@example.org")
	b.ID = a.ID
	b.Name = "Impostor"
	wantErr(t, "Create same id", r.Accounts.Create(ctx(t), b), errs.Conflict, "account_exists")

	got, err := r.Accounts.Get(ctx(t), a.ID)
	must(t, "Get", err)
	checkAccount(t, "Get after conflict", got, a)
	_, err = r.Accounts.GetByEmail(ctx(t), b.Email)
	wantErr(t, "GetByEmail rejected email", err, errs.NotFound, "account_not_found")
}

func testAccountUpdate(t *testing.T, r ports.Repositories) {
	a := newAccount("ada@example.org")
	must(t, "Create", r.Accounts.Create(ctx(t), a))

	u := a
	u.Email = "countess@example.org"
	u.Name = "Augusta Ada King"
	u.PasswordHash = ""
	u.Role = user.RoleReader
	u.SchoolID = ""
	u.Tier = user.TierStandard
	u.Suspended = false
	u.Deleted = false
	u.Avatar = ""
	u.ReadingLevel = user.LevelBeginner
	u.Preferences = user.Preferences{FontSize: 12, Theme: "dark", Notifications: true, Timezone: "UTC"}
	u.StudentNumber = ""
	u.UpdatedAt = base.Add(48 * time.Hour)
	must(t, "Update", r.Accounts.Update(ctx(t), u))

	got, err := r.Accounts.Get(ctx(t), a.ID)
	must(t, "Get", err)
	checkAccount(t, "Get after Update", got, u)
	got, err = r.Accounts.GetByEmail(ctx(t), u.Email)
	must(t, "GetByEmail new", err)
	checkAccount(t, "GetByEmail new", got, u)
	_, err = r.Accounts.GetByEmail(ctx(t), a.Email)
	wantErr(t, "GetByEmail old", err, errs.NotFound, "account_not_found")

	// The old email is free again.
	must(t, "Create with the old email", r.Accounts.Create(ctx(t), newAccount(a.Email)))
}

func testAccountUpdateMissing(t *testing.T, r ports.Repositories) {
	a := newAccount("ada@example.org")
	wantErr(t, "Update", r.Accounts.Update(ctx(t), a), errs.NotFound, "account_not_found")
	n, err := r.Accounts.Count(ctx(t))
	must(t, "Count", err)
	if n != 0 {
		t.Fatalf("Count after Update of a missing account = %d, want 0", n)
	}
	_, err = r.Accounts.Get(ctx(t), a.ID)
	wantErr(t, "Get", err, errs.NotFound, "account_not_found")
}

func testAccountUpdateEmailTaken(t *testing.T, r ports.Repositories) {
	a := newAccount("ada@example.org")
	b := newAccount("bob@example.org")
	must(t, "Create a", r.Accounts.Create(ctx(t), a))
	must(t, "Create b", r.Accounts.Create(ctx(t), b))

	u := b
	u.Email = a.Email
	u.Name = "Changed"
	wantErr(t, "Update to a's email", r.Accounts.Update(ctx(t), u), errs.Conflict, "account_exists")

	got, err := r.Accounts.Get(ctx(t), b.ID)
	must(t, "Get b", err)
	checkAccount(t, "Get b after conflict", got, b)
	got, err = r.Accounts.GetByEmail(ctx(t), a.Email)
	must(t, "GetByEmail a", err)
	checkAccount(t, "GetByEmail a after conflict", got, a)
}

func testAccountCount(t *testing.T, r ports.Repositories) {
	n, err := r.Accounts.Count(ctx(t))
	must(t, "Count", err)
	if n != 0 {
		t.Fatalf("Count on empty = %d, want 0", n)
	}
	for i := range 3 {
		must(t, "Create", r.Accounts.Create(ctx(t), newAccount(fmt.Sprintf("u%d@example.org", i))))
	}
	_ = r.Accounts.Create(ctx(t), newAccount("u0@example.org")) // a refused duplicate does not count
	n, err = r.Accounts.Count(ctx(t))
	must(t, "Count", err)
	if n != 3 {
		t.Fatalf("Count = %d, want 3", n)
	}
}

func testAccountDelete(t *testing.T, r ports.Repositories) {
	a, b := newAccount("ada@example.org"), newAccount("bob@example.org")
	must(t, "Create a", r.Accounts.Create(ctx(t), a))
	must(t, "Create b", r.Accounts.Create(ctx(t), b))

	must(t, "Delete", r.Accounts.Delete(ctx(t), a.ID))
	_, err := r.Accounts.Get(ctx(t), a.ID)
	wantErr(t, "Get deleted", err, errs.NotFound, "account_not_found")
	_, err = r.Accounts.GetByEmail(ctx(t), a.Email)
	wantErr(t, "GetByEmail deleted", err, errs.NotFound, "account_not_found")
	wantErr(t, "Update deleted", r.Accounts.Update(ctx(t), a), errs.NotFound, "account_not_found")
	got, err := r.Accounts.Get(ctx(t), b.ID)
	must(t, "Get other account", err)
	checkAccount(t, "Get other account", got, b)
	n, err := r.Accounts.Count(ctx(t))
	must(t, "Count", err)
	if n != 1 {
		t.Fatalf("Count after Delete = %d, want 1", n)
	}

	// The email is free for a new account, and deleting the old id again
	// neither fails nor takes the email from the new one.
	c := newAccount(a.Email)
	must(t, "Create with the deleted account's email", r.Accounts.Create(ctx(t), c))
	must(t, "Delete again", r.Accounts.Delete(ctx(t), a.ID))
	got, err = r.Accounts.GetByEmail(ctx(t), a.Email)
	must(t, "GetByEmail new account", err)
	checkAccount(t, "GetByEmail new account after Delete again", got, c)
	wantErr(t, "Create another with the reused email", r.Accounts.Create(ctx(t), newAccount(a.Email)), errs.Conflict, "account_exists")
	// The deleted id is free too.
	reborn := newAccount("reborn@example.org")
	reborn.ID = a.ID
	must(t, "Create with the deleted account's id", r.Accounts.Create(ctx(t), reborn))

	must(t, "Delete a never stored account", r.Accounts.Delete(ctx(t), uuid.NewString()))
	n, err = r.Accounts.Count(ctx(t))
	must(t, "Count", err)
	if n != 3 {
		t.Fatalf("Count at the end = %d, want 3", n)
	}
}

func testAccountListDeleted(t *testing.T, r ports.Repositories) {
	list, err := r.Accounts.ListDeleted(ctx(t))
	must(t, "ListDeleted on empty", err)
	if len(list) != 0 {
		t.Fatalf("ListDeleted on empty = %d accounts, want 0", len(list))
	}
	var live, deleted []user.Account
	for i := range 5 {
		a := newAccount(fmt.Sprintf("u%d@example.org", i))
		a.Deleted = i%2 == 0 // u0, u2, u4
		a.Suspended = i == 1
		must(t, "Create", r.Accounts.Create(ctx(t), a))
		if a.Deleted {
			deleted = append(deleted, a)
		} else {
			live = append(live, a)
		}
	}
	list, err = r.Accounts.ListDeleted(ctx(t))
	must(t, "ListDeleted", err)
	checkAccountSet(t, "ListDeleted", list, deleted)

	// Marking and unmarking through Update shows at once.
	marked := live[0]
	marked.Deleted = true
	must(t, "Update mark deleted", r.Accounts.Update(ctx(t), marked))
	unmarked := deleted[0]
	unmarked.Deleted = false
	must(t, "Update unmark deleted", r.Accounts.Update(ctx(t), unmarked))
	// A removed account is no longer listed.
	must(t, "Delete", r.Accounts.Delete(ctx(t), deleted[1].ID))

	list, err = r.Accounts.ListDeleted(ctx(t))
	must(t, "ListDeleted after changes", err)
	checkAccountSet(t, "ListDeleted after changes", list, []user.Account{marked, deleted[2]})
}

// newStudent returns a student of school without an email, as young
// students are.
func newStudent(schoolID, name, number string) user.Account {
	a := newAccount("")
	a.Name, a.Role, a.SchoolID, a.StudentNumber = name, user.RoleStudent, schoolID, number
	a.Suspended, a.Deleted, a.PasswordHash = false, false, ""
	return a
}

func testAccountWithoutEmail(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	a, b := newStudent(school, "Pippi", "2024-017"), newStudent(school, "Annika", "2024-018")
	must(t, "Create a without email", r.Accounts.Create(ctx(t), a))
	must(t, "Create b without email", r.Accounts.Create(ctx(t), b))
	must(t, "Create in another school without email", r.Accounts.Create(ctx(t), newStudent(uuid.NewString(), "Tommy", "1")))
	got, err := r.Accounts.Get(ctx(t), a.ID)
	must(t, "Get a", err)
	checkAccount(t, "Get a (student number round trip)", got, a)
	_, err = r.Accounts.GetByEmail(ctx(t), "")
	wantErr(t, "GetByEmail(\"\")", err, errs.NotFound, "account_not_found")

	// Same id is still a clash, with or without an email.
	dup := newStudent(school, "Impostor", "")
	dup.ID = a.ID
	wantErr(t, "Create same id without email", r.Accounts.Create(ctx(t), dup), errs.Conflict, "account_exists")

	// Updates keep the account without an email, then give it one.
	u := a
	u.Name = "Pippilotta"
	must(t, "Update without email", r.Accounts.Update(ctx(t), u))
	u.Email = "pippi@example.org"
	must(t, "Update to an email", r.Accounts.Update(ctx(t), u))
	got, err = r.Accounts.GetByEmail(ctx(t), u.Email)
	must(t, "GetByEmail", err)
	checkAccount(t, "GetByEmail after giving an email", got, u)
	wb := b
	wb.Email = u.Email
	wantErr(t, "Update b to a's email", r.Accounts.Update(ctx(t), wb), errs.Conflict, "account_exists")
	// And without it again: it does not clash with b.
	u.Email = ""
	must(t, "Update back to no email", r.Accounts.Update(ctx(t), u))
	_, err = r.Accounts.GetByEmail(ctx(t), "pippi@example.org")
	wantErr(t, "GetByEmail of the dropped email", err, errs.NotFound, "account_not_found")
	_, err = r.Accounts.GetByEmail(ctx(t), "")
	wantErr(t, "GetByEmail(\"\") after updates", err, errs.NotFound, "account_not_found")
	must(t, "Create with the freed email", r.Accounts.Create(ctx(t), newAccount("pippi@example.org")))

	must(t, "Delete b", r.Accounts.Delete(ctx(t), b.ID))
	must(t, "Create another without email", r.Accounts.Create(ctx(t), newStudent(school, "Emil", "")))
	n, err := r.Accounts.Count(ctx(t))
	must(t, "Count", err)
	if n != 4 {
		t.Fatalf("Count = %d, want 4", n)
	}
}

func testAccountListBySchool(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	list, err := r.Accounts.ListBySchool(ctx(t), schoolA, nil)
	must(t, "ListBySchool on empty", err)
	if len(list) != 0 {
		t.Fatalf("ListBySchool on empty = %d accounts, want 0", len(list))
	}
	twinA, twinB := newStudent(schoolA, "Bob", ""), newStudent(schoolA, "Bob", "")
	twinA.ID, twinB.ID = "00000000-0000-4000-8000-00000000000a", "00000000-0000-4000-8000-00000000000b"
	librarian := newAccount("librarian@example.org")
	librarian.SchoolID, librarian.Name = schoolA, "Zelda"
	reader := newAccount("reader@example.org")
	reader.Role, reader.SchoolID, reader.Name = user.RoleReader, "", "Amy"
	for _, a := range []user.Account{
		newStudent(schoolA, "amy", "3"), // byte order: lowercase after uppercase
		twinB,
		librarian,
		newStudent(schoolB, "Amy", "1"),
		twinA,
		newStudent(schoolA, "Amy", "2"),
		reader,
	} {
		must(t, "Create "+a.Name, r.Accounts.Create(ctx(t), a))
	}
	list, err = r.Accounts.ListBySchool(ctx(t), schoolA, nil)
	must(t, "ListBySchool", err)
	var names []string
	for _, a := range list {
		names = append(names, a.Name)
	}
	if want := []string{"Amy", "Bob", "Bob", "Zelda", "amy"}; fmt.Sprint(names) != fmt.Sprint(want) {
		t.Fatalf("ListBySchool order = %v, want %v (by name, then id)", names, want)
	}
	if list[1].ID != twinA.ID || list[2].ID != twinB.ID {
		t.Fatalf("ListBySchool twins = %s, %s, want %s first", list[1].ID, list[2].ID, twinA.ID)
	}
	checkAccount(t, "ListBySchool[1]", list[1], twinA)
	checkAccount(t, "ListBySchool[3]", list[3], librarian)

	list, err = r.Accounts.ListBySchool(ctx(t), schoolB, nil)
	must(t, "ListBySchool B", err)
	if len(list) != 1 || list[0].StudentNumber != "1" {
		t.Fatalf("ListBySchool(B) = %v, want only its student", accountIDs(list))
	}

	// Only the roles asked for.
	list, err = r.Accounts.ListBySchool(ctx(t), schoolA, []user.Role{user.RoleLibrarian, user.RoleStaff})
	must(t, "ListBySchool staff", err)
	if len(list) != 1 || list[0].ID != librarian.ID {
		t.Fatalf("ListBySchool(A, librarian+staff) = %v, want only %s", accountIDs(list), librarian.ID)
	}
	list, err = r.Accounts.ListBySchool(ctx(t), schoolA, []user.Role{user.RoleStudent})
	must(t, "ListBySchool students", err)
	if len(list) != 4 {
		t.Fatalf("ListBySchool(A, student) = %d accounts, want 4", len(list))
	}
}

func testAccountGetMany(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	a, b, c := newStudent(school, "Ada", "1"), newStudent(school, "Bea", "2"), newStudent(uuid.NewString(), "Cy", "3")
	gone := newAccount("gone@example.org") // Deleted: still returned
	for _, x := range []user.Account{a, b, c, gone} {
		must(t, "Create "+x.Name, r.Accounts.Create(ctx(t), x))
	}
	got, err := r.Accounts.GetMany(ctx(t), []string{c.ID, uuid.NewString(), a.ID, a.ID, gone.ID})
	must(t, "GetMany", err)
	checkAccountSet(t, "GetMany", got, []user.Account{a, c, gone})
	got, err = r.Accounts.GetMany(ctx(t), nil)
	must(t, "GetMany(nil)", err)
	if len(got) != 0 {
		t.Fatalf("GetMany(nil) = %v, want none", accountIDs(got))
	}
}

// checkAccountSet compares accounts in any order.
func checkAccountSet(t *testing.T, call string, got, want []user.Account) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s = %d accounts %v, want %d %v", call, len(got), accountIDs(got), len(want), accountIDs(want))
	}
	byID := make(map[string]user.Account, len(want))
	for _, a := range want {
		byID[a.ID] = a
	}
	for _, a := range got {
		w, ok := byID[a.ID]
		if !ok {
			t.Fatalf("%s has account %s (%s), want only %v", call, a.ID, a.Email, accountIDs(want))
		}
		delete(byID, a.ID)
		checkAccount(t, call+" "+a.Email, a, w)
	}
}

func accountIDs(accounts []user.Account) []string {
	ids := make([]string, len(accounts))
	for i, a := range accounts {
		ids[i] = a.ID
	}
	return ids
}

// --- schools ---

func newSchool(name, domain string) library.School {
	return library.School{
		ID:     uuid.NewString(),
		Name:   name,
		Domain: domain,
		Settings: library.Settings{DefaultLoanDays: 21, MaxRenewals: 3, RenewalDays: 10, AllowPublicCatalog: false,
			MaxCopiesPerBook: 40, MaxCopiesPerSchool: 900, Timezone: "Pacific/Auckland", HoldPickupDays: 5, ReadingLevelCheck: library.ReadingCheckOff},
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

// --- refresh tokens ---

func newToken(accountID, familyID string) auth.RefreshToken {
	return auth.RefreshToken{
		Hash:      auth.HashToken(uuid.NewString()),
		FamilyID:  familyID,
		AccountID: accountID,
		IssuedAt:  base,
		ExpiresAt: base.Add(30 * 24 * time.Hour),
	}
}

func checkToken(t *testing.T, call string, got, want auth.RefreshToken) {
	t.Helper()
	if !sameTime(got.IssuedAt, want.IssuedAt) || !sameTime(got.ExpiresAt, want.ExpiresAt) {
		t.Errorf("%s: times = %v, %v, want %v, %v (at ms precision)", call, got.IssuedAt, got.ExpiresAt, want.IssuedAt, want.ExpiresAt)
	}
	got.IssuedAt, got.ExpiresAt = want.IssuedAt, want.ExpiresAt
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func testTokenCreateGet(t *testing.T, r ports.Repositories) {
	tok := newToken(uuid.NewString(), uuid.NewString())
	must(t, "Create", r.RefreshTokens.Create(ctx(t), tok))
	got, err := r.RefreshTokens.Get(ctx(t), tok.Hash)
	must(t, "Get", err)
	checkToken(t, "Get", got, tok)

	// A rotated token is still readable.
	must(t, "ClaimRotation", r.RefreshTokens.ClaimRotation(ctx(t), tok.Hash, base))
	got, err = r.RefreshTokens.Get(ctx(t), tok.Hash)
	must(t, "Get after rotation", err)
	checkToken(t, "Get after rotation", got, tok)
}

func testTokenCreateDuplicate(t *testing.T, r ports.Repositories) {
	tok := newToken(uuid.NewString(), uuid.NewString())
	must(t, "Create", r.RefreshTokens.Create(ctx(t), tok))
	dup := tok
	dup.AccountID = uuid.NewString()
	wantErr(t, "Create same hash", r.RefreshTokens.Create(ctx(t), dup), errs.Conflict, "refresh_token_exists")
	got, err := r.RefreshTokens.Get(ctx(t), tok.Hash)
	must(t, "Get", err)
	checkToken(t, "Get after conflict", got, tok)
}

func testTokenGetMissing(t *testing.T, r ports.Repositories) {
	_, err := r.RefreshTokens.Get(ctx(t), auth.HashToken("never issued"))
	wantErr(t, "Get", err, errs.NotFound, "refresh_token_not_found")
}

func testTokenRotatedAt(t *testing.T, r ports.Repositories) {
	tok := newToken(uuid.NewString(), uuid.NewString())
	must(t, "Create", r.RefreshTokens.Create(ctx(t), tok))
	_, err := r.RefreshTokens.RotatedAt(ctx(t), tok.Hash)
	wantErr(t, "RotatedAt before the claim", err, errs.NotFound, "rotation_not_found")
	at := base.Add(42 * time.Second)
	must(t, "ClaimRotation", r.RefreshTokens.ClaimRotation(ctx(t), tok.Hash, at))
	// A losing claim must not move the recorded time.
	_ = r.RefreshTokens.ClaimRotation(ctx(t), tok.Hash, at.Add(time.Hour))
	got, err := r.RefreshTokens.RotatedAt(ctx(t), tok.Hash)
	must(t, "RotatedAt", err)
	if !got.Truncate(time.Millisecond).Equal(at.Truncate(time.Millisecond)) { // MongoDB keeps milliseconds
		t.Errorf("RotatedAt = %v, want %v", got, at)
	}
}

func testTokenClaimRotationOnce(t *testing.T, r ports.Repositories) {
	tok := newToken(uuid.NewString(), uuid.NewString())
	must(t, "Create", r.RefreshTokens.Create(ctx(t), tok))

	const racers = 50
	c := ctx(t)
	errCh := make(chan error, racers)
	var start sync.WaitGroup
	start.Add(1)
	var done sync.WaitGroup
	for i := range racers {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			errCh <- r.RefreshTokens.ClaimRotation(c, tok.Hash, base.Add(time.Duration(i)*time.Millisecond))
		}()
	}
	start.Done()
	done.Wait()
	close(errCh)

	wins, reused := 0, 0
	for err := range errCh {
		switch {
		case err == nil:
			wins++
		case errs.KindOf(err) == errs.Conflict && errs.CodeOf(err) == "refresh_token_reused":
			reused++
		default:
			t.Errorf("ClaimRotation: unexpected error %v (kind %q, code %q)", err, errs.KindOf(err), errs.CodeOf(err))
		}
	}
	if wins != 1 || reused != racers-1 {
		t.Fatalf("%d racing ClaimRotation: got %d nil and %d refresh_token_reused, want 1 and %d", racers, wins, reused, racers-1)
	}
	wantErr(t, "ClaimRotation afterwards", r.RefreshTokens.ClaimRotation(ctx(t), tok.Hash, base), errs.Conflict, "refresh_token_reused")
}

func testTokenClaimRotationPerHash(t *testing.T, r ports.Repositories) {
	family := uuid.NewString()
	a, b := newToken(uuid.NewString(), family), newToken(uuid.NewString(), family)
	must(t, "Create a", r.RefreshTokens.Create(ctx(t), a))
	must(t, "Create b", r.RefreshTokens.Create(ctx(t), b))
	must(t, "ClaimRotation a", r.RefreshTokens.ClaimRotation(ctx(t), a.Hash, base))
	must(t, "ClaimRotation b after a", r.RefreshTokens.ClaimRotation(ctx(t), b.Hash, base))
}

func testTokenRevokeFamily(t *testing.T, r ports.Repositories) {
	family, other := uuid.NewString(), uuid.NewString()
	tok := newToken(uuid.NewString(), family)
	must(t, "Create", r.RefreshTokens.Create(ctx(t), tok))

	revoked, err := r.RefreshTokens.FamilyRevoked(ctx(t), family)
	must(t, "FamilyRevoked before", err)
	if revoked {
		t.Fatalf("FamilyRevoked before RevokeFamily = true, want false")
	}
	must(t, "RevokeFamily", r.RefreshTokens.RevokeFamily(ctx(t), family, base))
	must(t, "RevokeFamily again", r.RefreshTokens.RevokeFamily(ctx(t), family, base.Add(time.Hour)))

	revoked, err = r.RefreshTokens.FamilyRevoked(ctx(t), family)
	must(t, "FamilyRevoked after", err)
	if !revoked {
		t.Fatalf("FamilyRevoked after RevokeFamily = false, want true")
	}
	revoked, err = r.RefreshTokens.FamilyRevoked(ctx(t), other)
	must(t, "FamilyRevoked other", err)
	if revoked {
		t.Fatalf("FamilyRevoked of an untouched family = true, want false")
	}
}

func testTokenDeleteByAccount(t *testing.T, r ports.Repositories) {
	alice, bob := uuid.NewString(), uuid.NewString()
	a1, a2 := newToken(alice, uuid.NewString()), newToken(alice, uuid.NewString())
	b1 := newToken(bob, uuid.NewString())
	for _, tok := range []auth.RefreshToken{a1, a2, b1} {
		must(t, "Create", r.RefreshTokens.Create(ctx(t), tok))
	}
	must(t, "DeleteByAccount", r.RefreshTokens.DeleteByAccount(ctx(t), alice))
	for _, tok := range []auth.RefreshToken{a1, a2} {
		_, err := r.RefreshTokens.Get(ctx(t), tok.Hash)
		wantErr(t, "Get deleted token", err, errs.NotFound, "refresh_token_not_found")
	}
	got, err := r.RefreshTokens.Get(ctx(t), b1.Hash)
	must(t, "Get other account's token", err)
	checkToken(t, "Get other account's token", got, b1)

	must(t, "DeleteByAccount again", r.RefreshTokens.DeleteByAccount(ctx(t), alice))
	must(t, "DeleteByAccount without tokens", r.RefreshTokens.DeleteByAccount(ctx(t), uuid.NewString()))
}

func testTokenRevokeAccountFamilies(t *testing.T, r ports.Repositories) {
	alice, bob := uuid.NewString(), uuid.NewString()
	kept, ended, rotated, bobs := uuid.NewString(), uuid.NewString(), uuid.NewString(), uuid.NewString()
	// rotated has two records, as after a refresh; ended is revoked
	// already.
	for _, tok := range []auth.RefreshToken{newToken(alice, kept), newToken(alice, ended), newToken(alice, rotated), newToken(alice, rotated), newToken(bob, bobs)} {
		must(t, "Create", r.RefreshTokens.Create(ctx(t), tok))
	}
	must(t, "RevokeFamily", r.RefreshTokens.RevokeFamily(ctx(t), ended, base))
	revokedIs := func(call, family string, want bool) {
		t.Helper()
		got, err := r.RefreshTokens.FamilyRevoked(ctx(t), family)
		must(t, call, err)
		if got != want {
			t.Errorf("%s: FamilyRevoked = %v, want %v", call, got, want)
		}
	}

	must(t, "RevokeAccountFamilies keeping one", r.RefreshTokens.RevokeAccountFamilies(ctx(t), alice, kept, base.Add(time.Hour)))
	revokedIs("the kept family", kept, false)
	revokedIs("a revoked family", ended, true)
	revokedIs("a family with two records", rotated, true)
	revokedIs("another account's family", bobs, false)

	must(t, "RevokeAccountFamilies again", r.RefreshTokens.RevokeAccountFamilies(ctx(t), alice, kept, base.Add(2*time.Hour)))
	must(t, "RevokeAccountFamilies keeping none", r.RefreshTokens.RevokeAccountFamilies(ctx(t), alice, "", base.Add(3*time.Hour)))
	revokedIs("the formerly kept family", kept, true)
	revokedIs("another account's family after", bobs, false)
	must(t, "RevokeAccountFamilies without tokens", r.RefreshTokens.RevokeAccountFamilies(ctx(t), uuid.NewString(), "", base))
}

// --- signing keys ---

// newKey returns a key whose PEM holds bytes that a text round trip would
// mangle (NUL, invalid UTF-8, CR LF).
func newKey(i int) auth.SigningKey {
	pem := fmt.Appendf(nil, "-----BEGIN PRIVATE KEY-----\r\nkey %d \x00\xff\xfe\n-----END PRIVATE KEY-----\n", i)
	return auth.SigningKey{
		ID:            fmt.Sprintf("kid-%02d-%s", i, uuid.NewString()[:8]),
		Algorithm:     "RS256",
		PrivateKeyPEM: pem,
		CreatedAt:     base.Add(time.Duration(i) * time.Second),
	}
}

func sameKey(a, b auth.SigningKey) bool {
	return a.ID == b.ID && a.Algorithm == b.Algorithm && bytes.Equal(a.PrivateKeyPEM, b.PrivateKeyPEM) && sameTime(a.CreatedAt, b.CreatedAt)
}

func testKeyListEmpty(t *testing.T, r ports.Repositories) {
	keys, err := r.SigningKeys.List(ctx(t))
	must(t, "List", err)
	if len(keys) != 0 {
		t.Fatalf("List on empty = %d keys, want 0", len(keys))
	}
}

func testKeyEnsureActiveRace(t *testing.T, r ports.Repositories) {
	const racers = 20
	candidates := make([]auth.SigningKey, racers)
	for i := range candidates {
		candidates[i] = newKey(i)
	}
	c := ctx(t)
	results := make([]auth.SigningKey, racers)
	errsOut := make([]error, racers)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range racers {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			results[i], errsOut[i] = r.SigningKeys.EnsureActive(c, candidates[i])
		}()
	}
	start.Done()
	done.Wait()

	for i, err := range errsOut {
		must(t, fmt.Sprintf("EnsureActive #%d", i), err)
	}
	winner := -1
	for i, k := range candidates {
		if k.ID == results[0].ID {
			winner = i
		}
	}
	if winner < 0 {
		t.Fatalf("EnsureActive returned kid %q, which no candidate had", results[0].ID)
	}
	for i, k := range results {
		if !sameKey(k, candidates[winner]) {
			t.Fatalf("EnsureActive #%d returned %q, want the same key as everyone (%q)", i, k.ID, candidates[winner].ID)
		}
	}

	keys, err := r.SigningKeys.List(ctx(t))
	must(t, "List", err)
	if len(keys) == 0 || !sameKey(keys[0], candidates[winner]) {
		t.Fatalf("List()[0] is not the active key %q (got %d keys)", candidates[winner].ID, len(keys))
	}
	if !bytes.Equal(keys[0].PrivateKeyPEM, candidates[winner].PrivateKeyPEM) {
		t.Fatalf("List()[0].PrivateKeyPEM = %q, want %q", keys[0].PrivateKeyPEM, candidates[winner].PrivateKeyPEM)
	}
	for _, k := range keys[1:] {
		if k.ID == keys[0].ID {
			t.Fatalf("List has the active key %q twice", k.ID)
		}
	}
}

func testKeyEnsureActiveKeepsFirst(t *testing.T, r ports.Repositories) {
	first, second := newKey(1), newKey(2)
	got, err := r.SigningKeys.EnsureActive(ctx(t), first)
	must(t, "EnsureActive first", err)
	if !sameKey(got, first) {
		t.Fatalf("EnsureActive on empty returned %q, want the candidate %q", got.ID, first.ID)
	}
	got, err = r.SigningKeys.EnsureActive(ctx(t), second)
	must(t, "EnsureActive second", err)
	if !sameKey(got, first) {
		t.Fatalf("EnsureActive with an active key returned %q, want the active %q", got.ID, first.ID)
	}
	keys, err := r.SigningKeys.List(ctx(t))
	must(t, "List", err)
	if len(keys) == 0 || !sameKey(keys[0], first) {
		t.Fatalf("List()[0] is not %q (got %d keys)", first.ID, len(keys))
	}
}

func testKeyNoAliasing(t *testing.T, r ports.Repositories) {
	k := newKey(7)
	want := bytes.Clone(k.PrivateKeyPEM)
	got, err := r.SigningKeys.EnsureActive(ctx(t), k)
	must(t, "EnsureActive", err)
	k.PrivateKeyPEM[0] = 'X'   // the caller's slice
	got.PrivateKeyPEM[1] = 'Y' // the returned slice
	keys, err := r.SigningKeys.List(ctx(t))
	must(t, "List", err)
	if len(keys) == 0 {
		t.Fatal("List returned no keys, want the active one")
	}
	keys[0].PrivateKeyPEM[2] = 'Z'
	keys, err = r.SigningKeys.List(ctx(t))
	must(t, "List again", err)
	if !bytes.Equal(keys[0].PrivateKeyPEM, want) {
		t.Fatalf("stored PEM after callers changed their copies = %q, want %q", keys[0].PrivateKeyPEM, want)
	}
}

// ReplacePrivateKey changes the stored bytes of one key and nothing else:
// not its id, algorithm, creation time or which key is active.
func testKeyReplacePrivateKey(t *testing.T, r ports.Repositories) {
	active, other := newKey(1), newKey(2)
	_, err := r.SigningKeys.EnsureActive(ctx(t), active)
	must(t, "EnsureActive", err)
	replaced := other
	replaced.ID = active.ID
	replaced.Algorithm = "changed"
	replaced.CreatedAt = base.Add(time.Hour)
	must(t, "ReplacePrivateKey", r.SigningKeys.ReplacePrivateKey(ctx(t), replaced))
	keys, err := r.SigningKeys.List(ctx(t))
	must(t, "List", err)
	want := active
	want.PrivateKeyPEM = other.PrivateKeyPEM
	if len(keys) != 1 || !sameKey(keys[0], want) {
		t.Fatalf("List after ReplacePrivateKey = %+v, want only %q with the new bytes and its own id, algorithm and time", keys, active.ID)
	}
	err = r.SigningKeys.ReplacePrivateKey(ctx(t), newKey(3))
	wantErr(t, "ReplacePrivateKey of an unknown key", err, errs.NotFound, "signing_key_not_found")
}

// --- health ---

func testPing(t *testing.T, r ports.Repositories) {
	if err := r.Health.Ping(ctx(t)); err != nil {
		t.Fatalf("Ping on a healthy backend = %v, want nil", err)
	}
}
