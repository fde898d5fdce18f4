package web

import (
	"bytes"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/links"
	"github.com/auditscope/auditscope/web/app"
)

// The matched units behind one row of the compare page, and their CSV.

// unitsPerPage is how many units a page of the units list shows.
const unitsPerPage = 100

// unitsQuery is the units page's state.
type unitsQuery struct {
	A, B, Dim  string
	Show, Sort string // all, discordant, ahead-a, ahead-b, tied, a, b; signed, diff or unit
	Page       int
	Judge      string // whose outcomes ("" the evaluation judge)
}

// parseUnitsQuery reads the units page's query: A and B among the
// experiment's auditors (or models), dim one of dims (the compare page's
// rows).
func parseUnitsQuery(q url.Values, st *app.ExperimentStats, dims []string) (unitsQuery, error) {
	uq := unitsQuery{A: q.Get("a"), B: q.Get("b"), Dim: q.Get("dim"), Show: q.Get("show"), Sort: q.Get("sort"), Page: 1, Judge: st.Judge}
	ids := make([]string, len(st.Auditors))
	for i, a := range st.Auditors {
		ids[i] = a.Auditor.ID
	}
	for _, p := range []struct{ name, v string }{{"a", uq.A}, {"b", uq.B}} {
		if p.v == "" {
			return uq, badRequestf("%s: missing; give the auditors A and B whose units to list", p.name)
		}
		if !slices.Contains(ids, p.v) {
			return uq, app.UnknownValue(p.name, p.v, ids)
		}
	}
	if uq.A == uq.B {
		return uq, badRequestf("b: %q is A itself; compare it with another auditor", uq.B)
	}
	if uq.Dim == "" {
		return uq, badRequestf("dim: missing; want one of %s", strings.Join(dims, ", "))
	}
	if !slices.Contains(dims, uq.Dim) {
		return uq, app.UnknownValue("dim", uq.Dim, dims)
	}
	switch uq.Show {
	case "":
		uq.Show = "all"
	case "all", "discordant", "ahead-a", "ahead-b", "tied", "a", "b":
	default:
		return uq, badRequestf("show: want all, discordant, ahead-a, ahead-b, tied, a or b, found %q", uq.Show)
	}
	switch uq.Sort {
	case "":
		uq.Sort = "signed"
	case "signed", "diff", "unit":
	default:
		return uq, badRequestf("sort: want signed, diff or unit, found %q", uq.Sort)
	}
	if p := q.Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > maxPage {
			return uq, badRequestf("page: want a number from 1 to %d, found %q", maxPage, p)
		}
		uq.Page = n
	}
	return uq, nil
}

// values is the query of a link to the same view (defaults left out).
func (uq unitsQuery) values() url.Values {
	v := url.Values{"a": {uq.A}, "b": {uq.B}, "dim": {uq.Dim}}
	if uq.Show != "all" {
		v.Set("show", uq.Show)
	}
	if uq.Sort != "signed" {
		v.Set("sort", uq.Sort)
	}
	if uq.Judge != "" {
		v.Set("judge", uq.Judge)
	}
	return v
}

// keep reports whether the filter shows a unit.
func (uq unitsQuery) keep(u app.Unit) bool {
	switch uq.Show {
	case "discordant":
		return u.Discordant()
	case "ahead-a":
		return u.Paired && u.Diff > 0
	case "ahead-b":
		return u.Paired && u.Diff < 0
	case "tied":
		return u.Paired && u.Diff == 0
	case "a":
		return u.A.Has() && !u.B.Has()
	case "b":
		return u.B.Has() && !u.A.Has()
	}
	return true
}

// unitsData is the units page's and its CSV's one loader: the statistics,
// the query, the row's units (counted before the filter) and the ones the
// filter shows, in the order asked for.
func (s *Server) unitsData(c echo.Context) (*app.ExperimentStats, unitsQuery, app.MatchedUnits, []app.Unit, error) {
	st, err := s.stats.StatsUnder(c.Request().Context(), c.Param("exp"), c.QueryParam("judge"))
	if err != nil {
		return nil, unitsQuery{}, app.MatchedUnits{}, nil, err
	}
	uq, err := parseUnitsQuery(c.QueryParams(), st, app.CompareDimensions)
	if err != nil {
		return nil, uq, app.MatchedUnits{}, nil, err
	}
	m, err := s.compares.Units(st, uq.A, uq.B, uq.Dim)
	if err != nil {
		return nil, uq, m, nil, err
	}
	var shown []app.Unit
	for _, u := range m.Units {
		if uq.keep(u) {
			shown = append(shown, u)
		}
	}
	switch uq.Sort {
	case "signed":
		app.BySignedDifference(shown)
	case "diff":
		app.ByDifference(shown)
	}
	return st, uq, m, shown, nil
}

