package library

// LineError is one problem in an uploaded CSV file. Line is 1-based and
// counts every line of the file, the header's (line 1) and empty ones
// included, so it matches what a spreadsheet or editor shows. Field is the
// column's name, or empty when the problem is the row or the file.
type LineError struct {
	File    string // the file of a OneRoster upload; empty for one CSV file
	Line    int
	Field   string
	Message string
}
