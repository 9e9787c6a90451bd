package porttest

// The account port's contract, run by the Repositories suite.

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

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
	// DeepEqual tells a nil list from an empty one: no guardians read as
	// nil, as an account is created.
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

// twoGuardians are a student's guardians in the order the roster gave
// them (not sorted), one with only an email and no relationship.
func twoGuardians() []user.Guardian {
	return []user.Guardian{
		{Name: "Zoë \"Zo\" O'Brien", Email: "zoe.obrien@example.org", Relationship: user.RelationshipParent},
		{Email: "grandpa@example.org"},
	}
}

func testAccountGuardians(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	a := newStudent(school, "Pippi", "2024-017")
	a.Guardians = twoGuardians()
	must(t, "Create with two guardians", r.Accounts.Create(ctx(t), a))
	other := newStudent(school, "Annika", "2024-018") // none: stays none
	must(t, "Create without guardians", r.Accounts.Create(ctx(t), other))

	got, err := r.Accounts.Get(ctx(t), a.ID)
	must(t, "Get", err)
	checkAccount(t, "Get with two guardians", got, a)
	list, err := r.Accounts.ListBySchool(ctx(t), school, []user.Role{user.RoleStudent})
	must(t, "ListBySchool", err)
	checkAccountSet(t, "ListBySchool with guardians", list, []user.Account{a, other})

	u := a
	u.Guardians = []user.Guardian{{Name: "Mr Nilsson", Relationship: user.RelationshipGuardian}}
	must(t, "Update to one guardian", r.Accounts.Update(ctx(t), u))
	got, err = r.Accounts.Get(ctx(t), a.ID)
	must(t, "Get", err)
	checkAccount(t, "Get after Update to one guardian", got, u)

	// An empty list is none too, and reads as nil.
	u.Guardians = []user.Guardian{}
	must(t, "Update to no guardians", r.Accounts.Update(ctx(t), u))
	u.Guardians = nil
	got, err = r.Accounts.Get(ctx(t), a.ID)
	must(t, "Get", err)
	checkAccount(t, "Get after Update to no guardians", got, u)
	got, err = r.Accounts.Get(ctx(t), other.ID)
	must(t, "Get other", err)
	checkAccount(t, "Get the other student", got, other)

	// Four, the most a student has, in their order.
	u.Guardians = append(twoGuardians(), user.Guardian{Name: "Ann", Relationship: user.RelationshipRelative},
		user.Guardian{Name: "Bo", Email: "bo@example.org", Relationship: user.RelationshipGuardian})
	must(t, "Update to four guardians", r.Accounts.Update(ctx(t), u))
	many, err := r.Accounts.GetMany(ctx(t), []string{a.ID})
	must(t, "GetMany", err)
	checkAccountSet(t, "GetMany after Update to four guardians", many, []user.Account{u})
}

// testAccountGuardiansGoWithDelete: the guardians are part of the account,
// so a new account with the deleted one's id and email has none.
func testAccountGuardiansGoWithDelete(t *testing.T, r ports.Repositories) {
	a := newStudent(uuid.NewString(), "Pippi", "2024-017")
	a.Email, a.Guardians = "pippi@example.org", twoGuardians()
	must(t, "Create", r.Accounts.Create(ctx(t), a))
	must(t, "Delete", r.Accounts.Delete(ctx(t), a.ID))
	_, err := r.Accounts.Get(ctx(t), a.ID)
	wantErr(t, "Get deleted", err, errs.NotFound, "account_not_found")

	reborn := newStudent(a.SchoolID, "Pippi", "2024-017")
	reborn.ID, reborn.Email = a.ID, a.Email
	must(t, "Create with the deleted account's id", r.Accounts.Create(ctx(t), reborn))
	got, err := r.Accounts.Get(ctx(t), a.ID)
	must(t, "Get", err)
	checkAccount(t, "Get of the new account", got, reborn)
	got, err = r.Accounts.GetByEmail(ctx(t), a.Email)
	must(t, "GetByEmail", err)
	checkAccount(t, "GetByEmail of the new account", got, reborn)
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

// testAccountLanguage: an account whose person chose no language reads
// back "" from every read; the language they choose is stored with the
// account's other preferences, and clearing it reads back "".
func testAccountLanguage(t *testing.T, r ports.Repositories) {
	a := newStudent(uuid.NewString(), "Pippi Långstrump", "7A-01")
	a.Email, a.Preferences = "pippi@example.org", user.DefaultPreferences()
	must(t, "Create", r.Accounts.Create(ctx(t), a))
	reads := func(call, want string) {
		t.Helper()
		got, err := r.Accounts.Get(ctx(t), a.ID)
		must(t, call+": Get", err)
		checkAccount(t, call+": Get", got, a)
		byEmail, err := r.Accounts.GetByEmail(ctx(t), a.Email)
		must(t, call+": GetByEmail", err)
		many, err := r.Accounts.GetMany(ctx(t), []string{a.ID})
		must(t, call+": GetMany", err)
		school, err := r.Accounts.ListBySchool(ctx(t), a.SchoolID, []user.Role{user.RoleStudent})
		must(t, call+": ListBySchool", err)
		found, _, err := r.Students.Search(ctx(t), library.StudentQuery{SchoolID: a.SchoolID, Limit: 10})
		must(t, call+": Students.Search", err)
		if len(many) != 1 || len(school) != 1 || len(found) != 1 {
			t.Fatalf("%s: GetMany %d, ListBySchool %d, Students.Search %d accounts; want 1 each", call, len(many), len(school), len(found))
		}
		for name, got := range map[string]string{"Get": got.Preferences.Language, "GetByEmail": byEmail.Preferences.Language,
			"GetMany": many[0].Preferences.Language, "ListBySchool": school[0].Preferences.Language, "Students.Search": found[0].Preferences.Language} {
			if got != want {
				t.Errorf("%s: %s reads language %q, want %q", call, name, got, want)
			}
		}
	}
	reads("Create with none chosen", "")

	a.Preferences.Language = "ar"
	a.UpdatedAt = a.UpdatedAt.Add(time.Minute)
	must(t, "Update ar", r.Accounts.Update(ctx(t), a))
	reads("Update with ar", "ar")

	a.Preferences.Language = ""
	a.UpdatedAt = a.UpdatedAt.Add(time.Minute)
	must(t, "Update none", r.Accounts.Update(ctx(t), a))
	reads("Update with none", "")

	b := newAccount("ada@example.org")
	b.Preferences.Language = "es"
	must(t, "Create es", r.Accounts.Create(ctx(t), b))
	got, err := r.Accounts.Get(ctx(t), b.ID)
	must(t, "Get es", err)
	checkAccount(t, "Get of an account created with es", got, b)
}
