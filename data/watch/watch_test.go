package watch

import (
	"errors"
	"testing"
)

func TestProblemText(t *testing.T) {
	for _, c := range []struct{ err, want string }{
		{"/d/a.json:1: metadata: the file ends early", "line 1: metadata: the file ends early"},
		{"/d/a.json: samples/1.json: bad", "samples/1.json: bad"},
		{"/d/a.json: not a log", "not a log"},
		{"import /d/a.json: disk full", "import /d/a.json: disk full"},
	} {
		if got := problemText("/d/a.json", errors.New(c.err)); got != c.want {
			t.Errorf("%q: got %q, want %q", c.err, got, c.want)
		}
	}
}

func TestImportableAndHidden(t *testing.T) {
	for rel, want := range map[string]bool{"a.json": true, "b/c.EVAL": true, "p.csv": true, "x.zip": true, "README.md": false, "run.py": false} {
		if importable(rel) != want {
			t.Errorf("importable(%q) = %v", rel, !want)
		}
	}
	for rel, want := range map[string]bool{".git/x": true, "a/.cache/b.json": true, "a/b.json": false, "./a.json": false} {
		if hidden(rel) != want {
			t.Errorf("hidden(%q) = %v", rel, !want)
		}
	}
}
