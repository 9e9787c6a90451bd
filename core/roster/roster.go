package roster

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/user"
)

// MaxExternalID bounds a stable roster id (OneRoster sourcedIds are GUIDs
// or a district's own codes).
const MaxExternalID = 64

// ValidateExternalID checks a trimmed stable roster id: empty (none) or
// 1..64 printable characters without spaces. It returns the message, or "".
func ValidateExternalID(id string) string {
	if utf8.RuneCountInString(id) > MaxExternalID {
		return fmt.Sprintf("must be at most %d characters", MaxExternalID)
	}
	for _, r := range id {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return "must be printable text without spaces"
		}
	}
	return ""
}

// RosterStudent is one student in a roster report.
type RosterStudent struct {
	ID            string   `json:"id"`
	Line          int      `json:"line"`
	Name          string   `json:"name"`
	StudentNumber string   `json:"student_number"`
	ExternalID    string   `json:"external_id"`
	Grade         string   `json:"grade"`
	Homeroom      string   `json:"homeroom"`
	Changes       []string `json:"changes"`
}

// RosterConflict is a row a sync cannot apply: a student number the file
// gives one stable id and the school another, say.
type RosterConflict struct {
	Line          int    `json:"line"`
	StudentNumber string `json:"student_number"`
	ExternalID    string `json:"external_id"`
	Message       string `json:"message"`
}

// RosterReport is what a roster sync does, or would do: the students it
// adds, changes (reactivating is a change), and takes off the roll, and
// the rows it cannot apply. A sync with conflicts applies nothing. A
// OneRoster sync also sets the homerooms' teachers in the school's list
// (HomeroomTeachers), and says which homerooms' teachers it named but
// could not set (HomeroomsWithoutTeacher).
type RosterReport struct {
	Added                   []RosterStudent         `json:"added"`
	Changed                 []RosterStudent         `json:"changed"`
	Deactivated             []RosterStudent         `json:"deactivated"`
	Conflicts               []RosterConflict        `json:"conflicts"`
	Unchanged               int                     `json:"unchanged"`
	HomeroomTeachers        []RosterHomeroomTeacher `json:"homeroom_teachers"`
	HomeroomsWithoutTeacher []RosterHomeroomNote    `json:"homerooms_without_teacher"`
}

// UnmarshalJSON reads a report as stored (a job's outcome), one stored
// before it had the homerooms' lists too: those read as empty lists, as a
// report made now has them.
func (r *RosterReport) UnmarshalJSON(b []byte) error {
	type plain RosterReport
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	if p.HomeroomTeachers == nil {
		p.HomeroomTeachers = []RosterHomeroomTeacher{}
	}
	if p.HomeroomsWithoutTeacher == nil {
		p.HomeroomsWithoutTeacher = []RosterHomeroomNote{}
	}
	*r = RosterReport(p)
	return nil
}

// RosterPlan is a report and the accounts that carry it out: Changed
// holds each changed student as it will be stored (deactivated ones
// included), Before the same students as stored now.
type RosterPlan struct {
	Report  RosterReport
	Added   []StudentDraft
	Changed []user.Account
	Before  []user.Account
}

// RosterOptions say what a sync may do: Full takes every student the file
// does not list off the roll; HasGrade, HasHomeroom and HasGuardians say
// whether the file gives those columns (a column left out keeps what is
// stored). A file with guardians gives every listed student's: a student
// it lists without any loses the stored ones.
type RosterOptions struct {
	Full, HasGrade, HasHomeroom, HasGuardians bool
}

