package user

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Password rules for every new password, whoever sets it (NIST SP 800-63B
// 5.1.1.2): at least MinPasswordLength characters with no composition rule
// and no truncation; refused when it is a common or breached password or
// an obvious variation of one, a repetition, built of keyboard walks and
// runs of characters, or when it contains the person's name or the local
// part of their email. MaxPasswordLength only keeps hashing cheap to refuse.
//
// The check is a list and a few rules of this package rather than a zxcvbn
// port. The Go ports are either unmaintained (trustelem/zxcvbn, last
// release 2019; nbutton23/zxcvbn-go, 2021) or a fork of an early port with
// its own scoring (ccojocar/zxcvbn-go, kept up to date); all carry about
// 30,000 passwords, below the breached list here; their matching grows
// faster than the password (a 1,024-character one took 39 s with each of
// them, 0.7 s at 256), so every sign-up would need a cut-off; and their
// dictionaries load at start. The list here is 114,549 breached and common
// passwords checked by binary search, and walks, runs and repeats are
// estimated in one pass over the password (patterns.go): microseconds, in
// proportion to the length.
const (
	MinPasswordLength = 10
	MaxPasswordLength = 1024
)

// The reasons a new password is refused, as the field message of a 422.
// None of them repeats the password.
const (
	PasswordRequired  = "is required"
	PasswordTooShort  = "must be at least 10 characters"
	PasswordTooLong   = "must be at most 1024 bytes"
	PasswordTooCommon = "is too common or too easy to guess; choose a longer phrase of unrelated words"
	PasswordHasName   = "must not contain your name"
	PasswordHasEmail  = "must not contain your email address"
)

// minContextTokenRunes is the shortest part of a name or an email a
// password may not contain; shorter ones are too common inside other words.
const minContextTokenRunes = 3

// ValidateNewPassword applies the password rules to a password that is
// about to be set for the account with email and name (either may be
// empty). It returns "" when the password may be used, else why not. It
// hashes nothing and costs a few microseconds, so it runs before anything
// is hashed or stored.
func ValidateNewPassword(password, email, name string) string {
	switch {
	case password == "":
		return PasswordRequired
	case len(password) > MaxPasswordLength:
		return PasswordTooLong
	case utf8.RuneCountInString(password) < MinPasswordLength:
		return PasswordTooShort
	}
	lower := strings.ToLower(password)
	folded := unleet(lower)
	if containsAny(lower, folded, nameTokens(name)) {
		return PasswordHasName
	}
	if containsAny(lower, folded, emailTokens(email)) {
		return PasswordHasEmail
	}
	if guessable(lower, folded) {
		return PasswordTooCommon
	}
	return ""
}

// guessable reports whether the lowercased password p or its look-alike
// spelling folded is a listed common password, one with a few digits or
// symbols around it ("password2024!"), a repetition ("abcabcabca"), or
// built of keyboard walks, runs and repeats ("1qaz2wsx3edc", "0987654321";
// patterns.go).
func guessable(p, folded string) bool {
	for _, c := range [...]string{p, folded} {
		if isCommonPassword(c) || periodic(c) || patterned(c) {
			return true
		}
		base := trimAffixes(c)
		if base != c && utf8.RuneCountInString(base) >= 4 && (isCommonPassword(base) || periodic(base) || onePattern(base)) {
			return true
		}
	}
	return false
}

// maxAffixRunes bounds the digits and symbols stripped from either end of a
// password before the rest is looked up: a year or "123!" is the usual
// decoration of a common word; a long run of digits is not.
const maxAffixRunes = 6

// trimAffixes removes a short run of digits and symbols from each end of p.
func trimAffixes(p string) string {
	notLetter := func(r rune) bool { return !unicode.IsLetter(r) }
	return trimRun(trimRun(p, notLetter, false), notLetter, true)
}

// trimRun removes the run of runes matching f at the end (or the start
// when front is set) of s, when it is at most maxAffixRunes long.
func trimRun(s string, f func(rune) bool, front bool) string {
	var rest string
	if front {
		rest = strings.TrimLeftFunc(s, f)
	} else {
		rest = strings.TrimRightFunc(s, f)
	}
	if utf8.RuneCountInString(s)-utf8.RuneCountInString(rest) > maxAffixRunes {
		return s
	}
	return rest
}

// periodic reports whether p repeats a unit at most half its length
// ("aaaaaaaaaa", "abcabcabca", "passwordpassword").
func periodic(p string) bool {
	r := []rune(p)
	for period := 1; period <= len(r)/2; period++ {
		repeats := true
		for i := period; i < len(r); i++ {
			if r[i] != r[i-period] {
				repeats = false
				break
			}
		}
		if repeats {
			return true
		}
	}
	return false
}

// leet maps the usual look-alike substitutions back to their letters, so
// "P@ssw0rd2024" is judged as "password2024".
var leet = strings.NewReplacer("0", "o", "1", "i", "3", "e", "4", "a", "5", "s", "7", "t", "@", "a", "$", "s", "!", "i", "+", "t")

// unleet undoes look-alike substitutions between the first and the last
// letter of p, and of a "$" or "@" just before or after them ("$unsh1ne").
// Digits and symbols outside stay as they are: in "sunshine123" they are a
// suffix, not letters.
func unleet(p string) string {
	first := strings.IndexFunc(p, unicode.IsLetter)
	if first < 0 {
		return p
	}
	last := strings.LastIndexFunc(p, unicode.IsLetter)
	_, n := utf8.DecodeRuneInString(p[last:])
	last += n
	if r, n := utf8.DecodeRuneInString(p[last:]); r == '$' || r == '@' {
		last += n
	}
	if first > 0 && (p[first-1] == '$' || p[first-1] == '@') {
		first--
	}
	return p[:first] + leet.Replace(p[first:last]) + p[last:]
}

// containsAny reports whether either spelling of the password contains one
// of tokens.
func containsAny(lower, folded string, tokens []string) bool {
	for _, t := range tokens {
		if strings.Contains(lower, t) || strings.Contains(folded, t) {
			return true
		}
	}
	return false
}

// nameTokens are the parts of a name a password must not contain: each word
// of it and the whole name without its spaces, lowercased.
func nameTokens(name string) []string {
	return contextTokens(strings.TrimSpace(name))
}

// emailTokens are the parts of an email a password must not contain: its
// local part whole and each word of it ("jane.smith+library" gives
// "jane.smith+library", "jane", "smith" and "library").
func emailTokens(email string) []string {
	local, _, found := strings.Cut(NormalizeEmail(email), "@")
	if !found {
		return nil
	}
	return contextTokens(local)
}

func contextTokens(s string) []string {
	s = strings.ToLower(s)
	words := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	tokens := make([]string, 0, len(words)+2)
	add := func(t string) {
		if utf8.RuneCountInString(t) >= minContextTokenRunes {
			tokens = append(tokens, t)
		}
	}
	add(s)
	add(strings.Join(words, ""))
	for _, w := range words {
		add(w)
	}
	return tokens
}

// commonPasswordsGz is the list of common and breached passwords: the
// 100,000 passwords seen most often in breaches (the UK National Cyber
// Security Centre's PwnedPasswordsTop100k, from Have I Been Pwned; Open
// Government Licence v3.0) and the 46,983 of zxcvbn's list (MIT licence,
// Copyright (c) 2012-2016 Dan Wheeler and Dropbox, Inc.) of four
// characters or more, lowercased: 114,549 entries, sorted bytewise, one per
// line, gzipped (313 KB for 964 KB). commonpasswords.md says how it is made.
//
//go:embed commonpasswords.txt.gz
var commonPasswordsGz []byte

// commonPasswords is the list, unpacked at its first use and kept: about
// 1 MB, searched in place.
var commonPasswords = sync.OnceValue(func() string {
	r, err := gzip.NewReader(bytes.NewReader(commonPasswordsGz))
	if err != nil {
		panic("user: the embedded password list does not unpack: " + err.Error())
	}
	b, err := io.ReadAll(r)
	if err != nil {
		panic("user: the embedded password list does not unpack: " + err.Error())
	}
	return string(b)
})

// isCommonPassword reports whether p is a line of commonPasswords, by
// binary search over the sorted text.
func isCommonPassword(p string) bool {
	commonPasswords := commonPasswords()
	lo, hi := 0, len(commonPasswords)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		// The line that holds byte mid.
		start := strings.LastIndexByte(commonPasswords[:mid], '\n') + 1
		end := strings.IndexByte(commonPasswords[mid:], '\n')
		if end < 0 {
			end = len(commonPasswords)
		} else {
			end += mid
		}
		switch line := commonPasswords[start:end]; {
		case line == p:
			return true
		case line < p:
			lo = end + 1
		default:
			hi = start
		}
	}
	return false
}
