package model

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestOutcomeFields: an outcome (an audit's, or another judge's reading of
// it) decodes its four fields and refuses any other key, so a misspelled
// one is not dropped with its value.
func TestOutcomeFields(t *testing.T) {
	var o Outcome
	if err := json.Unmarshal([]byte(`{"quality": 72.5, "detected": true, "false_positive": false, "production_value": 3}`), &o); err != nil {
		t.Fatal(err)
	}
	if *o.Quality != 72.5 || !*o.Detected || *o.FalsePositive || *o.ProductionValue != 3 {
		t.Errorf("decoded %+v", o)
	}
	err := json.Unmarshal([]byte(`{"quality": 72, "detectd": true}`), &o)
	if err == nil || !strings.Contains(err.Error(), `unknown field "detectd"`) || !strings.Contains(err.Error(), "detected, false_positive, quality or production_value") {
		t.Errorf("a misspelled field: %v, want refused, naming it and the fields there are", err)
	}
	if err := json.Unmarshal([]byte(`{"quality": "high"}`), &o); err == nil {
		t.Error("a quality that is not a number decoded")
	}
}
