package porttest

// The kiosks' contract: a kiosk is found by its login, which is unique
// across the service even when two are made at once, and a school lists
// and deletes only its own.

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ = register("Kiosks", Kiosks)

// Kiosks checks the ports.KioskRepository contract.
func Kiosks(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	runPortTests(t, newRepos, []portTest{
		{"CreateReadBack", testKioskCreateReadBack},
		{"LoginTaken", testKioskLoginTaken},
		{"LoginRace", testKioskLoginRace},
		{"OfSchoolByNameThenID", testKiosksOfSchoolOrder},
		{"OfSchoolLimit", testKiosksOfSchoolLimit},
		{"OfSchoolNotOthers", testKiosksOfSchoolNotOthers},
		{"DeleteOfAnotherSchool", testKioskDeleteOfAnotherSchool},
		{"Delete", testKioskDelete},
	})
}

// newKiosk is a kiosk of school made at base, a time with digits below
// the millisecond in a zone other than UTC, which the stores may drop.
func newKiosk(school, name, login string) library.Kiosk {
	return library.Kiosk{ID: uuid.NewString(), SchoolID: school, Name: name, Login: login,
		SecretHash: "$argon2id$v=19$m=65536,t=3,p=2$c2FsdHNhbHQ$" + login, CreatedAt: base, CreatedBy: "librarian@" + school + ".example.org"}
}

