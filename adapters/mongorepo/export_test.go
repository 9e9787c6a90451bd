package mongorepo

// StageImport is stageImport, for the tests of what it does past the
// commit.
var StageImport = stageImport

// RegisteredOptionCounts is how many options each registered index has,
// for checking that creating the indexes leaves them as registered.
func RegisteredOptionCounts() []int {
	var out []int
	for _, c := range collections() {
		for _, m := range c.indexes {
			n := 0
			if m.Options != nil {
				n = len(m.Options.Opts)
			}
			out = append(out, n)
		}
	}
	return out
}
