package demo

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/model"
)

// TestPairwise checks the intransitive cycles and the held-out RWR gap.
func TestPairwise(t *testing.T) {
	b := defaultBundle()
	auditor := map[string]string{}
	split := map[string]string{}
	for _, bh := range b.Experiment.Behaviors {
		split[bh.ID] = bh.Split
	}
	for _, a := range b.Audits {
		auditor[a.ID] = a.Auditor
	}
	wins := map[[2]string]float64{}
	type rwr struct{ w, n float64 }
	ref := map[string]map[string]*rwr{}
	for _, j := range b.Judgments {
		switch j.Kind {
		case model.JudgmentIntragroup:
			l, r := auditor[j.Left], auditor[j.Right]
			switch j.Outcome {
			case bundle.OutcomeLeft:
				wins[[2]string{l, r}]++
			case bundle.OutcomeRight:
				wins[[2]string{r, l}]++
			}
		case model.JudgmentReference:
			a := auditor[j.Left]
			sp := bundle.SplitBenign
			if j.Behavior != "" {
				sp = split[j.Behavior]
			}
			if ref[a] == nil {
				ref[a] = map[string]*rwr{}
			}
			x := ref[a][sp]
			if x == nil {
				x = &rwr{}
				ref[a][sp] = x
			}
			x.n++
			switch j.Outcome {
			case bundle.OutcomeLeft:
				x.w++
			case bundle.OutcomeTie:
				x.w += 0.5
			}
		}
	}
	beats := func(a, b string) bool { return wins[[2]string{a, b}] > wins[[2]string{b, a}] }
	for _, c := range cycles {
		if !beats(c[0], c[1]) || !beats(c[1], c[2]) || !beats(c[2], c[0]) {
			t.Errorf("no intransitive cycle %v", c)
		}
	}
	gap := func(id string) float64 {
		r := ref[id]
		return r[bundle.SplitTrain].w/r[bundle.SplitTrain].n - r[bundle.SplitHeldout].w/r[bundle.SplitHeldout].n
	}
	t.Logf("RWR gap train−heldout: binary@e3 %.2f, ref-never@e3 %.2f, headline %.2f", gap("binary-pointwise@e3"), gap("ref-pairwise-never@e3"), gap(headlineCkpt))
	if gap("binary-pointwise@e3") < 0.1 || math.Abs(gap(headlineCkpt)) > 0.1 {
		t.Error("RWR gap: binary should overfit its training behaviors, the headline run should not")
	}
}

func TestAnnotatedPairs(t *testing.T) {
	var buf bytes.Buffer
	if err := AnnotatedPairs(&buf, Options{}); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	meta := doc["metadata"].(map[string]any)
	if meta["version"] != "2.0" || meta["dataset_name"] != "Synthetic personality demo" ||
		!strings.Contains(strings.ToLower(meta["description"].(string)), "synthetic") {
		t.Errorf("metadata %v", meta)
	}
	keys := meta["available_metadata_keys_per_comparison"].([]any)
	if len(keys) != 3 {
		t.Errorf("metadata keys %v", keys)
	}
	anns := doc["annotators"].(map[string]any)
	human := meta["default_annotator"].(string)
	if a := anns[human].(map[string]any); a["type"] != "human" {
		t.Errorf("default annotator %v", a)
	}
	principles := 0
	for _, a := range anns {
		if a.(map[string]any)["type"] == "principle" {
			principles++
		}
	}
	if principles != 20 {
		t.Errorf("%d principle annotators", principles)
	}
	comps := doc["comparisons"].([]any)
	if len(comps) != apComparisons {
		t.Fatalf("%d comparisons", len(comps))
	}
	checkAPComparisons(t, comps, anns, human)
	// Intransitive human preferences among the cycle models.
	checkAPCycle(t, comps, human)
}

