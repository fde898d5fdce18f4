package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/web/app"
)

// queryVocab is a hand-made dataset to parse queries against, without
// HTTP or DuckDB: annotators h (the file's default), p1 and "a,b" (a key
// with a comma), response models X, Y and "m,1", and a metadata key topic
// with values t1, t2 and "x,y".
func queryVocab(t testing.TB) pairsVocab {
	t.Helper()
	row := make([]model.Pref, 2)
	p, err := app.NewPairs(model.PairsDataset{ID: "hand", DefaultAnnotator: "h", MetadataKeys: []string{"topic"}},
		[]model.PairsAnnotator{{ID: "p1", Type: "principle", Idx: 0}, {ID: "h", Type: "human", Idx: 1}, {ID: "a,b", Type: "principle", Idx: 2}},
		model.VoteMatrix{N: 2, Votes: [][]model.Pref{row, row, row},
			Models: []string{"X", "Y", "m,1"}, ModelA: []int32{0, 1}, ModelB: []int32{1, 2}, LenA: []int32{1, 2}, LenB: []int32{2, 1}},
		func(key string) (model.MetaValues, error) {
			return model.MetaValues{Key: key, Values: []model.MetaValue{{Value: "t1", Count: 3}, {Value: "t2", Count: 2}, {Value: "x,y", Count: 1}},
				Of: []int32{0, 1}}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return pairsVocab{ctx: context.Background(), p: p}
}

// parseValues parses a raw query string.
func parseValues(t testing.TB, raw string) url.Values {
	t.Helper()
	q, err := url.ParseQuery(raw)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// wantStatus checks err is the error a handler turns into status.
func wantStatus(t *testing.T, what string, err error, status int) {
	t.Helper()
	var br *app.QueryError
	switch {
	case err == nil:
		t.Errorf("%s: no error, want %d", what, status)
	case status == http.StatusBadRequest && !errors.As(err, &br):
		t.Errorf("%s: %v, want a bad request", what, err)
	case status == http.StatusNotFound && !errors.Is(err, model.ErrNotFound):
		t.Errorf("%s: %v, want not found", what, err)
	}
}

func TestExplorerQueryRoundTrip(t *testing.T) {
	v := queryVocab(t)
	for _, q := range []explorerQuery{
		{Refs: []string{"h"}, Metric: "strength"},
		{RefModels: []string{"X", "m,1"}, Refs: []string{"a,b", "model:X"}, With: []string{"other", "more"}, Metric: "kappa", CI: true, Sort: "ref:h", Dir: "asc"},
		{Refs: []string{"p1"}, Split: "topic", Values: []string{"x,y", "t1"}, Metric: "accuracy", CI: true, Sort: "v:t1"},
		{Refs: []string{"h"}, Split: "topic", Metric: "kept", Dir: "desc"},
		{Models: true, Refs: []string{"h"}, Metric: "strength", Sort: "name"},
		// Model analysis keeps split and with to say it ignores them.
		{Models: true, Refs: []string{"p1", "h"}, Split: "nokey", With: []string{"other"}, Metric: "not_applicable"},
	} {
		got, err := parseExplorerQuery(q.values(), v)
		if err != nil || !reflect.DeepEqual(got, q) {
			t.Errorf("parse(%s) = %+v, %v; want %+v", q.values().Encode(), got, err, q)
		}
	}
	// Raw queries parse to the canonical struct.
	for raw, want := range map[string]explorerQuery{
		"":                                 {Refs: []string{"h"}, Metric: "strength", CI: true},
		"ref=h,p1&ref=a,b&ci=0":            {Refs: []string{"h", "p1", "a,b"}, Metric: "strength"},
		"mode=feedback&ref=model:Y":        {Refs: []string{"model:Y"}, Metric: "strength", CI: true},
		"split=topic&values=t2,t1&values=": {Refs: []string{"h"}, Split: "topic", Values: []string{"t2", "t1"}, Metric: "strength", CI: true},
		"mode=models&ref=nobody&values=t9": {Models: true, Refs: []string{"h"}, Metric: "strength", CI: true},
		"refmodels=Y,X&with=a,+b,a":        {RefModels: []string{"Y", "X"}, Refs: []string{"h"}, With: []string{"a", "b"}, Metric: "strength", CI: true},
	} {
		got, err := parseExplorerQuery(parseValues(t, raw), v)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("parse(%q) = %+v, %v; want %+v", raw, got, err, want)
		}
	}
}

func TestExplorerQueryErrors(t *testing.T) {
	v := queryVocab(t)
	for _, raw := range []string{
		"refmodels=W", "mode=x", "ref=nobody", "ref=h,model:W", "metric=bogus", "ci=yes",
		"values=t1", "split=nokey", "split=topic&values=t9", "split=topic&ref=h,p1", "split=topic&with=other", "dir=up",
	} {
		_, err := parseExplorerQuery(parseValues(t, raw), v)
		wantStatus(t, raw, err, http.StatusBadRequest)
	}
	// No reference at all: 400 in the feedback view, ignored in model
	// analysis.
	none, err := app.NewPairs(model.PairsDataset{ID: "empty"}, nil, model.VoteMatrix{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	empty := pairsVocab{ctx: context.Background(), p: none}
	_, err = parseExplorerQuery(url.Values{}, empty)
	wantStatus(t, "no reference", err, http.StatusBadRequest)
	if q, err := parseExplorerQuery(parseValues(t, "mode=models"), empty); err != nil || q.Refs != nil {
		t.Errorf("model analysis without a reference: %+v, %v", q, err)
	}
}

func TestModelsQueryRoundTrip(t *testing.T) {
	v := queryVocab(t)
	for _, q := range []modelsQuery{
		{refQuery: refQuery{Ref: "h"}, Max: defaultCycleLen},
		{refQuery: refQuery{RefModels: []string{"m,1", "Y"}, Ref: "a,b"}, Max: 3},
		{refQuery: refQuery{Ref: "model:m,1"}, Max: maxCycleLen},
	} {
		got, err := parseModelsQuery(q.values(), v)
		if err != nil || !reflect.DeepEqual(got, q) {
			t.Errorf("parse(%s) = %+v, %v; want %+v", q.values().Encode(), got, err, q)
		}
	}
	if q, err := parseModelsQuery(parseValues(t, "ref=p1,h&max=4"), v); err != nil || q.Ref != "p1" || q.Max != 4 {
		t.Errorf("the first of several references: %+v, %v", q, err)
	}
	for _, raw := range []string{"max=9", "max=2", "max=four", "ref=nobody", "refmodels=W"} {
		_, err := parseModelsQuery(parseValues(t, raw), v)
		wantStatus(t, raw, err, http.StatusBadRequest)
	}
}

func TestListQueryRoundTrip(t *testing.T) {
	v := queryVocab(t)
	for _, q := range []listQuery{
		{refQuery: refQuery{Ref: "h"}, Filter: "all", Page: 1},
		{refQuery: refQuery{RefModels: []string{"X"}, Ref: "p1"}, Ann: "model:X", Filter: "disagree",
			Split: "topic", Value: "x,y", Models: []string{"X", "m,1"}, Text: "café %_", Page: 3},
		{refQuery: refQuery{Ref: "a,b"}, Ann: "h", Filter: "neither", Models: []string{"Y"}, Page: 0},
		{refQuery: refQuery{Ref: "h"}, Filter: "all", Split: "topic", Value: "t2", Page: -2},
	} {
		got, err := parseListQuery(q.values(), v)
		if err != nil || !reflect.DeepEqual(got, q) {
			t.Errorf("parse(%s) = %+v, %v; want %+v", q.values().Encode(), got, err, q)
		}
	}
	if q, err := parseListQuery(parseValues(t, "q=++x++&models=X&models=X"), v); err != nil || q.Text != "x" || !reflect.DeepEqual(q.Models, []string{"X"}) {
		t.Errorf("trimmed text, one model: %+v, %v", q, err)
	}
	for raw, status := range map[string]int{
		"ann=nobody":                    http.StatusBadRequest,
		"filter=some":                   http.StatusBadRequest,
		"filter=agree":                  http.StatusBadRequest,
		"page=x":                        http.StatusBadRequest,
		"split=topic":                   http.StatusBadRequest, // no value "" of topic
		"split=nokey&value=t1":          http.StatusBadRequest,
		"value=t1":                      http.StatusBadRequest,
		"ref=nobody":                    http.StatusBadRequest,
		"refmodels=W":                   http.StatusBadRequest,
		"models=W":                      http.StatusBadRequest,
		"models=X,Y,m,1":                http.StatusBadRequest,
		"q=" + strings.Repeat("x", 600): http.StatusBadRequest,
	} {
		_, err := parseListQuery(parseValues(t, raw), v)
		wantStatus(t, raw, err, status)
	}
}

func TestRefQueryRoundTrip(t *testing.T) {
	v := queryVocab(t)
	for _, q := range []refQuery{{Ref: "h"}, {RefModels: []string{"X", "m,1"}, Ref: "model:Y"}, {Ref: "a,b"}} {
		got, err := parseRefQuery(q.values(), v)
		if err != nil || !reflect.DeepEqual(got, q) {
			t.Errorf("parse(%s) = %+v, %v; want %+v", q.values().Encode(), got, err, q)
		}
	}
	for _, raw := range []string{"ref=nobody", "refmodels=W", "ref=h,nobody"} {
		_, err := parseRefQuery(parseValues(t, raw), v)
		wantStatus(t, raw, err, http.StatusBadRequest)
	}
}

// The comparison page reads only its path (web/e2e's TestComparisonPath
// serves it).
func TestComparisonQueryRoundTrip(t *testing.T) {
	for _, q := range []comparisonQuery{{Dataset: "hand", ID: "c1"}, {Dataset: "odd/set", ID: "a/b %20c"}} {
		if got := parseComparisonQuery(q.values()); got != q {
			t.Errorf("parse(%v) = %+v, want %+v", q.values(), got, q)
		}
	}
}

func TestPaginate(t *testing.T) {
	for _, tt := range []struct {
		total, page             int
		capped, pages, from, to int
	}{
		{0, 1, 1, 1, 0, 0},
		{7, 99, 1, 1, 0, 7},
		{120, 2, 2, 3, 50, 100},
		{120, 3, 3, 3, 100, 120},
		{120, 0, 1, 3, 0, 50},
		{120, -4, 1, 3, 0, 50},
		{100, 9, 2, 2, 50, 100},
	} {
		capped, pages, from, to := paginate(tt.total, 50, tt.page)
		if capped != tt.capped || pages != tt.pages || from != tt.from || to != tt.to {
			t.Errorf("paginate(%d, 50, %d) = %d, %d, %d, %d; want %d, %d, %d, %d", tt.total, tt.page,
				capped, pages, from, to, tt.capped, tt.pages, tt.from, tt.to)
		}
	}
}
