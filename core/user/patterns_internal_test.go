package user

import (
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"
)

// The embedded list holds at least 100,000 lowercased entries of four
// characters or more, sorted bytewise without repeats, so that the binary
// search finds every one of them.
func TestCommonPasswordList(t *testing.T) {
	list := strings.Split(strings.TrimSuffix(commonPasswords(), "\n"), "\n")
	if len(list) < 100_000 {
		t.Fatalf("%d entries, want at least 100,000", len(list))
	}
	for i, p := range list {
		if utf8.RuneCountInString(p) < 4 || strings.ToLower(p) != p {
			t.Fatalf("entry %d %q: want lowercase, four characters or more", i, p)
		}
		if i > 0 && list[i-1] >= p {
			t.Fatalf("entries %d and %d (%q, %q) are not in ascending byte order", i-1, i, list[i-1], p)
		}
		if i%997 == 0 && !isCommonPassword(p) {
			t.Fatalf("entry %d %q is not found", i, p)
		}
	}
	for _, p := range []string{"0987654321", "spongebob1", "qazwsx", "password"} {
		if !isCommonPassword(p) {
			t.Errorf("%q is not found", p)
		}
	}
	for _, p := range []string{"", "zaq12wsxcde", "maple reading hour 7", "zzqpmwvx", "qpzmwnxb"} {
		if isCommonPassword(p) {
			t.Errorf("%q is found", p)
		}
	}
}

// Keyboard walks, runs and repeats are refused by the pattern rules alone:
// none of these is listed.
func TestPatternsCatchWhatTheListMisses(t *testing.T) {
	for _, p := range []string{
		"zaq12wsxcde", "mnbvcxzlkj", "!qaz@wsx#edc$rfv", "poiuytrewqlkjh", "mjunhybgtvfr", "ytrewqasdfgh",
		"acegikmoqsuw", "9876543210zyx", "abcdefg1234567", "aaabbbcccddd", "asdfjkl;asdf",
	} {
		if isCommonPassword(p) {
			t.Errorf("%q is listed; pick a pattern the list misses", p)
		}
		if !patterned(p) {
			t.Errorf("patterned(%q) = false (%.1f bits), want true", p, patternBits(p, 100))
		}
	}
}

// Passwords drawn at random are not patterns: of 5,000 of ten characters
// (letters, digits and symbols; lowercase letters) none is refused, and of
// ten digits, only those that happen to hold long walks or runs (at most
// 3%).
func TestRandomPasswordsAreNotPatterns(t *testing.T) {
	rng := rand.New(rand.NewSource(2026))
	for _, tt := range []struct {
		name, chars string
		most        int
	}{
		{"Mixed", "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!@#$%^&*", 0},
		{"Lowercase", "abcdefghijklmnopqrstuvwxyz", 0},
		{"Digits", "0123456789", 150},
	} {
		refused := 0
		for range 5000 {
			b := make([]byte, 10)
			for i := range b {
				b[i] = tt.chars[rng.Intn(len(tt.chars))]
			}
			if p := strings.ToLower(string(b)); patterned(p) || patterned(unleet(p)) {
				refused++
			}
		}
		if refused > tt.most {
			t.Errorf("%s: %d of 5,000 random passwords refused as patterns, want at most %d", tt.name, refused, tt.most)
		}
	}
}