// checkAPComparisons checks each comparison of the AnnotatedPairs file
// (unique ids, 21 annotations, a reason for every null vote) and what
// the demo is made to show: humans prefer the longer response 60 to 75%
// of the time, the verbosity principle follows length, and there are
// ties, invalid votes, ten models and multi-byte text.
func checkAPComparisons(t *testing.T, comps []any, anns map[string]any, human string) {
	t.Helper()
	var longer, decided, ties, invalid, multibyte int
	ids := map[string]bool{}
	models := map[string]bool{}
	sources := map[string]int{}
	verboseAgree, verboseN := 0, 0
	for _, c := range comps {
		c := c.(map[string]any)
		id := c["id"].(string)
		if ids[id] {
			t.Fatalf("duplicate comparison id %s", id)
		}
		ids[id] = true
		ra, rb := c["response_a"].(map[string]any), c["response_b"].(map[string]any)
		ta, tb := ra["text"].(string), rb["text"].(string)
		models[ra["model"].(string)] = true
		models[rb["model"].(string)] = true
		if len(ta) != utf8.RuneCountInString(ta) {
			multibyte++
		}
		sources[c["metadata"].(map[string]any)["source"].(string)]++
		la, lb := utf8.RuneCountInString(ta), utf8.RuneCountInString(tb)
		annots := c["annotations"].(map[string]any)
		if len(annots) != 21 {
			t.Fatalf("%s: %d annotations", id, len(annots))
		}
		hv := annots[human].(map[string]any)
		switch hv["pref"] {
		case "a", "b":
			if la != lb {
				decided++
				if (hv["pref"] == "a") == (la > lb) {
					longer++
				}
			}
		case "tie":
			ties++
		case nil:
			if hv["no_pref_reason"] == "" {
				t.Fatalf("%s: null human vote without a reason", id)
			}
			invalid++
		}
		for aid, v := range annots {
			desc, _ := anns[aid].(map[string]any)["description"].(string)
			pref := v.(map[string]any)["pref"]
			if pref == nil && v.(map[string]any)["no_pref_reason"] == nil {
				t.Fatalf("%s: null vote without reason", id)
			}
			if desc == "Select the response that is more verbose." && pref != nil && la != lb {
				verboseN++
				if (pref == "a") == (la > lb) {
					verboseAgree++
				}
			}
		}
	}
	share := float64(longer) / float64(decided)
	t.Logf("human prefers longer %.1f%% of %d; ties %d, invalid %d; %d models; sources %v; verbose agrees with length %.1f%%; %d multi-byte responses",
		100*share, decided, ties, invalid, len(models), sources, 100*float64(verboseAgree)/float64(verboseN), multibyte)
	if share < 0.6 || share > 0.75 {
		t.Errorf("human prefers the longer response %.2f of the time", share)
	}
	if ties == 0 || invalid == 0 || len(models) != 10 || multibyte == 0 {
		t.Errorf("ties %d invalid %d models %d multibyte %d", ties, invalid, len(models), multibyte)
	}
	if float64(verboseAgree)/float64(verboseN) < 0.85 {
		t.Error("verbosity votes do not follow length")
	}
}

// checkAPCycle checks that the human majority preferences among the
// cycle models form a cycle: each beats the next.
func checkAPCycle(t *testing.T, comps []any, human string) {
	t.Helper()
	w := map[[2]string]int{}
	for _, c := range comps {
		c := c.(map[string]any)
		ma := c["response_a"].(map[string]any)["model"].(string)
		mb := c["response_b"].(map[string]any)["model"].(string)
		switch c["annotations"].(map[string]any)[human].(map[string]any)["pref"] {
		case "a":
			w[[2]string{ma, mb}]++
		case "b":
			w[[2]string{mb, ma}]++
		}
	}
	for i := 0; i < 3; i++ {
		a, b := apCycle[i], apCycle[(i+1)%3]
		if w[[2]string{a, b}] <= w[[2]string{b, a}] {
			t.Errorf("human majority %s vs %s: %d–%d, want a cycle", a, b, w[[2]string{a, b}], w[[2]string{b, a}])
		}
	}
}

func BenchmarkAnnotatedPairs(b *testing.B) {
	for b.Loop() {
		if err := AnnotatedPairs(io.Discard, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
