package web

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestShortHandlers keeps web and its application layer in the shape
// docs/ARCHITECTURE.md describes: no file over 400 lines and no function
// over 60, so that a page's logic is read in one place (issue #29).
func TestShortHandlers(t *testing.T) {
	fset := token.NewFileSet()
	for _, dir := range []string{".", "app"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(fset, f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			if n := fset.File(af.Pos()).LineCount(); n > 400 {
				t.Errorf("%s: %d lines, over 400: split it by page or job", f, n)
			}
			for _, d := range af.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok {
					if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > 60 {
						t.Errorf("%s: %s is %d lines, over 60", f, fd.Name.Name, n)
					}
				}
			}
		}
	}
}
