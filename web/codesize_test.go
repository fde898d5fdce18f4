package web

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The repository's size rules (issue #52): no hand-written Go file over
// maxFileLines, no function over maxFuncLines, and the store's root
// package (data, without its subpackages and tests) within dataRootBudget.
// The generated templ files are not hand-written.
const (
	maxFileLines = 600
	maxFuncLines = 100
	// dataRootTarget is the bound; dataRootBudget the root
	// package's size now, which may only come down to it.
	dataRootTarget = 3500
	dataRootBudget = 3411
)

// oversized are the files and functions over the bounds when the rules
// came, with their lines then: each may shrink, none grow, and no other
// may join them. Splitting one takes it off the list.
var oversized = map[string]int{}

// TestCodeSize checks the size rules over the whole repository and lists
// every offender, so a change that crosses a bound says where.
func TestCodeSize(t *testing.T) {
	fset := token.NewFileSet()
	var offenders []string
	dataRoot := 0
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && p != "..") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_templ.go") {
			return nil
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, "../"))
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		n := fset.File(f.Pos()).LineCount()
		if filepath.Dir(rel) == "data" && !strings.HasSuffix(rel, "_test.go") {
			dataRoot += n
		}
		offenders = append(offenders, check(t, rel, n, maxFileLines)...)
		for _, decl := range f.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && fd.Body != nil {
				l := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
				offenders = append(offenders, check(t, rel+":"+fd.Name.Name, l, maxFuncLines)...)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for what := range oversized {
		if !slices.ContainsFunc(offenders, func(o string) bool { return strings.HasPrefix(o, what+": ") }) {
			t.Errorf("%s is within the bounds now (or gone): take it off oversized, so it cannot grow back", what)
		}
	}
	sort.Strings(offenders)
	t.Logf("over the bounds (%d files or functions; %d lines, %d functions):\n%s", len(offenders), maxFileLines, maxFuncLines, strings.Join(offenders, "\n"))
	t.Logf("the store's root package: %d lines (budget %d, target %d)", dataRoot, dataRootBudget, dataRootTarget)
	if dataRoot > dataRootBudget {
		t.Errorf("the store's root package has %d lines, over its budget of %d (the target is %d): move a job into a package of its own", dataRoot, dataRootBudget, dataRootTarget)
	}
}

// check reports what (a file, or file:function) of n lines against bound:
// an offender's description when it is over, an error when it is new or
// has grown.
func check(t *testing.T, what string, n, bound int) []string {
	t.Helper()
	if n <= bound {
		return nil
	}
	was, known := oversized[what]
	switch {
	case !known:
		t.Errorf("%s: %d lines, over %d: split it", what, n, bound)
	case n > was:
		t.Errorf("%s: %d lines, grown from %d (over %d): split it rather than grow it", what, n, was, bound)
	}
	return []string{what + ": " + strconv.Itoa(n)}
}
