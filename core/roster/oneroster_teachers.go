package roster

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
)

// oneRosterHomeroomClass is a homeroom class as classes.csv lists it: its
// sourcedId and line.
type oneRosterHomeroomClass struct {
	id   string
	line int
}

// oneRosterClassTeacher is what a sync keeps of a homeroom class's teacher
// enrollments: the user of the first one by line, and of the first one
// marked primary.
type oneRosterClassTeacher struct {
	first, primary         string
	firstLine, primaryLine int
}

// teacher is the class's teacher and the line of its enrollment: the
// primary one, else the first.
func (c oneRosterClassTeacher) teacher() (string, int) {
	if c.primary != "" {
		return c.primary, c.primaryLine
	}
	return c.first, c.firstLine
}

// oneRosterTeacherRoom is a homeroom (one name, maybe several classes)
// whose teacher is read: its name as the first class spells it, that
// class's line, and the teacher enrollment of each class.
type oneRosterTeacherRoom struct {
	name    string
	line    int
	classes []oneRosterClassTeacher
}

// oneRosterTeacher is what a sync keeps of a user some homeroom names as
// its teacher.
type oneRosterTeacher struct {
	line        int
	role        string
	active      bool
	name, email string
}

// teacherEnrollment keeps a teacher enrollment of the homeroom class.
func (st *oneRosterRead) teacherEnrollment(class string, r rosterRecord) {
	id := r.cell("userSourcedId")
	if id == "" {
		return
	}
	c, seen := st.classTeacher[class]
	if !seen {
		class = strings.Clone(class)
	}
	if c.first == "" {
		c.first, c.firstLine = strings.Clone(id), r.line
	}
	if c.primary == "" && strings.EqualFold(r.cell("primary"), "true") {
		c.primary, c.primaryLine = strings.Clone(id), r.line
	}
	st.classTeacher[class] = c
}

// wantTeachers groups the homeroom classes that have a teacher enrolled by
// name, in classes.csv order, and marks their teachers for users.csv to
// be read for. A school's list holds at most library.MaxHomerooms rooms,
// so the homerooms past that many are not read (pastRoom names the
// first), which also bounds what users.csv keeps. A title that is no
// valid homeroom names no room: a student in it is refused anyway.
func (st *oneRosterRead) wantTeachers() {
	st.wantedTeachers = map[string]bool{}
	at := map[string]int{}
	for _, hc := range st.homeroomClasses {
		c, ok := st.classTeacher[hc.id]
		if !ok {
			continue
		}
		title := library.NormalizeClassField(st.homerooms[hc.id])
		if title == "" || library.ValidateHomeroom(title) != "" {
			continue
		}
		key := library.HomeroomKey(title)
		i, ok := at[key]
		if !ok {
			if len(st.teacherRooms) == library.MaxHomerooms {
				if st.pastRoom.name == "" {
					st.pastRoom = oneRosterTeacherRoom{name: title, line: hc.line}
				}
				continue
			}
			i = len(st.teacherRooms)
			at[key] = i
			st.teacherRooms = append(st.teacherRooms, oneRosterTeacherRoom{name: title, line: hc.line})
		}
		st.teacherRooms[i].classes = append(st.teacherRooms[i].classes, c)
		id, _ := c.teacher()
		st.wantedTeachers[id] = true
	}
}

// teacher keeps a users.csv row of a user some homeroom names as its
// teacher, whatever its role (checked in homeroomTeachers); the first row
// of a sourcedId counts.
func (st *oneRosterRead) teacher(r rosterRecord) {
	id := r.cell("sourcedId")
	if _, dup := st.teachers[id]; dup {
		return
	}
	st.teachers[strings.Clone(id)] = oneRosterTeacher{
		line:   r.line,
		role:   strings.Clone(r.cell("role")),
		active: strings.EqualFold(r.cell("enabledUser"), "true") && !strings.EqualFold(r.cell("status"), "tobedeleted"),
		name:   strings.Clone(strings.Join(strings.Fields(r.cell("givenName")+" "+r.cell("familyName")), " ")),
		email:  strings.Clone(user.NormalizeEmail(r.cell("email"))),
	}
}

// homeroomTeachers gives each homeroom read by wantTeachers its teacher:
// the one its classes' teachers agree on. A teacher who cannot be used
// (not in users.csv, not an enabled teacher, no valid email) passes the
// homeroom over, and so do classes of one name with different teachers
// (which is meant cannot be told); none of this refuses the students.
func (st *oneRosterRead) homeroomTeachers() HomeroomTeachers {
	out := HomeroomTeachers{}
	for _, room := range st.teacherRooms {
		var found []oneRosterTeacher
		why := ""
		for _, c := range room.classes {
			id, line := c.teacher()
			t, msg := st.usableTeacher(id, line)
			if msg != "" {
				if why == "" {
					why = msg
				}
				continue
			}
			if !slices.ContainsFunc(found, func(f oneRosterTeacher) bool { return f.email == t.email }) {
				found = append(found, t)
			}
		}
		switch len(found) {
		case 0:
			out.Skipped = append(out.Skipped, RosterHomeroomNote{Homeroom: room.name, Message: why})
		case 1:
			out.Rooms = append(out.Rooms, library.Homeroom{Name: room.name, TeacherName: found[0].name, TeacherEmail: found[0].email})
		default:
			out.Skipped = append(out.Skipped, RosterHomeroomNote{Homeroom: room.name, Message: fmt.Sprintf(
				"classes.csv has homeroom classes of this name with different teachers (%s, users.csv line %d, and %s, line %d); which one is meant cannot be told",
				found[0].name, found[0].line, found[1].name, found[1].line)})
		}
	}
	if st.pastRoom.name != "" {
		out.Skipped = append(out.Skipped, RosterHomeroomNote{Homeroom: st.pastRoom.name, Message: fmt.Sprintf(
			"not read: the roster names the teachers of more than %d homerooms, the most a school's list holds; this one (classes.csv line %d) and those after it were passed over",
			library.MaxHomerooms, st.pastRoom.line)})
	}
	slices.SortStableFunc(out.Rooms, func(a, b library.Homeroom) int { return library.CompareHomerooms(a.Name, b.Name) })
	SortHomeroomNotes(out.Skipped)
	return out
}

// usableTeacher is the teacher of sourcedId id, named by the enrollment
// on line, or why they cannot be a homeroom's teacher.
func (st *oneRosterRead) usableTeacher(id string, line int) (oneRosterTeacher, string) {
	t, ok := st.teachers[id]
	if !ok {
		return t, fmt.Sprintf("its teacher %q (enrollments.csv line %d) is not in users.csv", id, line)
	}
	who := t.name
	if who == "" {
		who = fmt.Sprintf("%q", id)
	}
	switch {
	case !strings.EqualFold(t.role, "teacher"):
		return t, fmt.Sprintf("its teacher %s (users.csv line %d) has the role %q, not teacher", who, t.line, t.role)
	case !t.active:
		return t, fmt.Sprintf("its teacher %s (users.csv line %d) is disabled or being deleted", who, t.line)
	case t.email == "":
		return t, fmt.Sprintf("its teacher %s (users.csv line %d) has no email", who, t.line)
	case user.ValidateEmail(t.email) != "":
		return t, fmt.Sprintf("its teacher %s (users.csv line %d) has no valid email", who, t.line)
	case utf8.RuneCountInString(t.name) > library.MaxHomeroomTeacherName:
		return t, fmt.Sprintf("its teacher's name (users.csv line %d) is longer than %d characters", t.line, library.MaxHomeroomTeacherName)
	}
	return t, ""
}
