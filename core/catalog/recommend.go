package catalog

import "time"

// HistoryEntry is one book in a reader's history, with how they relate to it.
type HistoryEntry struct {
	Book   Book
	Status ListStatus // Finished, CurrentlyReading or WantToRead
	At     time.Time  // when it was finished, last read or listed
}

// CandidateQuery asks the catalog for books worth scoring.
type CandidateQuery struct {
	Exclude []string // books never to recommend (finished or listed)
	Genres  []string // genres of the history
	Authors []string // authors of the history
	Level   string   // the reader's level
	Limit   int
}

// Recommendation is one suggested book with the concrete reason for it.
type Recommendation struct {
	Book       Book
	Reason     string
	Confidence float64 // in [0, 1]
}

// MaxRecommendations bounds the limit parameter (contract §4).
const (
	DefaultRecommendations = 10
	MaxRecommendations     = 50
)
