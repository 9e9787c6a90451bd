package user

import "math"

// Keyboard walks, runs and repeats: the patterns a guesser tries right
// after the lists of common passwords, in the way zxcvbn estimates them but
// with a handful of rules instead of its dictionaries and search. A
// password is cut, from the left, into the longest pieces that are one of
//
//   - a walk of at least three keys on one keyboard, each next to the one
//     before (QWERTY, QWERTZ, AZERTY, Dvorak, the numeric keypad; shifted
//     keys count as their key: "!QAZ@wsx"),
//   - a run of at least three characters with one step of at most five
//     ("abcdef", "97531", "aaaa"),
//
// and single characters. A guesser pays for a piece the choice of its
// first character, of its kind and direction, and of its length; for a
// piece shaped like the one before it ("qaz" then "wsx", "147" then "258")
// hardly anything; for a single character the size of its class. A
// password whose pieces cost fewer than guessableBits in all is refused.

// guessableBits is the least estimated cost, in bits, of a password built
// of patterns: 10^8 guesses, where zxcvbn's "safely unguessable" begins.
var guessableBits = math.Log2(1e8)

const (
	minPatternRunes   = 3   // a shorter walk or run is just characters
	patternChoiceBits = 3.0 // which kind of piece, keyboard and direction
	sameShapeBits     = 2.0 // the piece repeats the shape of the one before
	turnBits          = 2.0 // a walk changes direction: one of a key's few neighbours
	maxRunStep        = 5
)

// keyPos is where a key sits: its row from the top, and its distance from
// the left edge in key widths (rows are staggered on a typewriter keyboard).
type keyPos struct {
	row int
	x   float64
}

// keyboard maps each character to the key that types it.
type keyboard struct {
	keys map[rune]keyPos
	// grid: keys sit in columns (a keypad), so diagonal keys are
	// neighbours too; on a staggered keyboard a key touches two keys of
	// the row above and two of the row below.
	grid bool
}

// keyRow is a row of keys: its left edge in key widths and the characters
// its keys type without and with shift, key by key.
type keyRow struct {
	offset         float64
	plain, shifted string
}

func newKeyboard(grid bool, rows ...keyRow) keyboard {
	k := keyboard{keys: map[rune]keyPos{}, grid: grid}
	for i, r := range rows {
		for _, chars := range []string{r.plain, r.shifted} {
			col := 0
			for _, c := range chars {
				if _, ok := k.keys[c]; !ok && c != ' ' {
					k.keys[c] = keyPos{row: i, x: r.offset + float64(col)}
				}
				col++
			}
		}
	}
	return k
}

// keyboards are the layouts whose walks a guesser tries. Passwords are
// lowercased before they are looked at, so the shifted rows matter for
// their symbols.
var keyboards = []keyboard{
	newKeyboard(false, // QWERTY
		keyRow{0, "`1234567890-=", "~!@#$%^&*()_+"},
		keyRow{1.5, "qwertyuiop[]\\", "qwertyuiop{}|"},
		keyRow{1.75, "asdfghjkl;'", "asdfghjkl:\""},
		keyRow{2.25, "zxcvbnm,./", "zxcvbnm<>?"}),
	newKeyboard(false, // QWERTZ
		keyRow{0, "^1234567890ß´", "°!\"§$%&/()=?`"},
		keyRow{1.5, "qwertzuiopü+", "qwertzuiopü*"},
		keyRow{1.75, "asdfghjklöä#", "asdfghjklöä'"},
		keyRow{1.25, "<yxcvbnm,.-", ">yxcvbnm;:_"}),
	newKeyboard(false, // AZERTY
		keyRow{0, "²&é\"'(-è_çà)=", "²1234567890°+"},
		keyRow{1.5, "azertyuiop^$", "azertyuiop¨£"},
		keyRow{1.75, "qsdfghjklmù*", "qsdfghjklm%µ"},
		keyRow{1.25, "<wxcvbn,;:!", ">wxcvbn?./§"}),
	newKeyboard(false, // Dvorak
		keyRow{0, "`1234567890[]", "~!@#$%^&*(){}"},
		keyRow{1.5, "',.pyfgcrl/=\\", "\"<>pyfgcrl?+|"},
		keyRow{1.75, "aoeuidhtns-", "aoeuidhtns_"},
		keyRow{2.25, ";qjkxbmwvz", ":qjkxbmwvz"}),
	newKeyboard(true, // the numeric keypad
		keyRow{1, "/*-", "/*-"},
		keyRow{0, "789+", "789+"},
		keyRow{0, "456", "456"},
		keyRow{0, "123", "123"},
		keyRow{0, "0 .", "0 ."}),
}

