package web

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/web/app"
)

// The pairs pages' list parameters and the comparison viewer's queries.

// parseList reads a list parameter given as comma-separated values, as
// repeated parameters, or both. A whole entry that is a known value is kept
// as it is, so values containing commas survive repeated parameters.
func parseList(raw []string, known func(string) bool) []string {
	var out []string
	add := func(v string) {
		if v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	for _, entry := range raw {
		if known(entry) {
			add(entry)
			continue
		}
		for _, v := range strings.Split(entry, ",") {
			add(strings.TrimSpace(v))
		}
	}
	return out
}

// setList writes a list parameter comma-separated, or as repeated
// parameters when a value contains a comma.
func setList(q url.Values, key string, vals []string) {
	if len(vals) == 0 {
		return
	}
	for _, v := range vals {
		if strings.Contains(v, ",") {
			q[key] = slices.Clone(vals)
			return
		}
	}
	q.Set(key, strings.Join(vals, ","))
}

// listQuery is the comparison viewer's validated query.
type listQuery struct {
	refQuery
	Ann    string // an annotator key compared with the reference; "" for none
	Filter string // app.FilterAll unless Ann is set
	// Split is a metadata key and Value one of its values; both "" for
	// every comparison.
	Split, Value string
	Models       []string // one response model, or two
	Text         string   // searched text, trimmed; "" for none
	Page         int      // as asked; the handler caps it to the pages there are
}

func parseListQuery(q url.Values, v pairsVocab) (listQuery, error) {
	var l listQuery
	var err error
	if l.refQuery, err = parseRefQuery(q, v); err != nil {
		return l, err
	}
	if l.Ann = q.Get("ann"); l.Ann != "" && !v.isAnnotator(l.Ann) {
		return l, v.unknownAnnotator("ann", l.Ann)
	}
	if l.Filter = q.Get("filter"); l.Filter == "" {
		l.Filter = app.FilterAll
	}
	if !slices.Contains(app.Filters, l.Filter) {
		return l, badRequestf("filter: %q is not one of all, agree, disagree, one, neither", l.Filter)
	}
	if l.Filter != app.FilterAll && l.Ann == "" {
		return l, badRequestf("filter: %s compares an annotator with the reference; choose ann", l.Filter)
	}
	l.Split, l.Value = q.Get("split"), q.Get("value")
	if l.Split != "" {
		mv, err := v.splitValues(l.Split)
		if err != nil {
			return l, err
		}
		if !slices.ContainsFunc(mv.Values, func(m model.MetaValue) bool { return m.Value == l.Value }) {
			return l, badRequestf("value: %q is not a value of %s in this dataset", l.Value, l.Split)
		}
	} else if l.Value != "" {
		return l, badRequestf("value: choose a split key first")
	}
	l.Models = parseList(q["models"], v.p.IsModel)
	if len(l.Models) > 2 {
		return l, badRequestf("models: choose one response model or a pair, not %d", len(l.Models))
	}
	for _, m := range l.Models {
		if !v.p.IsModel(m) {
			return l, badRequestf("models: %q is not a response model of this dataset", m)
		}
	}
	if l.Text = strings.TrimSpace(q.Get("q")); len(l.Text) > pairsMaxQuery {
		return l, badRequestf("q: the search text is longer than %d bytes", pairsMaxQuery)
	}
	l.Page = 1
	if raw := q.Get("page"); raw != "" {
		if l.Page, err = strconv.Atoi(raw); err != nil {
			return l, badRequestf("page: %q is not a whole number", raw)
		}
	}
	return l, nil
}

// values is the query that parses back to l.
func (l listQuery) values() url.Values {
	q := l.refQuery.values()
	if l.Ann != "" {
		q.Set("ann", l.Ann)
	}
	if l.Filter != app.FilterAll {
		q.Set("filter", l.Filter)
	}
	if l.Split != "" {
		q.Set("split", l.Split)
		q.Set("value", l.Value)
	}
	setList(q, "models", l.Models)
	if l.Text != "" {
		q.Set("q", l.Text)
	}
	if l.Page != 1 {
		q.Set("page", strconv.Itoa(l.Page))
	}
	return q
}

// comparisonQuery is the comparison page's query: it reads no query
// parameters, only its path's dataset and comparison id, given here as
// values. An unknown id is the store's 404.
type comparisonQuery struct {
	Dataset, ID string
}

func parseComparisonQuery(path url.Values) comparisonQuery {
	return comparisonQuery{Dataset: path.Get("dataset"), ID: path.Get("id")}
}

func (q comparisonQuery) values() url.Values {
	return url.Values{"dataset": {q.Dataset}, "id": {q.ID}}
}
