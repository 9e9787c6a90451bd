package porttest

// A school's stored settings and calendar, checked by the Repositories
// suite.

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

func testLibSaveSettings(t *testing.T, r ports.Repositories) {
	s := newSchool("Maple High", "maple.example.org")
	other := newSchool("Oak", "oak.example.org")
	must(t, "Create school", r.Schools.Create(ctx(t), s))
	must(t, "Create other school", r.Schools.Create(ctx(t), other))

	// Zero values are stored as such; the copy caps too, and an empty
	// catalogue server (lookups off) is not read back as the default.
	settings := library.Settings{DefaultLoanDays: 7, MaxRenewals: 0, RenewalDays: 3, AllowPublicCatalog: false,
		MaxCopiesPerBook: 3, MaxCopiesPerSchool: 10, HoldPickupDays: 1}
	must(t, "SaveSettings", r.Schools.SaveSettings(ctx(t), s.ID, settings))
	got, err := r.Schools.Get(ctx(t), s.ID)
	must(t, "Get", err)
	want := s
	want.Settings = settings
	checkSchool(t, "Get after SaveSettings", got, want)
	got, err = r.Schools.GetByDomain(ctx(t), s.Domain)
	must(t, "GetByDomain", err)
	checkSchool(t, "GetByDomain after SaveSettings", got, want)

	settings = library.Settings{DefaultLoanDays: 28, MaxRenewals: 5, RenewalDays: 14, AllowPublicCatalog: true,
		MaxCopiesPerBook: library.MaxCopiesPerBookLimit, MaxCopiesPerSchool: library.MaxCopiesPerSchoolLimit,
		HoldPickupDays: library.MaxHoldPickupDays, CatalogEndpoint: "https://koha.maple.example.org:9998/biblios?x-db=kids", LabelPrefix: "Ñandú Lib"}
	must(t, "SaveSettings again", r.Schools.SaveSettings(ctx(t), s.ID, settings))
	got, err = r.Schools.Get(ctx(t), s.ID)
	must(t, "Get", err)
	want.Settings = settings
	checkSchool(t, "Get after the second SaveSettings", got, want)

	got, err = r.Schools.Get(ctx(t), other.ID)
	must(t, "Get other", err)
	checkSchool(t, "Get other school", got, other)

	wantErr(t, "SaveSettings of a missing school", r.Schools.SaveSettings(ctx(t), uuid.NewString(), settings), errs.NotFound, "school_not_found")
}

// testSchoolSaveCalendar: a calendar is stored whole and read with its
// school by every read; saving the calendar keeps the settings and saving
// the settings keeps the calendar; the empty calendar clears it.
func testSchoolSaveCalendar(t *testing.T, r ports.Repositories) {
	s := newSchool("Maple High", "maple.example.org")
	other := newSchool("Oak", "oak.example.org")
	must(t, "Create school", r.Schools.Create(ctx(t), s))
	must(t, "Create other school", r.Schools.Create(ctx(t), other))

	cal := library.Calendar{
		ClosedWeekdays: []time.Weekday{time.Monday, time.Saturday, time.Sunday},
		Closures: []library.Closure{
			{From: "2026-12-21", To: "2027-01-03", Name: "Winter break"},
			{From: "2027-02-15", To: "2027-02-15"}, // one day, no name
			{From: "2027-04-01", To: "2027-04-12", Name: "Pâques – «spring» break"},
		},
		TermEnds: []string{"2026-12-18", "2027-03-26", "2027-07-09"},
	}
	must(t, "SaveCalendar", r.Schools.SaveCalendar(ctx(t), s.ID, cal))
	want := s
	want.Calendar = cal
	wantSchool(t, r, "Get after SaveCalendar", s.ID, want)
	got, err := r.Schools.GetByDomain(ctx(t), s.Domain)
	must(t, "GetByDomain", err)
	checkSchool(t, "GetByDomain after SaveCalendar", got, want)
	list, err := r.Schools.List(ctx(t))
	must(t, "List", err)
	if len(list) != 2 {
		t.Fatalf("List = %d schools, want 2", len(list))
	}
	checkSchool(t, "List (Maple)", list[0], want)
	checkSchool(t, "List (Oak)", list[1], other)

	settings := library.Settings{DefaultLoanDays: 10, MaxRenewals: 1, RenewalDays: 5, MaxCopiesPerBook: 9, MaxCopiesPerSchool: 99, Timezone: "America/Chicago",
		HoldPickupDays: 4, LoanHistoryDays: 30, HistoryChoice: true}
	must(t, "SaveSettings", r.Schools.SaveSettings(ctx(t), s.ID, settings))
	want.Settings = settings
	wantSchool(t, r, "Get after SaveSettings (the calendar stays)", s.ID, want)

	smaller := library.Calendar{TermEnds: []string{"2027-07-09"}}
	must(t, "SaveCalendar smaller", r.Schools.SaveCalendar(ctx(t), s.ID, smaller))
	want.Calendar = smaller
	wantSchool(t, r, "Get after a second SaveCalendar (replaced whole, settings stay)", s.ID, want)

	must(t, "SaveCalendar empty", r.Schools.SaveCalendar(ctx(t), s.ID, library.Calendar{}))
	want.Calendar = library.Calendar{}
	wantSchool(t, r, "Get after saving the empty calendar", s.ID, want)

	wantSchool(t, r, "Get other school", other.ID, other)
	wantErr(t, "SaveCalendar of a missing school", r.Schools.SaveCalendar(ctx(t), uuid.NewString(), cal), errs.NotFound, "school_not_found")
}

