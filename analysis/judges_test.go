package analysis

import (
	"math"
	"testing"
)

type judgesCase struct {
	Kind           string    `json:"kind"`
	Name           string    `json:"name"`
	A              []float64 `json:"a"`
	BB             []float64 `json:"b"`
	WeightedKappa  float64   `json:"weighted_kappa"`
	Alpha          float64   `json:"alpha"`
	MeanDiff       float64   `json:"mean_diff"`
	Kappa          float64   `json:"kappa"`
	Judge          []int     `json:"judge"`
	JudgeLabelled  []int     `json:"judge_labelled"`
	Human          []int     `json:"human"`
	TP, FP, FN, TN int
	Sensitivity    float64 `json:"sensitivity"`
	Specificity    float64 `json:"specificity"`
	Observed       float64 `json:"observed"`
	Corrected      float64 `json:"corrected"`
}

func asBools(x []float64) []bool {
	out := make([]bool, len(x))
	for i, v := range x {
		out[i] = v != 0
	}
	return out
}

func bools(x []int) []bool {
	out := make([]bool, len(x))
	for i, v := range x {
		out[i] = v != 0
	}
	return out
}

// TestJudgesReference: weighted kappa, Krippendorff's alpha, Cohen's
// kappa and the Rogan–Gladen estimate against testdata/stats/judges.json
// (scikit-learn, statsmodels and Krippendorff's coincidence matrix).
func TestJudgesReference(t *testing.T) {
	cats := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	n := map[string]int{}
	for _, c := range loadRef[judgesCase](t, "judges.json") {
		n[c.Kind]++
		switch c.Kind {
		case "weighted":
			k, err := WeightedKappa(c.A, c.BB, cats)
			if err != nil || !tolDefault(k, c.WeightedKappa) {
				t.Errorf("%s: weighted kappa %v (%v), want %v", c.Name, k, err, c.WeightedKappa)
			}
			if a := KrippendorffAlpha(c.A, c.BB); !tolDefault(a, c.Alpha) {
				t.Errorf("%s: alpha %v, want %v", c.Name, a, c.Alpha)
			}
			cl := make([]int, len(c.A))
			for i := range cl {
				cl[i] = i / 3 // clusters of three: the point values do not depend on them
			}
			// By moments (the resampled form): the same values.
			ja, err := CompareJudges(c.A, c.BB, cl, 500, 0.95, 7)
			if err != nil || !tolDefault(ja.Kappa.Value, c.WeightedKappa) || !tolDefault(ja.Alpha.Value, c.Alpha) || !tolDefault(ja.Diff.Value, c.MeanDiff) {
				t.Errorf("%s: CompareJudges %+v (%v)", c.Name, ja, err)
			}
			for _, e := range []Estimate{ja.Kappa, ja.Alpha, ja.Diff} {
				if !(e.Lo <= e.Value && e.Value <= e.Hi) {
					t.Errorf("%s: interval %+v does not hold its value", c.Name, e)
				}
			}
		case "binary":
			if k := BinaryKappa(asBools(c.A), asBools(c.BB)); !tolDefault(k, c.Kappa) {
				t.Errorf("%s: kappa %v, want %v", c.Name, k, c.Kappa)
			}
			cl := make([]int, len(c.A))
			for i := range cl {
				cl[i] = i
			}
			if ja, err := CompareJudges(c.A, c.BB, cl, 200, 0.95, 1); err != nil || !tolDefault(ja.Kappa.Value, c.Kappa) {
				t.Errorf("%s: CompareJudges' kappa on 0/1 %v (%v), want %v", c.Name, ja.Kappa, err, c.Kappa)
			}
		case "rogan_gladen":
			jc := make([]int, len(c.Judge))
			for i := range jc {
				jc[i] = i / 4
			}
			lc := jc[:len(c.Human)]
			r, err := CheckJudge(bools(c.Judge), jc, bools(c.JudgeLabelled), bools(c.Human), lc, 1000, 0.95, 3)
			if err != nil || r.TP != c.TP || r.FP != c.FP || r.FN != c.FN || r.TN != c.TN {
				t.Fatalf("confusion %+v (%v)", r, err)
			}
			for _, x := range []struct {
				what      string
				got, want float64
			}{{"sensitivity", r.Sensitivity.Value, c.Sensitivity}, {"specificity", r.Spec.Value, c.Specificity},
				{"observed", r.Observed.Value, c.Observed}, {"corrected", r.Corrected.Value, c.Corrected}} {
				if !tolDefault(x.got, x.want) {
					t.Errorf("%s: %v, want %v", x.what, x.got, x.want)
				}
			}
			if !(r.Corrected.Lo < r.Corrected.Value && r.Corrected.Value < r.Corrected.Hi) {
				t.Errorf("corrected rate's interval %+v", r.Corrected)
			}
		}
	}
	if n["weighted"] < 5 || n["binary"] < 2 || n["rogan_gladen"] < 1 {
		t.Errorf("cases read: %v", n)
	}
}

// TestJudgesEdges: a constant pair of raters has no kappa or alpha; a
// score off the scale is an error; a test no better than chance corrects
// nothing.
func TestJudgesEdges(t *testing.T) {
	cats := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	if k, err := WeightedKappa([]float64{3, 3}, []float64{3, 3}, cats); err != nil || !math.IsNaN(k) {
		t.Errorf("constant: %v %v", k, err)
	}
	if _, err := WeightedKappa([]float64{3, 11}, []float64{3, 3}, cats); err == nil {
		t.Error("a score of 11 on a 1–10 scale was taken")
	}
	if a := KrippendorffAlpha([]float64{5, 5}, []float64{5, 5}); !math.IsNaN(a) {
		t.Errorf("alpha of constants: %v", a)
	}
	if r := RoganGladen(0.3, 0.5, 0.5); !math.IsNaN(r) {
		t.Errorf("a coin as a test: %v", r)
	}
	if r := RoganGladen(0.05, 0.9, 0.8); r != 0 {
		t.Errorf("below the false-positive floor: %v, want 0 (clipped)", r)
	}
}