// neighbours reports whether keys a and b touch on k.
func (k keyboard) neighbours(a, b keyPos) bool {
	dx := math.Abs(a.x - b.x)
	switch dr := a.row - b.row; {
	case dr == 0:
		return dx == 1
	case dr == 1 || dr == -1:
		if k.grid {
			return dx <= 1
		}
		return dx < 1
	}
	return false
}

// shape tells pieces apart for the discount of a piece shaped like the
// one before: a digest of the kind of piece, its keyboard and its moves
// (or its step). Two different shapes that share a digest only make a
// password look a little more guessable than it is.
type shape uint64

// noShape is the shape of a single character: never repeated.
const noShape shape = 0

// fnv-1a, folded over one byte at a time.
const (
	shapeBasis shape = 14695981039346656037
	shapePrime shape = 1099511628211
)

func (s shape) with(b byte) shape { return (s ^ shape(b)) * shapePrime }

// walk returns how many runes of r from the first form a walk on k, the
// walk's shape and its turns (changes of direction). A move is a row step
// and a column step.
func (k keyboard) walk(r []rune, board byte) (n int, sh shape, turns int) {
	prev, ok := k.keys[r[0]]
	if !ok {
		return 1, noShape, 0
	}
	n, sh = 1, shapeBasis.with('w').with(board)
	var last [2]int
	for _, c := range r[1:] {
		next, ok := k.keys[c]
		if !ok || !k.neighbours(prev, next) {
			break
		}
		dx := next.x - prev.x
		if !k.grid && next.row != prev.row {
			// Down a staggered column the steps alternate between a
			// quarter and a half key to the right: one direction.
			dx = math.Copysign(0.5, dx)
		}
		move := [2]int{next.row - prev.row, int(4 * dx)}
		if n > 1 && move != last {
			turns++
		}
		sh = sh.with(byte(move[0] + 8)).with(byte(move[1] + 8))
		last, prev = move, next
		n++
	}
	return n, sh, turns
}

// run returns how many runes of r from the first go up or down by one step
// of at most maxRunStep (or repeat), and its shape.
func run(r []rune) (n int, sh shape) {
	if len(r) < 2 {
		return len(r), noShape
	}
	step := r[1] - r[0]
	if step > maxRunStep || step < -maxRunStep {
		return 1, noShape
	}
	n = 2
	for n < len(r) && r[n]-r[n-1] == step {
		n++
	}
	return n, shapeBasis.with('r').with(byte(step + maxRunStep))
}

// piece is the longest walk or run at the start of r, after a piece of
// shape prev: its length, its shape and its turns (each a choice more for
// a guesser). A length under minPatternRunes means no pattern starts
// there. Of two as long, the one shaped like prev wins, then a walk
// ("edc" between "qaz" and "rfv" is a stroke, not a run), then the first
// keyboard.
func piece(r []rune, prev shape) (n int, sh shape, turns int) {
	n, sh = run(r)
	walked := false
	for i, k := range keyboards {
		m, s, t := k.walk(r, byte(i))
		if m < 2 || m < n {
			continue
		}
		if m > n || sh != prev && (s == prev || !walked) {
			n, sh, turns, walked = m, s, t, true
		}
	}
	return n, sh, turns
}

// patternBits estimates what guessing the lowercased password p costs a
// guesser who tries walks, runs and repeats, in bits. It stops counting
// once the cost reaches enough.
func patternBits(p string, enough float64) float64 {
	r := []rune(p)
	bits := 0.0
	prev := noShape
	for i := 0; i < len(r) && bits < enough; {
		n, sh, turns := piece(r[i:], prev)
		switch {
		case n < minPatternRunes:
			bits += charBits(r[i])
			n, sh = 1, noShape
		case sh == prev:
			bits += sameShapeBits
		default:
			bits += charBits(r[i]) + patternChoiceBits + math.Log2(float64(n)) + turnBits*float64(turns)
		}
		prev = sh
		i += n
	}
	return bits
}

// patterned reports whether p is built of keyboard walks, runs and repeats
// that a guesser tries in fewer than about 10^8 guesses.
func patterned(p string) bool { return patternBits(p, guessableBits) < guessableBits }

// onePattern reports whether p is a single walk or run from end to end.
func onePattern(p string) bool {
	r := []rune(p)
	n, _, _ := piece(r, noShape)
	return len(r) >= minPatternRunes && n == len(r)
}

// charBits is what a guesser pays for one character it cannot predict: the
// size of its class.
func charBits(c rune) float64 {
	switch {
	case c >= '0' && c <= '9':
		return math.Log2(10)
	case c >= 'a' && c <= 'z':
		return math.Log2(26)
	case c < 0x80:
		return math.Log2(33) // ASCII symbols and space
	}
	return math.Log2(100)
}
