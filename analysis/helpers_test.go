package analysis

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The reference vectors live in testdata/stats at the repository root; its
// README gives the producing library for each file and the tolerances used
// below.
const statsDir = "testdata/stats"

// refFile holds one reference file: {"source": ..., "cases": [...]}.
type refFile[C any] struct {
	Source string `json:"source"`
	Cases  []C    `json:"cases"`
}

// loadRef decodes the named reference file from the repository's
// testdata/stats and fails the test (never skips) when it cannot.
func loadRef[C any](t testing.TB, name string) []C {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "..", statsDir, name)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("reference file: %v", err)
	}
	var f refFile[C]
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("decode %s: %v", p, err)
	}
	if len(f.Cases) == 0 {
		t.Fatalf("%s has no cases", p)
	}
	return f.Cases
}

// tolDefault is the README's default float tolerance:
// |got - want| <= 1e-9·|want| + 1e-12.
func tolDefault(got, want float64) bool {
	return math.Abs(got-want) <= 1e-9*math.Abs(want)+1e-12
}

// tolAbs returns an absolute tolerance check.
func tolAbs(eps float64) func(got, want float64) bool {
	return func(got, want float64) bool { return math.Abs(got-want) <= eps }
}

// checkFloat compares got with a nullable reference value: null must come
// back as NaN, a number must be matched within ok.
func checkFloat(t *testing.T, what string, got float64, want *float64, ok func(got, want float64) bool) {
	t.Helper()
	if want == nil {
		if !math.IsNaN(got) {
			t.Errorf("%s: got %v, want NaN (reference null)", what, got)
		}
		return
	}
	if math.IsNaN(got) || !ok(got, *want) {
		t.Errorf("%s: got %.17g, want %.17g (diff %.3g)", what, got, *want, got-*want)
	}
}

// checkNum is checkFloat for a non-nullable reference value.
func checkNum(t *testing.T, what string, got, want float64, ok func(got, want float64) bool) {
	t.Helper()
	checkFloat(t, what, got, &want, ok)
}

// allNaN reports whether every argument is NaN.
func allNaN(vs ...float64) bool {
	for _, v := range vs {
		if !math.IsNaN(v) {
			return false
		}
	}
	return true
}

// wantPanic checks that f panics with a message naming fn: slices of
// different lengths are a caller bug (doc.go).
func wantPanic(t *testing.T, fn string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if msg, _ := r.(string); !strings.Contains(msg, fn) {
			t.Errorf("%s: got panic %v, want one naming %s", fn, r, fn)
		}
	}()
	f()
}
