package errs_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// codeConstants returns the names of the constants declared in codes.go.
func codeConstants(t *testing.T) map[string]bool {
	t.Helper()
	file, err := parser.ParseFile(token.NewFileSet(), "codes.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, decl := range file.Decls {
		if gen, ok := decl.(*ast.GenDecl); ok && gen.Tok == token.CONST {
			for _, spec := range gen.Specs {
				for _, name := range spec.(*ast.ValueSpec).Names {
					names[name.Name] = true
				}
			}
		}
	}
	if len(names) < 20 {
		t.Fatalf("found only %d constants in codes.go; is the parse wrong?", len(names))
	}
	return names
}

// isErrs tells whether e names the errs package (as errs.X from outside,
// or as X inside package errs).
func isErrs(e ast.Expr, name string, inErrs bool) bool {
	switch e := e.(type) {
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		return ok && x.Name == "errs" && e.Sel.Name == name
	case *ast.Ident:
		return inErrs && e.Name == name
	}
	return false
}

// codeLiteral returns the code e spells as a string literal, if it does.
// An empty literal names no code (the kind's default applies) and passes.
func codeLiteral(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	code, err := strconv.Unquote(lit.Value)
	return code, err == nil && code != ""
}

// Every error code in the service's (non-test) code is a constant of
// codes.go, so the list the OpenAPI test checks is the whole list: a code
// written as a literal to errs.E, in an errs.Error, or compared with
// errs.CodeOf or ClientCode fails here. Every constant is used somewhere.
func TestErrorCodesAreConstants(t *testing.T) {
	constants := codeConstants(t)
	used := map[string]bool{}
	var literals []string
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// porttest is the stores' contract suite: like tests, it
			// spells codes out to check their values.
			if name := d.Name(); path != root && (name == "testdata" || name == "porttest" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		inErrs := file.Name.Name == "errs" && filepath.Base(path) != "codes.go"
		flag := func(e ast.Expr, how string) {
			if code, ok := codeLiteral(e); ok {
				literals = append(literals, fset.Position(e.Pos()).String()+": "+strconv.Quote(code)+" "+how)
			}
		}
		isCodeOf := func(e ast.Expr) bool {
			call, ok := e.(*ast.CallExpr)
			if !ok {
				return false
			}
			if isErrs(call.Fun, "CodeOf", inErrs) {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			return ok && sel.Sel.Name == "ClientCode"
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && x.Name == "errs" && constants[n.Sel.Name] {
					used[n.Sel.Name] = true
				}
			case *ast.Ident:
				if inErrs && constants[n.Name] {
					used[n.Name] = true
				}
			case *ast.CallExpr:
				if isErrs(n.Fun, "E", inErrs) && len(n.Args) >= 2 {
					flag(n.Args[1], "passed to errs.E")
				}
			case *ast.CompositeLit:
				if isErrs(n.Type, "Error", inErrs) {
					for _, el := range n.Elts {
						if kv, ok := el.(*ast.KeyValueExpr); ok {
							if key, ok := kv.Key.(*ast.Ident); ok && key.Name == "Code" {
								flag(kv.Value, "as an errs.Error's Code")
							}
						}
					}
				}
			case *ast.BinaryExpr:
				if n.Op == token.EQL || n.Op == token.NEQ {
					if isCodeOf(n.X) {
						flag(n.Y, "compared with an error's code")
					}
					if isCodeOf(n.Y) {
						flag(n.X, "compared with an error's code")
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range literals {
		t.Errorf("%s: use the constant of core/errs/codes.go (add one if the code is new)", l)
	}
	var unused []string
	for name := range constants {
		if !used[name] {
			unused = append(unused, name)
		}
	}
	sort.Strings(unused)
	for _, name := range unused {
		t.Errorf("errs.%s is never used outside tests; remove it or use it", name)
	}
	if len(used) == 0 {
		t.Fatal("no use of any code constant found; is the walk wrong?")
	}
}
