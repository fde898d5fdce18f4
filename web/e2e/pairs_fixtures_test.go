package e2e

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data"
)

// TestPairsFixturesIndependent checks overview.csv and annotators.csv on
// every AnnotatedPairs fixture against values worked out independently by
// testdata/pairs_expected.py (plain Python from the definitions, reading the
// files as Feedback Forensics does), to 1e-9.
func TestPairsFixturesIndependent(t *testing.T) {
	raw, err := os.ReadFile("testdata/pairs_expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]struct {
		File       string                         `json:"file"`
		Overview   map[string]*float64            `json:"overview"`
		Annotators map[string]map[string]*float64 `json:"annotators"`
	}
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	store, err := data.Open(ctx, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	root := filepath.Join("..", "..", "data", "demo", "fixtures")
	for name, w := range want {
		if _, err := store.Import(ctx, filepath.Join(root, w.File), data.ImportOptions{Name: name}); err != nil {
			t.Fatalf("%s: %v", w.File, err)
		}
	}
	s := quietServer(store)
	near := func(got string, want *float64) bool {
		if want == nil {
			return got == ""
		}
		v, err := strconv.ParseFloat(got, 64)
		return err == nil && math.Abs(v-*want) <= 1e-9*math.Abs(*want)+1e-12
	}
	readCSV := func(path string) []map[string]string {
		r := mustGet(t, s, path, http.StatusOK, "text/csv")
		recs, err := csv.NewReader(strings.NewReader(r.Body)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		var out []map[string]string
		for _, rec := range recs[1:] {
			m := map[string]string{}
			for i, h := range recs[0] {
				m[h] = rec[i]
			}
			out = append(out, m)
		}
		return out
	}
	for name, w := range want {
		ov := readCSV("/pairs/" + name + "/overview.csv")
		if len(ov) != 1 {
			t.Fatalf("%s: overview.csv has %d rows", name, len(ov))
		}
		for k, v := range w.Overview {
			if !near(ov[0][k], v) {
				t.Errorf("%s overview %s = %q, want %v", name, k, ov[0][k], *v)
			}
		}
		got := map[string]map[string]string{}
		for _, row := range readCSV("/pairs/" + name + "/annotators.csv") {
			got[row["annotator"]] = row
		}
		for ann, metrics := range w.Annotators {
			row, ok := got[ann]
			if !ok {
				t.Errorf("%s: annotators.csv has no row for %s", name, ann)
				continue
			}
			for k, v := range metrics {
				if !near(row[k], v) {
					want := "empty"
					if v != nil {
						want = strconv.FormatFloat(*v, 'g', -1, 64)
					}
					t.Errorf("%s %s %s = %q, want %s", name, ann, k, row[k], want)
				}
			}
		}
	}
}
