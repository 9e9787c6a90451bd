package catalog

import "testing"

func TestWorkKeyJoinsTheFormsCataloguersWrite(t *testing.T) {
	same := [][2][2]string{
		{{"Matilda", "Roald Dahl"}, {"Matilda /", "Dahl, Roald, 1916-1990."}},
		{{"The BFG", "Roald Dahl"}, {"The B.F.G. : a story", "DAHL, ROALD"}},
		{{"Émile et les détectives", "Erich Kästner"}, {"Emile et les detectives", "Kastner, Erich"}},
		{{"Charlotte's Web", "E. B. White"}, {"Charlotte's web ; pictures by Garth Williams", "White, E. B. (Elwyn Brooks), 1899-1985"}},
	}
	for _, c := range same {
		a, b := WorkKey(c[0][0], c[0][1]), WorkKey(c[1][0], c[1][1])
		if a == "" || a != b {
			t.Errorf("WorkKey(%q) = %q, WorkKey(%q) = %q; want one non-empty key", c[0], a, c[1], b)
		}
	}
	differ := [][2][2]string{
		{{"Matilda", "Roald Dahl"}, {"Matilda", "Roald Dahl Jr"}},
		{{"Matilda", "Roald Dahl"}, {"Matilda's Day", "Roald Dahl"}},
		{{"Charlotte's Web", "E. B. White"}, {"Charlotte's Web", "Elwyn Brooks White"}},
	}
	for _, c := range differ {
		if a, b := WorkKey(c[0][0], c[0][1]), WorkKey(c[1][0], c[1][1]); a == b {
			t.Errorf("WorkKey(%q) = WorkKey(%q) = %q; want different keys", c[0], c[1], a)
		}
	}
	for _, c := range [][2]string{{"", "Roald Dahl"}, {"Matilda", ""}, {"Matilda", "1916-1990"}, {"?!", "Dahl"}} {
		if k := WorkKey(c[0], c[1]); k != "" {
			t.Errorf("WorkKey(%q, %q) = %q, want no key", c[0], c[1], k)
		}
	}
	// A title that starts with a separator keeps its words.
	if k := WorkKey(": the sequel", "Ann Author"); k != "the sequel|ann author" {
		t.Errorf("WorkKey of a title opening with a colon = %q", k)
	}
}
