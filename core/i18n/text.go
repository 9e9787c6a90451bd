package i18n

// Text is a sentence the core builds for a person who reads it later, in
// their own language: its English key and its arguments, said through the
// catalogues where it is shown (In). An argument that is a Text is said in
// the same language, so a sentence may be built from parts.
type Text struct {
	Key  string
	Args []any
}

// Phrase keeps key, a catalogue key (a literal, which the catalogue test
// finds), and its arguments to be said later.
func Phrase(key string, args ...any) Text {
	return Text{Key: key, Args: args}
}

// In says the text in l.
func (t Text) In(l Lang) string {
	args := make([]any, len(t.Args))
	for i, a := range t.Args {
		if inner, ok := a.(Text); ok {
			a = inner.In(l)
		}
		args[i] = a
	}
	return l.T(t.Key, args...)
}

// String is the text in English, so a Text formats as its English
// wherever it is written with %s or %v.
func (t Text) String() string { return t.In(English) }

// SayWith says the text with an errs.Translator (a language's Say, which
// reports false for English or a key it lacks: the English is kept). It is
// how errs says a Text that is an argument of an error's message.
func (t Text) SayWith(say func(format string, args ...any) (string, bool)) string {
	args := make([]any, len(t.Args))
	for i, a := range t.Args {
		if inner, ok := a.(Text); ok {
			a = inner.SayWith(say)
		}
		args[i] = a
	}
	if s, ok := say(t.Key, args...); ok {
		return s
	}
	return t.String()
}
