package roster

import (
	"fmt"
	"slices"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
)

// HomeroomTeachers are the teachers a roster names for its homerooms.
type HomeroomTeachers struct {
	// Rooms are the homerooms with a teacher the school's list can take
	// (SchoolID unset), one per name, in library.CompareHomerooms order.
	Rooms []library.Homeroom
	// Skipped are the homerooms whose teacher the roster names but that
	// cannot be taken, each with why, in the same order.
	Skipped []RosterHomeroomNote
}

// The changes a sync makes to a room of the school's list of homerooms.
const (
	HomeroomAdded   = "added"
	HomeroomChanged = "changed"
)

// RosterHomeroomTeacher is a homeroom whose teacher a sync sets in the
// school's list: a room added to the list, or one whose teacher changed.
type RosterHomeroomTeacher struct {
	Homeroom     string `json:"homeroom"`
	TeacherName  string `json:"teacher_name"`
	TeacherEmail string `json:"teacher_email"`
	Change       string `json:"change"`
}

// RosterHomeroomNote is a homeroom whose teacher the roster names and the
// sync does not set, and why.
type RosterHomeroomNote struct {
	Homeroom string `json:"homeroom"`
	Message  string `json:"message"`
}

// PlanHomeroomTeachers merges the teachers of t into a school's list of
// homerooms: a room of the list with the same name (library.HomeroomKey)
// takes the roster's teacher, keeping its spelling; a room the list lacks
// is added while the list has fewer than library.MaxHomerooms, in t's
// order; the rooms t does not name stay as they are. It returns the list
// to store (nil when nothing changes), the changes, and the homerooms
// whose teacher is not set: t.Skipped and the rooms the list had no place
// for, by name.
func PlanHomeroomTeachers(list []library.Homeroom, t HomeroomTeachers) ([]library.Homeroom, []RosterHomeroomTeacher, []RosterHomeroomNote) {
	changes := []RosterHomeroomTeacher{}
	notes := append([]RosterHomeroomNote{}, t.Skipped...)
	merged := slices.Clone(list)
	at := make(map[string]int, len(merged))
	for i, r := range merged {
		at[library.HomeroomKey(r.Name)] = i
	}
	for _, r := range t.Rooms {
		if i, ok := at[library.HomeroomKey(r.Name)]; ok {
			cur := &merged[i]
			if cur.TeacherName == r.TeacherName && user.NormalizeEmail(cur.TeacherEmail) == r.TeacherEmail {
				continue
			}
			cur.TeacherName, cur.TeacherEmail = r.TeacherName, r.TeacherEmail
			changes = append(changes, RosterHomeroomTeacher{Homeroom: cur.Name, TeacherName: r.TeacherName, TeacherEmail: r.TeacherEmail, Change: HomeroomChanged})
			continue
		}
		if len(merged) >= library.MaxHomerooms {
			notes = append(notes, RosterHomeroomNote{Homeroom: r.Name, Message: fmt.Sprintf(
				"not added: the school's list of homerooms is full (%d rooms); its teacher in the roster is %s", library.MaxHomerooms, teacherOf(r))})
			continue
		}
		at[library.HomeroomKey(r.Name)] = len(merged)
		merged = append(merged, r)
		changes = append(changes, RosterHomeroomTeacher{Homeroom: r.Name, TeacherName: r.TeacherName, TeacherEmail: r.TeacherEmail, Change: HomeroomAdded})
	}
	SortHomeroomNotes(notes)
	if len(changes) == 0 {
		return nil, changes, notes
	}
	slices.SortStableFunc(merged, func(a, b library.Homeroom) int { return library.CompareHomerooms(a.Name, b.Name) })
	return merged, changes, notes
}

// teacherOf names a room's teacher, with the address.
func teacherOf(r library.Homeroom) string {
	if r.TeacherName == "" {
		return r.TeacherEmail
	}
	return r.TeacherName + " <" + r.TeacherEmail + ">"
}

// SortHomeroomNotes orders notes by homeroom (library.CompareHomerooms).
func SortHomeroomNotes(notes []RosterHomeroomNote) {
	slices.SortStableFunc(notes, func(a, b RosterHomeroomNote) int { return library.CompareHomerooms(a.Homeroom, b.Homeroom) })
}
