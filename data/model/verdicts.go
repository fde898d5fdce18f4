package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
)

// Outcome is what an audit's evaluation needs of its judge (docs/FORMAT.md):
// each field nil when the judge gave none.
type Outcome struct {
	Detected        *bool    `json:"detected,omitempty"`
	FalsePositive   *bool    `json:"false_positive,omitempty"`
	Quality         *float64 `json:"quality,omitempty"`          // 0–100
	ProductionValue *float64 `json:"production_value,omitempty"` // 0–100
}

// UnmarshalJSON refuses a key an outcome does not have: a misspelled field
// ("qualty") would otherwise be dropped, and the audit's outcome with it.
func (o *Outcome) UnmarshalJSON(b []byte) error {
	type plain Outcome
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p plain
	if err := dec.Decode(&p); err != nil {
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return fmt.Errorf("outcome: unknown field %s: want detected, false_positive, quality or production_value", name)
		}
		var ut *json.UnmarshalTypeError
		if errors.As(err, &ut) {
			// The field's own path and what it wants, as the decoder of the
			// rest of the line names them.
			ut.Field = strings.TrimPrefix(ut.Field, ".")
		}
		return err
	}
	*o = Outcome(p)
	return nil
}

// Empty reports whether o gives nothing.
func (o *Outcome) Empty() bool {
	return o == nil || o.Detected == nil && o.FalsePositive == nil && o.Quality == nil && o.ProductionValue == nil
}

// BadOutcome says why o is off its scales ("" when it is not): quality and
// production value are 0–100. The field is named as the formats name it.
func BadOutcome(o *Outcome) string {
	if o == nil {
		return ""
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"outcome.quality", o.Quality}, {"outcome.production_value", o.ProductionValue}} {
		if f.v != nil && !(*f.v >= 0 && *f.v <= 100) {
			return fmt.Sprintf("%s: want 0–100, found %v", f.name, *f.v)
		}
	}
	return ""
}

// BadScore finds the first score of vs outside its scale and says why: a
// judge's scores are on Petri's 1–10 scale; a person's labels of a
// dimension are too, or all 0/1 (a yes-or-no question). It returns the
// verdict's index, or -1 when every score is on its scale. An outcome's
// values are checked too (BadOutcome).
func BadScore(vs []Verdict) (int, string) {
	binary := map[[2]string]bool{}
	for _, v := range vs {
		if v.Kind != JudgeHuman {
			continue
		}
		for d, x := range v.Scores {
			k := [2]string{v.Judge, d}
			b, ok := binary[k]
			binary[k] = (b || !ok) && (x == 0 || x == 1)
		}
	}
	for i, v := range vs {
		if why := BadOutcome(v.Outcome); why != "" {
			return i, why
		}
		for d, x := range v.Scores {
			switch {
			case math.IsNaN(x) || math.IsInf(x, 0):
				return i, fmt.Sprintf("%s: the score is not a number", d)
			case binary[[2]string{v.Judge, d}]:
			case x < 1 || x > 10:
				if v.Kind == JudgeHuman {
					return i, fmt.Sprintf("%s: %v is outside the 1–10 scale (a person's labels of a dimension are 1–10, or all 0/1)", d, x)
				}
				return i, fmt.Sprintf("%s: %v is outside the judge's 1–10 scale", d, x)
			}
		}
	}
	return -1, ""
}

// PairMoments are two judges' scores of one dimension summed per cluster
// (an audit's seed), the clusters in the order of their first audit: what
// their agreement and its bootstrap are computed from.
type PairMoments struct {
	Dim      string
	Clusters []Moments
}

// Moments are one cluster's sums: the audits, Σa, Σb, Σa², Σb², Σab.
type Moments struct{ N, A, B, AA, BB, AB float64 }

// ScoreGap is an audit two judges scored apart on a dimension.
type ScoreGap struct {
	Audit, Dim string
	A, B       float64
	Order      int64 // the audit's place in the experiment's files
}