// checkKiosk compares every field, CreatedAt to the millisecond.
func checkKiosk(t *testing.T, call string, got, want library.Kiosk) {
	t.Helper()
	checkTime(t, call+" CreatedAt", got.CreatedAt, want.CreatedAt)
	got.CreatedAt = want.CreatedAt
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func kioskIDs(ks []library.Kiosk) []string {
	ids := make([]string, len(ks))
	for i, k := range ks {
		ids[i] = k.ID
	}
	return ids
}

// wantKiosks checks that school's list (up to limit) is want's ids in
// order, and never nil.
func wantKiosks(t *testing.T, r ports.Repositories, school string, limit int, want ...string) []library.Kiosk {
	t.Helper()
	call := fmt.Sprintf("KiosksOfSchool(%s, %d)", school, limit)
	got, err := r.Kiosks.KiosksOfSchool(ctx(t), school, limit)
	must(t, call, err)
	if got == nil {
		t.Errorf("%s = nil, want an empty slice", call)
	}
	if ids := kioskIDs(got); !slices.Equal(ids, want) && (len(ids) != 0 || len(want) != 0) {
		t.Errorf("%s = %q, want %q", call, ids, want)
	}
	return got
}

// A kiosk reads back by its login, and in its school's list, with every
// field as stored.
func testKioskCreateReadBack(t *testing.T, r ports.Repositories) {
	k := newKiosk("school-a", "Library entrance — près de la porte", "entrance-1.a_b")
	must(t, "CreateKiosk", r.Kiosks.CreateKiosk(ctx(t), k))
	got, err := r.Kiosks.KioskByLogin(ctx(t), k.Login)
	must(t, "KioskByLogin", err)
	checkKiosk(t, "KioskByLogin", got, k)
	list := wantKiosks(t, r, k.SchoolID, 10, k.ID)
	if len(list) == 1 {
		checkKiosk(t, "KiosksOfSchool[0]", list[0], k)
	}
}

// A second kiosk with a taken login, even of another school, is refused
// and stored nowhere; the first stays as it was.
func testKioskLoginTaken(t *testing.T, r ports.Repositories) {
	first := newKiosk("school-a", "Entrance", "desk")
	must(t, "CreateKiosk", r.Kiosks.CreateKiosk(ctx(t), first))
	for _, school := range []string{"school-a", "school-b"} {
		dup := newKiosk(school, "Other", first.Login)
		dup.SecretHash = "another hash"
		wantErr(t, "CreateKiosk with a taken login in "+school, r.Kiosks.CreateKiosk(ctx(t), dup), errs.Conflict, "kiosk_login_taken")
	}
	got, err := r.Kiosks.KioskByLogin(ctx(t), first.Login)
	must(t, "KioskByLogin", err)
	checkKiosk(t, "KioskByLogin after the refusals", got, first)
	wantKiosks(t, r, "school-a", 10, first.ID)
	wantKiosks(t, r, "school-b", 10)
}

// Kiosks created at once with one login: exactly one is stored, the others
// are refused as taken.
func testKioskLoginRace(t *testing.T, r ports.Repositories) {
	const n = 8
	ks := make([]library.Kiosk, n)
	for i := range ks {
		ks[i] = newKiosk("school-a", fmt.Sprintf("Kiosk %d", i), "same-login")
	}
	winner := wantOneWinner(t, "CreateKiosk", race(n, func(i int) error { return r.Kiosks.CreateKiosk(ctx(t), ks[i]) }), "kiosk_login_taken")
	got, err := r.Kiosks.KioskByLogin(ctx(t), "same-login")
	must(t, "KioskByLogin", err)
	checkKiosk(t, "KioskByLogin after the race", got, ks[winner])
	wantKiosks(t, r, "school-a", n+1, ks[winner].ID)
}

// A school's kiosks come by name, kiosks of one name by id, whatever the
// order they were made in.
func testKiosksOfSchoolOrder(t *testing.T, r ports.Repositories) {
	twinB, twinA := newKiosk("school-a", "Hall", "hall-b"), newKiosk("school-a", "Hall", "hall-a")
	twinA.ID, twinB.ID = "00000000-0000-4000-8000-00000000000a", "00000000-0000-4000-8000-00000000000b"
	in := []library.Kiosk{newKiosk("school-a", "Library", "library"), twinB, newKiosk("school-a", "Canteen", "canteen"), twinA,
		newKiosk("school-a", "Annex", "annex")}
	for _, k := range in {
		must(t, "CreateKiosk "+k.Login, r.Kiosks.CreateKiosk(ctx(t), k))
	}
	list := wantKiosks(t, r, "school-a", 10, in[4].ID, in[2].ID, twinA.ID, twinB.ID, in[0].ID)
	if len(list) == len(in) {
		checkKiosk(t, "KiosksOfSchool[2]", list[2], twinA)
	}
}

// The list stops at limit, keeping the first in its order; a limit below
// 1 lists nothing.
func testKiosksOfSchoolLimit(t *testing.T, r ports.Repositories) {
	var ks []library.Kiosk
	for i := range 4 {
		k := newKiosk("school-a", fmt.Sprintf("Kiosk %d", i), fmt.Sprintf("kiosk-%d", i))
		must(t, "CreateKiosk", r.Kiosks.CreateKiosk(ctx(t), k))
		ks = append(ks, k)
	}
	wantKiosks(t, r, "school-a", 2, ks[0].ID, ks[1].ID)
	wantKiosks(t, r, "school-a", 1, ks[0].ID)
	wantKiosks(t, r, "school-a", 4, kioskIDs(ks)...)
	wantKiosks(t, r, "school-a", 0)
	wantKiosks(t, r, "school-a", -1)
}

// A school lists its own kiosks only.
func testKiosksOfSchoolNotOthers(t *testing.T, r ports.Repositories) {
	a := newKiosk("school-a", "Entrance", "a-entrance")
	b1, b2 := newKiosk("school-b", "Entrance", "b-entrance"), newKiosk("school-b", "Library", "b-library")
	for _, k := range []library.Kiosk{b1, a, b2} {
		must(t, "CreateKiosk", r.Kiosks.CreateKiosk(ctx(t), k))
	}
	wantKiosks(t, r, "school-a", 10, a.ID)
	wantKiosks(t, r, "school-b", 10, b1.ID, b2.ID)
	wantKiosks(t, r, "school-c", 10)
}

// Deleting another school's kiosk is NotFound and deletes nothing.
func testKioskDeleteOfAnotherSchool(t *testing.T, r ports.Repositories) {
	b := newKiosk("school-b", "Entrance", "b-entrance")
	must(t, "CreateKiosk", r.Kiosks.CreateKiosk(ctx(t), b))
	wantErr(t, "DeleteKiosk of another school's kiosk", r.Kiosks.DeleteKiosk(ctx(t), "school-a", b.ID), errs.NotFound, "kiosk_not_found")
	got, err := r.Kiosks.KioskByLogin(ctx(t), b.Login)
	must(t, "KioskByLogin after the refused delete", err)
	checkKiosk(t, "KioskByLogin after the refused delete", got, b)
	wantKiosks(t, r, "school-b", 10, b.ID)
}

// A deleted kiosk is found no more, by login or in the list, and a second
// delete is NotFound; its login is free again. Other kiosks stay.
func testKioskDelete(t *testing.T, r ports.Repositories) {
	gone, kept := newKiosk("school-a", "Entrance", "entrance"), newKiosk("school-a", "Library", "library")
	for _, k := range []library.Kiosk{gone, kept} {
		must(t, "CreateKiosk", r.Kiosks.CreateKiosk(ctx(t), k))
	}
	must(t, "DeleteKiosk", r.Kiosks.DeleteKiosk(ctx(t), gone.SchoolID, gone.ID))
	_, err := r.Kiosks.KioskByLogin(ctx(t), gone.Login)
	wantErr(t, "KioskByLogin of a deleted kiosk", err, errs.NotFound, "kiosk_not_found")
	_, err = r.Kiosks.KioskByLogin(ctx(t), "never-made")
	wantErr(t, "KioskByLogin of an unknown login", err, errs.NotFound, "kiosk_not_found")
	wantKiosks(t, r, "school-a", 10, kept.ID)
	wantErr(t, "DeleteKiosk again", r.Kiosks.DeleteKiosk(ctx(t), gone.SchoolID, gone.ID), errs.NotFound, "kiosk_not_found")
	wantErr(t, "DeleteKiosk of an unknown id", r.Kiosks.DeleteKiosk(ctx(t), gone.SchoolID, uuid.NewString()), errs.NotFound, "kiosk_not_found")

	again := newKiosk("school-a", "Entrance", gone.Login)
	must(t, "CreateKiosk with a deleted kiosk's login", r.Kiosks.CreateKiosk(ctx(t), again))
	got, err := r.Kiosks.KioskByLogin(ctx(t), gone.Login)
	must(t, "KioskByLogin", err)
	checkKiosk(t, "KioskByLogin of the new kiosk", got, again)
}
