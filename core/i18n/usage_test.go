package i18n

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// repoRoot is the module's root, from this package's directory.
const repoRoot = "../.."

// keyCalls are the calls whose argument at the index is a text a person
// reads: its English is a catalogue key. A call with a literal there is
// checked; anything else is the caller's to say through one of these.
var keyCalls = map[string]int{
	"tr":                1, // the web pages' Go code: tr(r, key, args...)
	".T":                0, // a language's T(key, args...)
	".Say":              0,
	"errs.E":            2, // errs.E(kind, code, format, args...)
	"E":                 2, // the same, inside core/errs
	"errs.Wrap":         1,
	"errs.InvalidField": 1,
	"fields.Add":        1, // errs.FieldErrors, named fields wherever it is built
	".newBase":          1, // a page's title: newBase says it in the page's language
	".schoolBase":       2,
	"textKey":           0, // a text kept in a table and said later through tr
	"i18n.Phrase":       0, // a sentence the core keeps to be said later (i18n.Text)
}

// keyAction finds t "key" in a template action: at its start or after a
// space or a parenthesis, the key a Go string literal.
var keyAction = regexp.MustCompile(`(?:^|[\s(])t\s+("(?:[^"\\]|\\.)*"|` + "`[^`]*`" + `)`)
var actions = regexp.MustCompile(`(?s){{-?(.*?)-?}}`)

// usedKeys returns every key the templates and the Go code use, with one
// place each is used, for the messages.
func usedKeys(t *testing.T) map[string]string {
	t.Helper()
	used := map[string]string{}
	templates, err := filepath.Glob(filepath.Join(repoRoot, "adapters/webapp/templates/*.html"))
	if err != nil || len(templates) == 0 {
		t.Fatalf("no templates found (%v)", err)
	}
	for _, name := range templates {
		body, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range actions.FindAllStringSubmatch(string(body), -1) {
			for _, m := range keyAction.FindAllStringSubmatch(a[1], -1) {
				key, err := strconv.Unquote(m[1])
				if err != nil {
					t.Fatalf("%s: %s: %v", name, m[1], err)
				}
				used[key] = filepath.Base(name)
			}
		}
	}
	fset := token.NewFileSet()
	for _, dir := range []string{"core", "adapters", "cmd"} {
		err := filepath.WalkDir(filepath.Join(repoRoot, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			ast.Inspect(file, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				index, ok := keyCalls[callName(call.Fun)]
				if !ok || index >= len(call.Args) {
					return true
				}
				if lit, ok := call.Args[index].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					key, err := strconv.Unquote(lit.Value)
					// An empty title is no text (the error page's
					// heading is its title).
					if err == nil && key != "" {
						used[key] = fset.Position(lit.Pos()).String()
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return used
}

// callName names a call's function as keyCalls does: "tr", "errs.E", and
// ".T" for a method T of anything but a package the table names.
func callName(fun ast.Expr) string {
	switch f := fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		if x, ok := f.X.(*ast.Ident); ok {
			if _, named := keyCalls[x.Name+"."+f.Sel.Name]; named {
				return x.Name + "." + f.Sel.Name
			}
		}
		return "." + f.Sel.Name
	}
	return ""
}

// Every text the pages and the code say has a translation in every
// catalogue, and every catalogue key is a text something says: a key
// with no user is a text that changed in English, whose old translation
// would otherwise stay behind.
func TestEveryKeyUsedIsTranslatedAndEveryTranslationUsed(t *testing.T) {
	used := usedKeys(t)
	if len(used) < 20 {
		t.Fatalf("only %d keys found: the search for them is broken", len(used))
	}
	for _, l := range []Lang{Spanish, Arabic} {
		var missing, unused []string
		for key, where := range used {
			if _, ok := entries[l][key]; !ok {
				missing = append(missing, where+": "+strconv.Quote(key))
			}
		}
		for key := range entries[l] {
			if _, ok := used[key]; !ok {
				unused = append(unused, strconv.Quote(key))
			}
		}
		sort.Strings(missing)
		sort.Strings(unused)
		if len(missing) > 0 {
			t.Errorf("%s: %d texts have no translation:\n%s", l, len(missing), strings.Join(missing, "\n"))
		}
		if len(unused) > 0 {
			t.Errorf("%s: %d catalogue keys are used nowhere:\n%s", l, len(unused), strings.Join(unused, "\n"))
		}
	}
}
