package data

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data/model"
)

// pairsDoc builds an AnnotatedPairs document of n comparisons whose votes
// follow a pattern, so the vote matrix can be checked position by position
// across several 16-vote words of the packed scan.
//
// Comparison i: response A by model M(i%3) (none when i%7 == 6), B by
// M((i+1)%3); A's text is i+1 characters long, B's 3; topic "even" or
// "odd" (none when i%5 == 4). h votes prefs[i%5], p votes prefs[(i+2)%5] but
// has no annotation at all when i%4 == 3.
var pairsPrefs = []string{`"a"`, `"b"`, `"tie"`, `null`, `"both"`}

func pairsDoc(n int) string {
	var b strings.Builder
	b.WriteString(`{"metadata":{"version":"2.0","dataset_name":"Votes","default_annotator":"h","created_at":"2026-01-01",
"available_metadata_keys_per_comparison":["topic"]},
"annotators":{"h":{"name":"Human","type":"human"},"p":{"description":"Select the response that is shorter.","type":"principle"}},
"comparisons":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		modelA := fmt.Sprintf(`,"model":"M%d"`, i%3)
		if i%7 == 6 {
			modelA = ""
		}
		fmt.Fprintf(&b, `{"id":"c%d","prompt":"prompt %d","response_a":{"text":%q%s},"response_b":{"text":"bbb","model":"M%d","temperature":1}`,
			i, i, strings.Repeat("é", i+1), modelA, (i+1)%3)
		fmt.Fprintf(&b, `,"annotations":{"h":{"pref":%s}`, pairsPrefs[i%5])
		if i%4 != 3 {
			fmt.Fprintf(&b, `,"p":{"pref":%s,"no_pref_reason":"r%d"}`, pairsPrefs[(i+2)%5], i)
		}
		b.WriteString("}")
		if i%5 != 4 {
			fmt.Fprintf(&b, `,"metadata":{"topic":%q,"n":%d}`, map[bool]string{true: "even", false: "odd"}[i%2 == 0], i)
		}
		b.WriteString("}")
	}
	b.WriteString("]}")
	return b.String()
}

func codeOf(pref string) model.Pref {
	switch pref {
	case `"a"`:
		return model.PrefA
	case `"b"`:
		return model.PrefB
	case `"tie"`:
		return model.PrefTie
	case `null`:
		return model.PrefNone
	default:
		return model.PrefInvalid
	}
}

func mustPairsStore(t *testing.T, n int) *Store {
	t.Helper()
	s := mustOpenStore(t)
	if _, err := s.ImportAnnotatedPairsBytes(context.Background(), []byte(pairsDoc(n)), "votes.json", ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPairsDataset(t *testing.T) {
	ctx := context.Background()
	s := mustPairsStore(t, 3)
	d, err := s.PairsDataset(ctx, "votes")
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "Votes" || d.DefaultAnnotator != "h" || d.Comparisons != 3 || d.ImportID == 0 ||
		d.Format != model.KindAnnotatedPairs || !slices.Equal(d.MetadataKeys, []string{"topic", "n"}) {
		t.Errorf("dataset = %+v", d)
	}
	if _, err := s.PairsDataset(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing dataset: err = %v, want ErrNotFound", err)
	}
	anns, err := s.PairsAnnotators(ctx, "votes")
	if err != nil {
		t.Fatal(err)
	}
	if len(anns) != 2 || anns[0].ID != "h" || anns[0].Type != "human" || anns[1].ID != "p" || anns[1].Name != "is shorter" {
		t.Errorf("annotators = %+v", anns)
	}
}

func TestPairsVoteMatrix(t *testing.T) {
	const n = 45 // three packed words, the last one partial
	ctx := context.Background()
	s := mustPairsStore(t, n)
	m, err := s.PairsVoteMatrix(ctx, "votes")
	if err != nil {
		t.Fatal(err)
	}
	if m.N != n || len(m.Votes) != 2 || !slices.Equal(m.Models, []string{"M0", "M1", "M2"}) {
		t.Fatalf("matrix: N %d, %d annotators, models %v", m.N, len(m.Votes), m.Models)
	}
	anns, err := s.PairsAnnotators(ctx, "votes")
	if err != nil {
		t.Fatal(err)
	}
	h, p := m.Votes[anns[0].Idx], m.Votes[anns[1].Idx]
	for i := range n {
		if got, want := h[i], codeOf(pairsPrefs[i%5]); got != want {
			t.Errorf("h vote %d = %d, want %d", i, got, want)
		}
		want := codeOf(pairsPrefs[(i+2)%5])
		if i%4 == 3 {
			want = model.PrefNone
		}
		if p[i] != want {
			t.Errorf("p vote %d = %d, want %d", i, p[i], want)
		}
		wantA := int32(i % 3)
		if i%7 == 6 {
			wantA = -1
		}
		if m.ModelA[i] != wantA || m.ModelB[i] != int32((i+1)%3) {
			t.Errorf("models %d = %d, %d; want %d, %d", i, m.ModelA[i], m.ModelB[i], wantA, (i+1)%3)
		}
		if m.LenA[i] != int32(i+1) || m.LenB[i] != 3 {
			t.Errorf("lengths %d = %d, %d; want %d characters, 3", i, m.LenA[i], m.LenB[i], i+1)
		}
	}

	// An empty dataset has an empty matrix.
	if _, err := s.ImportAnnotatedPairsBytes(ctx, []byte(`{"comparisons":[]}`), "empty.json", ImportOptions{Name: "empty"}); err != nil {
		t.Fatal(err)
	}
	if m, err := s.PairsVoteMatrix(ctx, "empty"); err != nil || m.N != 0 || len(m.Votes) != 0 {
		t.Errorf("empty matrix = %+v, %v", m, err)
	}
}

func TestPairsMetaValues(t *testing.T) {
	ctx := context.Background()
	s := mustPairsStore(t, 10)
	mv, err := s.PairsMetaValues(ctx, "votes", "topic")
	if err != nil {
		t.Fatal(err)
	}
	// Positions 0..9 without 4 and 9: even 0 2 6 8 (4), odd 1 3 5 7 (4); a
	// tie in count is broken by value.
	if len(mv.Values) != 2 || mv.Values[0] != (model.MetaValue{Value: "even", Count: 4}) || mv.Values[1] != (model.MetaValue{Value: "odd", Count: 4}) {
		t.Errorf("values = %v", mv.Values)
	}
	want := []int32{0, 1, 0, 1, -1, 1, 0, 1, 0, -1}
	if !slices.Equal(mv.Of, want) {
		t.Errorf("of = %v, want %v", mv.Of, want)
	}
	mv, err = s.PairsMetaValues(ctx, "votes", "nokey")
	if err != nil || len(mv.Values) != 0 || len(mv.Of) != 10 || mv.Of[0] != -1 {
		t.Errorf("unknown key: %+v, %v", mv, err)
	}
}

func TestPairsSearchAndComparisons(t *testing.T) {
	ctx := context.Background()
	s := mustPairsStore(t, 12)
	got, err := s.PairsSearch(ctx, "votes", "PROMPT 1")
	if err != nil {
		t.Fatal(err)
	}
	if want := []int32{1, 10, 11}; !slices.Equal(got, want) {
		t.Errorf("search = %v, want %v", got, want)
	}
	for _, q := range []string{"%", "_", `\`, ".", ".*", "(", "[", "^", "$", "PROMPT.1"} {
		if got, err := s.PairsSearch(ctx, "votes", q); err != nil || len(got) != 0 {
			t.Errorf("search %q = %v, %v; want nothing (matched literally)", q, got, err)
		}
	}
	if got, _ := s.PairsSearch(ctx, "votes", "ÉÉÉÉÉÉÉÉÉÉÉÉ"); !slices.Equal(got, []int32{11}) {
		t.Errorf("case-insensitive search in responses = %v, want [11]", got)
	}

	cs, err := s.PairsComparisons(ctx, "votes", []int32{5, 2, 99})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].ID != "c5" || cs[1].ID != "c2" {
		t.Fatalf("comparisons = %+v, want c5, c2", cs)
	}
	c := cs[0]
	if c.Prompt != "prompt 5" || !c.HasPrompt || c.ModelA != "M2" || c.ModelB != "M0" || c.LenA != 6 || c.TextB != "bbb" {
		t.Errorf("c5 = %+v", c)
	}
	if len(c.AttrsB) != 1 || c.AttrsB[0] != (model.KeyValue{Key: "temperature", Value: "1"}) || len(c.AttrsA) != 0 {
		t.Errorf("c5 attrs = %v, %v", c.AttrsA, c.AttrsB)
	}
	if len(c.Metadata) != 2 || c.Metadata[0] != (model.KeyValue{Key: "topic", Value: "odd"}) || c.Metadata[1] != (model.KeyValue{Key: "n", Value: "5"}) {
		t.Errorf("c5 metadata = %v", c.Metadata)
	}
	if cs, err := s.PairsComparisons(ctx, "votes", nil); err != nil || len(cs) != 0 {
		t.Errorf("no positions: %v, %v", cs, err)
	}
}

func TestPairsComparisonByID(t *testing.T) {
	ctx := context.Background()
	s := mustPairsStore(t, 12)
	c, err := s.PairsComparisonByID(ctx, "votes", "c8")
	if err != nil {
		t.Fatal(err)
	}
	// c8: h votes prefs[3] = null, p votes prefs[0] = "a" with reason r8.
	if c.Idx != 8 || len(c.Votes) != 2 {
		t.Fatalf("c8 = %+v", c)
	}
	h, p := c.Votes[0], c.Votes[1]
	if h.Annotator.ID != "h" || !h.Null || h.Pref != "" {
		t.Errorf("h vote = %+v, want null", h)
	}
	if p.Annotator.ID != "p" || p.Annotator.Type != "principle" || p.Pref != "text_a" || p.Null || p.Reason != "r8" {
		t.Errorf("p vote = %+v", p)
	}
	// c7: p has no annotation, h votes "tie".
	c, err = s.PairsComparisonByID(ctx, "votes", "c7")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Votes) != 1 || c.Votes[0].Annotator.ID != "h" || c.Votes[0].Pref != "tie" {
		t.Errorf("c7 votes = %+v, want only h's tie", c.Votes)
	}
	// c4: no metadata; p votes "both", kept as given.
	c, err = s.PairsComparisonByID(ctx, "votes", "c4")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Metadata) != 0 || len(c.Votes) != 2 || c.Votes[1].Pref != "text_b" || c.Votes[0].Pref != "both" {
		t.Errorf("c4 = %+v, %+v; want no metadata, h both, p text_b", c.Metadata, c.Votes)
	}
	if _, err := s.PairsComparisonByID(ctx, "votes", "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing comparison: err = %v, want ErrNotFound", err)
	}
	if _, err := s.PairsComparisonByID(ctx, "other", "c8"); !errors.Is(err, ErrNotFound) {
		t.Errorf("comparison of a missing dataset: err = %v, want ErrNotFound", err)
	}
}
