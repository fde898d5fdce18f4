package jsonin

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/auditscope/auditscope/data/model"
)

// TestJSONKindLenient: telling a JSON file's format is as lenient as Go's
// encoding/json, which did it before: a duplicate name or an invalid byte
// in a value is for the format's importer to judge, not a reason to refuse
// the file before it is read.
func TestJSONKindLenient(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.json")
	doc := "{\"note\": \"bad \xff byte\", \"note\": 1, \"metadata\": {\"transcript_id\": \"t\", \"transcript_id\": \"u\"}}"
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if kind, obj, err := Sniff(p); kind != model.KindPetri || !obj || err != nil {
		t.Errorf("got %q, object %v, %v; want a Petri transcript", kind, obj, err)
	}
}