func (s *Server) showUnits(c echo.Context) error {
	if done, err := s.forSamples(c, func(st *app.ExperimentStats) error { return s.showSampleUnits(c, st) }); done || err != nil {
		return err
	}
	st, uq, m, shown, err := s.unitsData(c)
	if err != nil {
		return err
	}
	if past, err := pastLastPage(c, c.Request().URL.Path, c.Request().URL.Query(), uq.Page, len(shown), unitsPerPage); past {
		return err
	}
	cs, err := s.compares.Compare(c.Request().Context(), st, uq.A, []string{uq.B})
	if err != nil {
		return err
	}
	names := auditorNames(st)
	vm := views.UnitsView{Exp: st.Exp, Query: uq.values(), A: uq.A, AName: names[uq.A], B: uq.B, BName: names[uq.B],
		Dim: uq.Dim, Title: dimensionTitles[uq.Dim], Unit: m.Unit, Show: uq.Show, Sort: uq.Sort, Total: len(shown),
		Page: uq.Page, Per: unitsPerPage, NA: m.NA, NB: m.NB, Pairs: m.Pairs, OnlyA: m.OnlyA, OnlyB: m.OnlyB}
	for _, d := range cs[0].Diffs {
		if d.Dimension == uq.Dim {
			vm.Row = compareRow(d)
		}
	}
	for _, d := range app.CompareDimensions {
		vm.Dims = append(vm.Dims, views.Option{Value: d, Label: dimensionTitles[d]})
	}
	for _, u := range shown[min(len(shown), (uq.Page-1)*unitsPerPage):min(len(shown), uq.Page*unitsPerPage)] {
		vm.Binary = vm.Binary || u.Binary
		vm.Rows = append(vm.Rows, unitRow(st.Exp.ID, u))
	}
	return render(c, http.StatusOK, views.UnitsPage(vm))
}

// unitRow maps a unit to the page's row, with links to its audits and to
// the first audit of each side side by side.
func unitRow(exp string, u app.Unit) views.UnitRow {
	side := func(s app.UnitSide) views.UnitSideView {
		v := views.UnitSideView{Value: s.Value}
		for i, id := range s.Audits {
			v.Audits = append(v.Audits, views.UnitAudit{ID: id, URL: links.Audit(exp+":"+id, nil), Value: s.Values[i]})
		}
		return v
	}
	r := views.UnitRow{Dimension: u.Dimension, DimTitle: dimensionTitles[u.Dimension], Behavior: u.Behavior, Seed: u.Seed,
		A: side(u.A), B: side(u.B), Paired: u.Paired, Diff: u.Diff, Binary: u.Binary}
	if u.A.Has() && u.B.Has() {
		r.SideBySide = views.SideBySideDimURL(exp+":"+u.A.Audits[0], exp+":"+u.B.Audits[0], u.Dimension)
	}
	return r
}

// unitsCSV serves every unit the filter shows, one row per unit:
// a,b,dimension,behavior,seed,a_audits,a_value,b_audits,b_value,paired,diff
// (several audits of a side separated by spaces).
func (s *Server) unitsCSV(c echo.Context) error {
	if done, err := s.forSamples(c, func(st *app.ExperimentStats) error { return s.sampleUnitsCSV(c, st) }); done || err != nil {
		return err
	}
	st, uq, _, shown, err := s.unitsData(c)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	w := newCSVWriter(&buf)
	w.Write([]string{"a", "b", "dimension", "behavior", "seed", "a_audits", "a_value", "b_audits", "b_value", "paired", "diff"})
	for _, u := range shown {
		w.Write([]string{uq.A, uq.B, u.Dimension, u.Behavior, u.Seed, strings.Join(u.A.Audits, " "), csvFloat(u.A.Value),
			strings.Join(u.B.Audits, " "), csvFloat(u.B.Value), strconv.FormatBool(u.Paired), csvFloat(u.Diff)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return csvBlob(c, st.Exp.ID+"-units.csv", buf.Bytes())
}

// compareRow maps one difference to the compare page's row.
func compareRow(d app.Diff) views.CompareRow {
	return views.CompareRow{Dim: d.Dimension, Title: dimensionTitles[d.Dimension],
		Value: d.Value, Lo: d.Lo, Hi: d.Hi, P: d.P, PHolm: d.PHolm, PFloor: d.PFloor, NA: d.NA, NB: d.NB, Pairs: d.Pairs, Method: d.Method,
		Unit: d.Unit, OnlyA: d.OnlyA, OnlyB: d.OnlyB}
}
