package preferencecsv

import (
	"context"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data/annotatedpairs"
)

// metaSink records what a decode tells the loader.
type metaSink struct {
	meta annotatedpairs.Metadata
	ids  []string
}

func (s *metaSink) SetMetadata(m annotatedpairs.Metadata)  { s.meta = m }
func (*metaSink) Declare(string, annotatedpairs.Annotator) {}
func (*metaSink) MetaKey(string)                           {}
func (*metaSink) Annotators() map[string]int               { return map[string]int{} }
func (s *metaSink) Add(r annotatedpairs.Row) error         { s.ids = append(s.ids, r.ID); return nil }

// TestRowNumbersUnique: a CSV's comparisons are its rows, numbered, and
// the decoder says their ids are unique, so the loader keeps no set of
// them (what grew with the rows).
func TestRowNumbersUnique(t *testing.T) {
	s := &metaSink{}
	if err := Decode(context.Background(), strings.NewReader("text_a,text_b,preferred_text\na,b,text_a\na,b,text_a\n"), "f.csv", 0, s); err != nil {
		t.Fatal(err)
	}
	if !s.meta.UniqueIDs || strings.Join(s.ids, ",") != "0,1" {
		t.Errorf("metadata %+v, ids %v: want unique row numbers", s.meta, s.ids)
	}
}
