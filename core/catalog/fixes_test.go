package catalog

import (
	"testing"
	"time"
)

func TestDerivedPercentageNeverFinishesEarly(t *testing.T) {
	b := Book{ID: "bk_x", Pages: 300, WordCount: 3000}
	p, s, err := ApplyProgress(b, Progress{}, ProgressUpdate{PageNumber: 299}, "a", "s", time.Now(), time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if p.Percentage != 99 || p.Completed() || s.Completed {
		t.Fatalf("page 299 of 300: percentage %v, completed %v; want 99 and not completed", p.Percentage, p.Completed())
	}
	p, _, _ = ApplyProgress(b, p, ProgressUpdate{PageNumber: 300}, "a", "s", time.Now(), time.UTC)
	if p.Percentage != 100 || !p.Completed() {
		t.Fatalf("last page: percentage %v, completed %v; want 100 and completed", p.Percentage, p.Completed())
	}
}

func TestCombiningMarksStayInTheirWord(t *testing.T) {
	tests := []struct {
		text  string
		count int
		words string
	}{
		{"re\u0301sume\u0301 done", 2, "resume done"}, // decomposed accents fold away
		{"résumé", 1, "resume"},
		{"हिन्दी भाषा", 2, "हिन्दी भाषा"}, // Devanagari signs are part of the letters
	}
	for _, tt := range tests {
		if got := CountWords(tt.text); got != tt.count {
			t.Errorf("CountWords(%q) = %d, want %d", tt.text, got, tt.count)
		}
		got := ""
		for i, w := range Words(tt.text) {
			if i > 0 {
				got += " "
			}
			got += w
		}
		if got != tt.words {
			t.Errorf("Words(%q) = %q, want %q", tt.text, got, tt.words)
		}
	}
}

func TestHugePageIsPastTheEnd(t *testing.T) {
	q, err := NewQuery(100000000000000000, 100, "", "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if s := q.Skip(); s < 1<<30 {
		t.Fatalf("Skip() = %d, want a huge non-negative skip (past the end)", s)
	}
}
