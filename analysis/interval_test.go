package analysis

import (
	"errors"
	"math"
	"testing"
)

// TestWilsonReference checks every case of wilson.json, produced by
// statsmodels proportion_confint(method="wilson").
func TestWilsonReference(t *testing.T) {
	type wilsonCase struct {
		Name       string  `json:"name"`
		Successes  float64 `json:"successes"`
		N          int     `json:"n"`
		Confidence float64 `json:"confidence"`
		Lower      float64 `json:"lower"`
		Upper      float64 `json:"upper"`
	}
	for _, c := range loadRef[wilsonCase](t, "wilson.json") {
		t.Run(c.Name, func(t *testing.T) {
			got, err := Wilson(c.Successes, c.N, c.Confidence)
			if err != nil {
				t.Fatal(err)
			}
			checkNum(t, "lower", got.Lo, c.Lower, tolDefault)
			checkNum(t, "upper", got.Hi, c.Upper, tolDefault)
			checkNum(t, "value", got.Value, c.Successes/float64(c.N), tolDefault)
		})
	}
}

// TestWilsonErrors shows the unusable inputs that Wilson rejects.
func TestWilsonErrors(t *testing.T) {
	tests := []struct {
		name       string
		successes  float64
		n          int
		confidence float64
	}{
		{"n zero", 0, 0, 0.95},
		{"n negative", 0, -3, 0.95},
		{"successes above n", 11, 10, 0.95},
		{"successes negative", -1, 10, 0.95},
		{"successes NaN", math.NaN(), 10, 0.95},
		{"confidence 0", 1, 10, 0},
		{"confidence 1", 1, 10, 1},
		{"confidence above 1", 1, 10, 95},
		{"confidence NaN", 1, 10, math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Wilson(tt.successes, tt.n, tt.confidence)
			if err == nil {
				t.Fatalf("got %+v, nil error; want an error", got)
			}
			if !allNaN(got.Value, got.Lo, got.Hi) {
				t.Errorf("got %+v with the error, want all NaN", got)
			}
		})
	}
	if _, err := Wilson(1, 10, 2); !errors.Is(err, errConfidence) {
		t.Errorf("confidence error %v does not wrap errConfidence", err)
	}
}

// TestMeanCIReference checks every case of t_interval.json, produced by
// scipy.stats.t.interval with scipy.stats.sem (zero variance collapses).
func TestMeanCIReference(t *testing.T) {
	type tCase struct {
		Name       string    `json:"name"`
		Values     []float64 `json:"values"`
		Confidence float64   `json:"confidence"`
		Mean       float64   `json:"mean"`
		SEM        float64   `json:"sem"`
		Lower      float64   `json:"lower"`
		Upper      float64   `json:"upper"`
	}
	for _, c := range loadRef[tCase](t, "t_interval.json") {
		t.Run(c.Name, func(t *testing.T) {
			got, err := MeanCI(c.Values, c.Confidence)
			if err != nil {
				t.Fatal(err)
			}
			checkNum(t, "mean", got.Value, c.Mean, tolDefault)
			checkNum(t, "lower", got.Lo, c.Lower, tolDefault)
			checkNum(t, "upper", got.Hi, c.Upper, tolDefault)
			_, sem, _ := meanSEM(c.Values)
			checkNum(t, "sem", sem, c.SEM, tolDefault)
		})
	}
}

// TestMeanCIDegenerate shows the single-value and error cases of MeanCI.
func TestMeanCIDegenerate(t *testing.T) {
	got, err := MeanCI([]float64{42.5}, 0.95)
	if err != nil {
		t.Fatalf("single value: unexpected error %v", err)
	}
	if got.Value != 42.5 || !allNaN(got.Lo, got.Hi) {
		t.Errorf("single value: got %+v, want {42.5 NaN NaN}", got)
	}
	errCases := []struct {
		name       string
		values     []float64
		confidence float64
	}{
		{"empty", nil, 0.95},
		{"confidence 0", []float64{1, 2}, 0},
		{"confidence 1", []float64{1, 2}, 1},
		{"NaN value", []float64{1, math.NaN()}, 0.95},
		{"Inf value", []float64{1, math.Inf(1)}, 0.95},
	}
	for _, tt := range errCases {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := MeanCI(tt.values, tt.confidence); err == nil {
				t.Errorf("got %+v, nil error; want an error", got)
			}
		})
	}
}

// TestDetectionRate checks the thin Wilson wrapper against hand-counted
// values: 3 of 96 detected is the auditbench_3_of_96 case of wilson.json.
func TestDetectionRate(t *testing.T) {
	detected := make([]bool, 96)
	detected[5], detected[50], detected[95] = true, true, true
	got, err := DetectionRate(detected, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Wilson(3, 96, 0.95)
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	empty, err := DetectionRate(nil, 0.95)
	if err != nil || !allNaN(empty.Value, empty.Lo, empty.Hi) {
		t.Errorf("empty: got %+v, %v; want NaN estimate, nil error", empty, err)
	}
	if _, err := DetectionRate(detected, 1.5); err == nil {
		t.Error("confidence 1.5: want an error")
	}
}

// TestMeanCIFromMomentsReference checks the moments form on every case of
// t_interval.json: the reference's own mean and sem (sd = sem·sqrt(n)) give
// the reference bounds.
func TestMeanCIFromMomentsReference(t *testing.T) {
	type tCase struct {
		Name       string    `json:"name"`
		Values     []float64 `json:"values"`
		Confidence float64   `json:"confidence"`
		Mean       float64   `json:"mean"`
		SEM        float64   `json:"sem"`
		Lower      float64   `json:"lower"`
		Upper      float64   `json:"upper"`
	}
	for _, c := range loadRef[tCase](t, "t_interval.json") {
		t.Run(c.Name, func(t *testing.T) {
			n := len(c.Values)
			got, err := MeanCIFromMoments(n, c.Mean, c.SEM*math.Sqrt(float64(n)), c.Confidence)
			if err != nil {
				t.Fatal(err)
			}
			checkNum(t, "lower", got.Lo, c.Lower, tolDefault)
			checkNum(t, "upper", got.Hi, c.Upper, tolDefault)
		})
	}
	if got, _ := MeanCIFromMoments(1, 3, math.NaN(), 0.95); got.Value != 3 || !allNaN(got.Lo, got.Hi) {
		t.Errorf("one value: got %+v, want {3 NaN NaN}", got)
	}
	if _, err := MeanCIFromMoments(0, 0, 0, 0.95); err == nil {
		t.Error("no values: want an error")
	}
}