// PlanRoster matches each row to a student of the school (existing: every
// student that is not deleted, active or not) by its stable id, or when
// the row or the student has none, by student number, and works out what
// changes. A row without a stable id must have a student number (the
// caller checks). An empty email in the file keeps the stored one, and
// guardians are replaced only when opt.HasGuardians. A
// student number is never changed: a row that would change one, or give a
// student's number to another id, is a conflict.
func PlanRoster(existing []user.Account, drafts []StudentDraft, opt RosterOptions, now time.Time) RosterPlan {
	byExt, byNumber := map[string]int{}, map[string]int{}
	for i, a := range existing {
		if a.ExternalID != "" {
			byExt[a.ExternalID] = i
		}
		if a.StudentNumber != "" {
			byNumber[strings.ToLower(a.StudentNumber)] = i
		}
	}
	p := RosterPlan{Report: RosterReport{Added: []RosterStudent{}, Changed: []RosterStudent{}, Deactivated: []RosterStudent{}, Conflicts: []RosterConflict{},
		HomeroomTeachers: []RosterHomeroomTeacher{}, HomeroomsWithoutTeacher: []RosterHomeroomNote{}}}
	listed := make([]bool, len(existing))
	for _, d := range drafts {
		i, conflict := matchRosterRow(existing, byExt, byNumber, d)
		if i >= 0 {
			// Listed, even in conflict: a full sync does not retire them.
			listed[i] = true
		}
		if conflict != "" {
			p.Report.Conflicts = append(p.Report.Conflicts, RosterConflict{Line: d.Line, StudentNumber: d.StudentNumber, ExternalID: d.ExternalID, Message: conflict})
			continue
		}
		if i < 0 {
			if !d.Inactive {
				p.Added = append(p.Added, d)
				p.Report.Added = append(p.Report.Added, RosterStudent{Line: d.Line, Name: d.Name, StudentNumber: d.StudentNumber,
					ExternalID: d.ExternalID, Grade: d.Grade, Homeroom: d.Homeroom, Changes: []string{}})
			}
			continue
		}
		before := existing[i]
		after, changes := applyRosterRow(before, d, opt)
		if len(changes) == 0 {
			p.Report.Unchanged++
			continue
		}
		after.UpdatedAt = now.UTC()
		p.Changed, p.Before = append(p.Changed, after), append(p.Before, before)
		rs := rosterStudentOf(after)
		rs.Line = d.Line
		if d.Inactive && !before.Inactive {
			p.Report.Deactivated = append(p.Report.Deactivated, rs)
			continue
		}
		rs.Changes = changes
		p.Report.Changed = append(p.Report.Changed, rs)
	}
	if opt.Full {
		for i, a := range existing {
			if listed[i] || a.Inactive {
				continue
			}
			after := a
			after.Inactive, after.UpdatedAt = true, now.UTC()
			p.Changed, p.Before = append(p.Changed, after), append(p.Before, a)
			p.Report.Deactivated = append(p.Report.Deactivated, rosterStudentOf(a))
		}
	}
	return p
}

func rosterStudentOf(a user.Account) RosterStudent {
	return RosterStudent{ID: a.ID, Name: a.Name, StudentNumber: a.StudentNumber, ExternalID: a.ExternalID, Grade: a.Grade, Homeroom: a.Homeroom,
		Changes: []string{}}
}

// matchRosterRow finds the student a row is (-1 for a new one or none),
// and says why the row conflicts with the school's students, if it does.
func matchRosterRow(existing []user.Account, byExt, byNumber map[string]int, d StudentDraft) (int, string) {
	numbered, hasNumber := byNumber[strings.ToLower(d.StudentNumber)]
	hasNumber = hasNumber && d.StudentNumber != ""
	if d.ExternalID != "" {
		if i, ok := byExt[d.ExternalID]; ok {
			a := existing[i]
			switch {
			case hasNumber && numbered != i:
				return i, fmt.Sprintf("student number %s belongs to %s (external id %q), not to external id %q", d.StudentNumber, existing[numbered].Name, existing[numbered].ExternalID, d.ExternalID)
			case d.StudentNumber != "" && a.StudentNumber != "" && !strings.EqualFold(a.StudentNumber, d.StudentNumber):
				return i, fmt.Sprintf("external id %q has the student number %s here, not %s; student numbers are not changed by a sync", d.ExternalID, a.StudentNumber, d.StudentNumber)
			}
			return i, ""
		}
		if hasNumber {
			if a := existing[numbered]; a.ExternalID != "" {
				return -1, fmt.Sprintf("one student number for two ids: %s is %s's, whose external id is %q, not %q", d.StudentNumber, a.Name, a.ExternalID, d.ExternalID)
			}
			return numbered, ""
		}
		return -1, ""
	}
	if hasNumber {
		return numbered, ""
	}
	return -1, ""
}