// wantSchool reads the school with id and checks it is want.
func wantSchool(t *testing.T, r ports.Repositories, call, id string, want library.School) {
	t.Helper()
	got, err := r.Schools.Get(ctx(t), id)
	must(t, call, err)
	checkSchool(t, call, got, want)
}

// testSchoolLanguage: a school that never chose a language reads back ""
// (not the default English), whichever read finds it; the language it
// chooses is saved with its settings, and saving the calendar or the loan
// rules keeps it.
func testSchoolLanguage(t *testing.T, r ports.Repositories) {
	s := newSchool("Maple High", "maple.example.org")
	other := newSchool("Oak", "oak.example.org")
	must(t, "Create school", r.Schools.Create(ctx(t), s))
	must(t, "Create other school", r.Schools.Create(ctx(t), other))
	reads := func(call, want string) {
		t.Helper()
		got, err := r.Schools.Get(ctx(t), s.ID)
		must(t, call+": Get", err)
		byDomain, err := r.Schools.GetByDomain(ctx(t), s.Domain)
		must(t, call+": GetByDomain", err)
		list, err := r.Schools.List(ctx(t))
		must(t, call+": List", err)
		listed := map[string]string{}
		for _, sc := range list {
			listed[sc.ID] = sc.Settings.Language
		}
		for name, got := range map[string]string{"Get": got.Settings.Language, "GetByDomain": byDomain.Settings.Language, "List": listed[s.ID]} {
			if got != want {
				t.Errorf("%s: %s reads language %q, want %q", call, name, got, want)
			}
		}
		if lang, ok := listed[other.ID]; !ok || lang != "" {
			t.Errorf("%s: the other school reads language %q (listed %v), want \"\"", call, lang, ok)
		}
	}
	reads("Create with none chosen", "")

	set := s.Settings
	set.Language = "es"
	must(t, "SaveSettings es", r.Schools.SaveSettings(ctx(t), s.ID, set))
	reads("SaveSettings with es", "es")
	must(t, "SaveCalendar", r.Schools.SaveCalendar(ctx(t), s.ID, library.Calendar{TermEnds: []string{"2027-07-09"}}))
	must(t, "SaveLoanRules", r.Schools.SaveLoanRules(ctx(t), s.ID, []library.LoanRule{{Patron: "grade:7", Category: library.CategoryStandard, LoanDays: 14, Renewals: 2}}))
	reads("SaveCalendar and SaveLoanRules after es", "es")

	set.Language = "ar"
	must(t, "SaveSettings ar", r.Schools.SaveSettings(ctx(t), s.ID, set))
	reads("SaveSettings with ar", "ar")
	set.Language = ""
	must(t, "SaveSettings none", r.Schools.SaveSettings(ctx(t), s.ID, set))
	reads("SaveSettings with none", "")
}
