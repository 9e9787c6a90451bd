package sqliterepo

import (
	"database/sql"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// sqlRunners are the methods of database/sql that take SQL text.
var sqlRunners = map[string]bool{
	"Exec": true, "ExecContext": true, "Query": true, "QueryContext": true,
	"QueryRow": true, "QueryRowContext": true, "Prepare": true, "PrepareContext": true,
}

// rawSQLAllowed are the functions that may hand SQL to database/sql
// themselves: the helpers that prepare and run registered statements, and
// Open's own pragmas and migrations, which are not repository statements.
var rawSQLAllowed = map[string]bool{
	"exec": true, "query": true, "queryRow": true, "prepared": true, "stmt": true, // statements.go
	"checkWAL": true, "migrateOne": true, // Open
}

// TestOnlyHelpersRunSQL makes sure every statement of the repositories goes
// through the helpers that take a registered statement, so none escapes
// the query-plan test and the statement observer.
func TestOnlyHelpersRunSQL(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || !sqlRunners[sel.Sel.Name] {
					return true
				}
				checked++
				if !rawSQLAllowed[fn.Name.Name] {
					t.Errorf("%s: %s calls %s directly; run a registered statement with exec, query or queryRow",
						fset.Position(call.Pos()), fn.Name.Name, sel.Sel.Name)
				}
				return true
			})
		}
	}
	if checked == 0 {
		t.Fatal("found no call that runs SQL: the test no longer looks at the right files")
	}
}

// TestStatementsOutsideRegistryPanic: a statement that newStmt did not make
// cannot run.
func TestStatementsOutsideRegistryPanic(t *testing.T) {
	d := openTestDB(t)
	defer func() {
		if recover() == nil {
			t.Fatal("running an unregistered statement did not panic")
		}
	}()
	_, _ = d.exec(t.Context(), d.write, &stmt{name: "rogue", sql: "DELETE FROM accounts"})
}

// TestReadPoolCannotWrite: the read connections are query_only, so a write
// sent to the wrong pool fails instead of bypassing the one writer.
func TestReadPoolCannotWrite(t *testing.T) {
	d := openTestDB(t)
	_, err := d.exec(t.Context(), d.read, stmtAccountDelete, sql.Named("id", "x"))
	if err == nil {
		t.Fatal("a write on the read pool succeeded")
	}
	if _, err := d.exec(t.Context(), d.write, stmtAccountDelete, sql.Named("id", "x")); err != nil {
		t.Fatalf("the same write on the writer: %v", err)
	}
}