// applyRosterRow returns the student as the row makes them and the
// changes, each as "field: before → after".
func applyRosterRow(a user.Account, d StudentDraft, opt RosterOptions) (user.Account, []string) {
	var changes []string
	set := func(field string, dst *string, v string) {
		if *dst != v {
			changes = append(changes, fmt.Sprintf("%s: %q → %q", field, *dst, v))
			*dst = v
		}
	}
	set("name", &a.Name, d.Name)
	if d.Email != "" {
		set("email", &a.Email, d.Email)
	}
	if d.StudentNumber != "" {
		set("student_number", &a.StudentNumber, d.StudentNumber)
	}
	if d.ExternalID != "" {
		set("external_id", &a.ExternalID, d.ExternalID)
	}
	if opt.HasGrade {
		set("grade", &a.Grade, d.Grade)
	}
	if opt.HasHomeroom {
		set("homeroom", &a.Homeroom, d.Homeroom)
	}
	// Compared normalised: a stored list that differs only in case or
	// spacing is no change.
	if opt.HasGuardians {
		want, _ := normalizeGuardians(d.Guardians)
		if stored, _ := normalizeGuardians(a.Guardians); !slices.Equal(want, stored) {
			changes = append(changes, "guardians")
			a.Guardians = want
		}
	}
	switch {
	case d.Inactive && !a.Inactive:
		changes = append(changes, "deactivated")
	case !d.Inactive && a.Inactive:
		changes = append(changes, "reactivated")
	}
	a.Inactive = d.Inactive
	return a, changes
}

// gradeLevel reads a grade as its place in the school years: Pre-K -1,
// Kindergarten or Reception 0, then 1..13 ("7", "07", "Grade 7", "Year
// 7", "Y7", "Gr 7"). The style is how its successor is spelt.
type gradeLevel struct {
	level  int
	prefix string // "", "Grade ", "Year "... kept as written
	width  int    // 2 for OneRoster's "07"
}

var gradeNumber = regexp.MustCompile(`^(?i)((?:grade|year|gr\.?|yr\.?|y)\s*)?(\d{1,2})$`)

// parseGrade reads a grade; ok is false for one it cannot place.
func parseGrade(g string) (gradeLevel, bool) {
	switch strings.ToLower(strings.TrimSpace(g)) {
	case "pk", "pre-k", "prek", "pre-kindergarten", "nursery":
		return gradeLevel{level: -1}, true
	case "k", "kg", "kindergarten", "reception", "r":
		return gradeLevel{level: 0}, true
	}
	m := gradeNumber.FindStringSubmatch(strings.TrimSpace(g))
	if m == nil {
		return gradeLevel{}, false
	}
	n, _ := strconv.Atoi(m[2])
	if n < 1 || n > 13 {
		return gradeLevel{}, false
	}
	width := 1
	if m[2][0] == '0' {
		width = 2 // OneRoster's "07"
	}
	return gradeLevel{level: n, prefix: m[1], width: width}, true
}

// spell writes level n in the style of g.
func (g gradeLevel) spell(n int) string {
	if g.width == 2 {
		return g.prefix + fmt.Sprintf("%02d", n)
	}
	return g.prefix + strconv.Itoa(n)
}

// RolloverPlan is what a year-end rollover does: each active student with
// a grade it can read moves up one, those in the leaving grade (or above)
// go off the roll, and the rest are reported untouched.
type RolloverPlan struct {
	SchoolYear   string          `json:"school_year"`
	LeavingGrade string          `json:"leaving_grade"`
	Promoted     []RosterStudent `json:"promoted"`
	Leaving      []RosterStudent `json:"leaving"`
	Unreadable   []RosterStudent `json:"unreadable"`
	Changed      []user.Account  `json:"-"`
	Before       []user.Account  `json:"-"`
}

