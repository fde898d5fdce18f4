package demo_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/demo"
	"github.com/auditscope/auditscope/data/internal/petrischema"
	"github.com/auditscope/auditscope/data/model"
)

var smallDemo = sync.OnceValue(func() *bundle.Bundle { return demo.Experiment(demo.Options{Audits: 5000}) })

// spread picks about n audit indices spread evenly over each eval kind.
func spread(b *bundle.Bundle, n int) []int {
	byEval := map[string][]int{}
	for i, a := range b.Audits {
		byEval[a.Eval] = append(byEval[a.Eval], i)
	}
	evals := make([]string, 0, len(byEval))
	for e := range byEval {
		evals = append(evals, e)
	}
	sort.Strings(evals)
	per := max(1, n/len(evals))
	var out []int
	for _, e := range evals {
		idx := byEval[e]
		step := max(1, len(idx)/per)
		for i := 0; i < len(idx); i += step {
			out = append(out, idx[i])
		}
	}
	return out
}

// compileSchema compiles Petri's transcript schema (data/internal/petrischema).
func compileSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	sch, err := petrischema.Compile()
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// TestDemoTranscriptsMatchSchema validates about 300 of the demo's
// transcripts, spread over every eval kind, against Petri's schema.
func TestDemoTranscriptsMatchSchema(t *testing.T) {
	sch := compileSchema(t)
	b := smallDemo()
	picked := spread(b, 300)
	if len(picked) < 250 {
		t.Fatalf("only %d transcripts picked", len(picked))
	}
	for _, i := range picked {
		a := &b.Audits[i]
		raw, err := json.Marshal(a.Transcript)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(doc); err != nil {
			t.Fatalf("audit %s (%s): %v", a.ID, a.Eval, err)
		}
	}
}

// TestDemoPetriRoundTrip writes the demo as a bundle, writes some audits'
// transcripts from it as Petri transcript files, imports those through the
// Petri path and checks that the stored transcripts are the files' bytes and
// that the audits come back with the demo's fields.
func TestDemoPetriRoundTrip(t *testing.T) {
	b := smallDemo()
	dir := t.TempDir()
	if err := bundle.Write(filepath.Join(dir, "bundle"), b); err != nil {
		t.Fatal(err)
	}
	picked := map[int]bool{}
	for _, i := range spread(b, 150) {
		picked[i] = true
	}
	// Each picked audit's transcript, as the bundle holds it, becomes a file.
	f, err := os.Open(filepath.Join(dir, "bundle", bundle.FileAudits))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	petriDir := filepath.Join(dir, "petri")
	if err := os.MkdirAll(petriDir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{} // audit id -> file bytes
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for line := 0; sc.Scan(); line++ {
		if !picked[line] {
			continue
		}
		var rec struct {
			ID         string          `json:"id"`
			Transcript json.RawMessage `json:"transcript"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.ID != b.Audits[line].ID {
			t.Fatalf("line %d holds %s, want %s", line+1, rec.ID, b.Audits[line].ID)
		}
		files[rec.ID] = rec.Transcript
		if err := os.WriteFile(filepath.Join(petriDir, rec.ID+".json"), rec.Transcript, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}

	ctx := context.Background()
	s, err := data.Open(ctx, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Import(ctx, petriDir, data.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Kind != model.KindPetri || res[0].Counts["audits"] != int64(len(files)) {
		t.Fatalf("import: %v, want %d Petri audits", res[0], len(files))
	}
	withBehavior := 0
	for i := range picked {
		want := &b.Audits[i]
		if want.Behavior != "" {
			withBehavior++
		}
		body, err := s.Transcript(ctx, "petri", want.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(body, files[want.ID]) {
			t.Errorf("%s: stored transcript differs from its file", want.ID)
		}
		got, err := s.Audit(ctx, "petri:"+want.ID)
		if err != nil {
			t.Fatal(err)
		}
		scores := map[string]float64{}
		for _, x := range got.Scores {
			scores[x.Dimension] = x.Value
		}
		if got.Auditor != want.Auditor || got.Eval != want.Eval || got.Behavior != want.Behavior || got.Target != want.Target ||
			got.Turns != want.Turns || got.Summary != want.Summary || !reflect.DeepEqual(scores, want.Scores) {
			t.Errorf("%s: got auditor %s eval %s behavior %q target %s turns %d scores %v\nwant auditor %s eval %s behavior %q target %s turns %d scores %v",
				want.ID, got.Auditor, got.Eval, got.Behavior, got.Target, got.Turns, scores,
				want.Auditor, want.Eval, want.Behavior, want.Target, want.Turns, want.Scores)
		}
	}
	if withBehavior == 0 || withBehavior == len(picked) {
		t.Errorf("%d of %d audits checked have a behavior; want some with and some without", withBehavior, len(picked))
	}
}
