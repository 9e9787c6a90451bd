package library

// BookQuery selects one page of a school's books.
type BookQuery struct {
	SchoolID string
	// Terms are the folded words of a search (catalog.QueryTerms): each
	// must begin a word of the title or the author. None keeps every book.
	Terms  []string
	Offset int
	Limit  int
}

// StudentQuery selects one page of a school's students.
type StudentQuery struct {
	SchoolID string
	// Terms are the folded words of a search (catalog.QueryTerms): each
	// must begin a word of the name, the email or the student number. None
	// keeps every student.
	Terms []string
	// HomeroomKey, when not empty, keeps only the students of that class
	// (HomeroomKey of the homeroom asked for).
	HomeroomKey string
	Offset      int
	Limit       int
}