// ValidSchoolYear reports whether y names a school year: "2026", or
// "2025-2026" / "2025-26" with the second year the next.
func ValidSchoolYear(y string) bool {
	if m, _ := regexp.MatchString(`^\d{4}$`, y); m {
		return true
	}
	parts := strings.Split(y, "-")
	if len(parts) != 2 || len(parts[0]) != 4 {
		return false
	}
	a, err1 := strconv.Atoi(parts[0])
	b, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return (len(parts[1]) == 4 && b == a+1) || (len(parts[1]) == 2 && b == (a+1)%100)
}

// PlanRollover works out the year-end rollover of the school's students.
// leaving names the grade that leaves ("" for the highest grade any
// active student is in); ok is false when leaving is given and cannot be
// read.
func PlanRollover(students []user.Account, schoolYear, leaving string, now time.Time) (RolloverPlan, bool) {
	p := RolloverPlan{SchoolYear: schoolYear, Promoted: []RosterStudent{}, Leaving: []RosterStudent{}, Unreadable: []RosterStudent{}}
	top := -2
	if leaving != "" {
		g, ok := parseGrade(leaving)
		if !ok {
			return p, false
		}
		top = g.level
	} else {
		for _, a := range students {
			if g, ok := parseGrade(a.Grade); ok && !a.Inactive && g.level > top {
				top, leaving = g.level, a.Grade
			}
		}
	}
	p.LeavingGrade = leaving
	style := dominantGradeStyle(students)
	for _, a := range students {
		if a.Inactive {
			continue
		}
		g, ok := parseGrade(a.Grade)
		if !ok {
			p.Unreadable = append(p.Unreadable, rosterStudentOf(a))
			continue
		}
		after := a
		after.UpdatedAt = now.UTC()
		if g.level >= top {
			after.Inactive = true
			p.Leaving = append(p.Leaving, rosterStudentOf(a))
		} else {
			after.Grade = nextGrade(a.Grade, g, style)
			rs := rosterStudentOf(after)
			rs.Changes = []string{fmt.Sprintf("grade: %q → %q", a.Grade, after.Grade)}
			p.Promoted = append(p.Promoted, rs)
		}
		p.Changed, p.Before = append(p.Changed, after), append(p.Before, a)
	}
	return p, true
}

// nextGrade spells the grade after g: Pre-K's is K, and Kindergarten's
// or Reception's is 1 spelt like most of the school's numbered grades
// (Reception's "Year 1" when the school has none).
func nextGrade(grade string, g, style gradeLevel) string {
	switch {
	case g.level < 0:
		return "K"
	case g.level == 0 && style.prefix == "" && style.width == 0 && strings.EqualFold(strings.TrimSpace(grade), "reception"):
		return "Year 1"
	case g.level == 0:
		return style.spell(1)
	}
	return g.spell(g.level + 1)
}

// dominantGradeStyle is how most of the school's numbered grades are
// spelt, for the grade after Kindergarten.
func dominantGradeStyle(students []user.Account) gradeLevel {
	count := map[gradeLevel]int{}
	for _, a := range students {
		if g, ok := parseGrade(a.Grade); ok && g.level >= 1 {
			count[gradeLevel{prefix: g.prefix, width: g.width}]++
		}
	}
	best, n := gradeLevel{}, 0
	keys := make([]gradeLevel, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b gradeLevel) int { return strings.Compare(a.prefix, b.prefix) })
	for _, k := range keys {
		if count[k] > n {
			best, n = k, count[k]
		}
	}
	return best
}

// RosterChange is what a roster sync or a rollover stores (see
// ports.StudentRepository.ApplyRoster).
type RosterChange struct {
	SchoolID string
	Add      []user.Account
	Changed  []user.Account
	Before   []user.Account
	Rollover *Rollover
}

// Rollover records a school's year-end rollover: once per school year.
type Rollover struct {
	SchoolID     string
	SchoolYear   string
	LeavingGrade string
	Promoted     int
	Left         int
	At           time.Time
}

// ErrRolloverNotFound is returned when a school has not rolled over a
// school year.
func ErrRolloverNotFound() error {
	return errs.E(errs.NotFound, errs.CodeRolloverNotFound, "The school has not rolled over this school year.")
}
