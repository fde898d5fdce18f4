package web

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/links"
	"github.com/auditscope/auditscope/web/app"
)

// The explorer page (/pairs/{ds}): the service's table mapped to rows,
// sort links, the overview card, the form and the downloads.

// tableView is how the table is shown: the metric, whether intervals are,
// and the order of the rows.
type tableView struct {
	metric app.Metric
	ci     bool
	sort   string // a column key, "name" or "spread"
	desc   bool
}

// explorerTable is the service's table with the view the query asked for.
type explorerTable struct {
	*app.Table
	q    explorerQuery
	view tableView
}

// explorerTable computes the explorer's table for a parsed query; the
// explorer page, table.csv and the figures share it.
func (s *Server) explorerTable(ctx context.Context, r *pairsReq, q explorerQuery, purpose app.Purpose) (explorerTable, error) {
	t, err := s.pairs.ExplorerTable(ctx, r.Pairs, app.ExplorerQuery(q), purpose)
	if err != nil {
		return explorerTable{}, err
	}
	return explorerTable{Table: t, q: q, view: tableView{metric: t.Metric, ci: q.CI, sort: t.Sort, desc: t.Desc}}, nil
}

// state is the canonical query of the view, without sorting: the links'
// base.
func (t explorerTable) state(r *pairsReq) url.Values {
	q := r.base()
	if t.q.Models {
		q.Set("mode", "models")
	} else {
		keys := make([]string, len(t.Refs))
		for i, a := range t.Refs {
			keys[i] = a.Key
		}
		setList(q, "ref", keys)
		setList(q, "with", t.With)
		if t.Split != "" {
			q.Set("split", t.Split)
			setList(q, "values", t.q.Values)
		}
	}
	if t.view.metric.Key != "strength" {
		q.Set("metric", t.view.metric.Key)
	}
	if !t.view.ci {
		q.Set("ci", "0")
	}
	return q
}

// query is the view's canonical query with its sorting, when the request
// chose one.
func (t explorerTable) query(r *pairsReq) url.Values {
	q := t.state(r)
	if t.q.Sort != "" || t.q.Dir != "" {
		q.Set("sort", t.view.sort)
		q.Set("dir", map[bool]string{true: "desc", false: "asc"}[t.view.desc])
	}
	return q
}

// viewRows are the table's rows as shown, in display order.
func (t explorerTable) viewRows(r *pairsReq) []views.PairsRow {
	return t.rowsAs(r, t.view)
}

// rowsAs are the table's rows shown as v says, in v's order (the
// application layer's: app.Table.Order).
func (t explorerTable) rowsAs(r *pairsReq, v tableView) []views.PairsRow {
	order := t.Order(v.metric, v.sort, v.desc)
	out := make([]views.PairsRow, 0, len(order))
	for _, i := range order {
		out = append(out, t.row(r, v, i))
	}
	return out
}

func (s *Server) showPairs(c echo.Context) error {
	r, q, err := s.explorerRequest(c)
	if err != nil {
		return err
	}
	t, err := s.explorerTable(c.Request().Context(), r, q, app.ForPage)
	if err != nil {
		return err
	}
	datasets, err := s.pairs.Datasets(c.Request().Context())
	if err != nil {
		return err
	}
	v := t.view
	e := views.PairsExplorer{Dataset: r.datasetView(), ModelsMode: q.Models, RefName: t.Ref.Name, MetricLabel: v.metric.Label,
		CI: v.ci, Notes: t.Notes, Form: explorerForm(r, t, datasets)}
	e.Rows = t.viewRows(r)
	state := t.state(r)
	sortLink := func(key, label, note string) views.PairsColumn {
		desc := key != "name"
		if key == v.sort {
			desc = !v.desc
		}
		q := cloneValues(state)
		q.Set("sort", key)
		q.Set("dir", map[bool]string{true: "desc", false: "asc"}[desc])
		return views.PairsColumn{Key: key, Label: label, Note: note, SortURL: links.Pairs(r.DS.ID, links.Explorer, q),
			Sorted: key == v.sort, Desc: v.desc}
	}
	e.Corner = sortLink("name", "Annotator", "")
	if q.Models {
		e.Corner.Label = "Trait"
	}
	for _, col := range t.Columns {
		e.Columns = append(e.Columns, sortLink(col.Key, col.Label, col.Note))
	}
	e.SpreadSort = sortLink("spread", "Range across columns", "largest minus smallest value in the row")
	refQ := r.base() // the links that take the reference alone
	if !q.Models {
		o := r.LengthOverview(t.Ref.Key)
		ciA, ciLonger := o.Intervals(0.95)
		e.Overview = views.PairsOverview{Pairs: o.Pairs, PropA: o.PropA, AvgLenA: o.AvgLenA, AvgLenB: o.AvgLenB,
			AvgLenPreferred: o.AvgLenPreferred, AvgLenRejected: o.AvgLenRejected, PropLonger: o.PropLonger, NoTexts: !r.DS.Texts,
			PropALo: ciA.Lo, PropAHi: ciA.Hi, PropLongerLo: ciLonger.Lo, PropLongerHi: ciLonger.Hi}
		refQ.Set("ref", t.Ref.Key)
	}
	tableQ := t.query(r)
	e.Downloads = []views.PairsLink{
		{Label: "table.csv", TestID: "table-csv", URL: links.Pairs(r.DS.ID, links.PairsTableCSV, tableQ)},
		{Label: "annotators.csv", TestID: "annotators-csv", URL: links.Pairs(r.DS.ID, links.AnnotatorsCSV, refQ)},
		{Label: "overview.csv", TestID: "overview-csv", URL: links.Pairs(r.DS.ID, links.OverviewCSV, refQ)},
	}
	e.Figures = explorerFigures(r, t)
	e.ModelsURL = links.Pairs(r.DS.ID, links.Models, refQ)
	return render(c, http.StatusOK, views.PairsExplorerPage(e))
}

// row is row i of the table: the chosen metric per column, each cell
// linking to its comparisons, and the spread across columns.
func (t explorerTable) row(r *pairsReq, v tableView, i int) views.PairsRow {
	a := t.Rows[i]
	row := views.PairsRow{Key: a.Key, Name: a.Name, Kind: a.Kind, Description: a.Description, Spread: t.RowSpread(v.metric, i)}
	for j, col := range t.Columns {
		cell := t.Stats[j][i]
		val, clo, chi := v.metric.Value(cell)
		if !v.ci {
			clo, chi = math.NaN(), math.NaN()
		}
		if cell.Absent != "" {
			row.Cells = append(row.Cells, views.PairsCell{Value: val, Integer: v.metric.Integer, Lo: clo, Hi: chi, Shade: math.NaN(), Title: cell.Absent})
			continue
		}
		cr := &pairsReq{col.Dataset(r.Pairs)}
		q := cr.base()
		q.Set("ann", a.Key)
		q.Set("ref", col.Ref.Key)
		if col.Split != "" {
			q.Set("split", col.Split)
			q.Set("value", col.Value)
		}
		g := cell.Agreement
		row.Cells = append(row.Cells, views.PairsCell{Value: val, Integer: v.metric.Integer, Lo: clo, Hi: chi,
			Shade: v.metric.Shade(val), URL: links.Pairs(cr.DS.ID, links.Comparisons, q),
			Title: fmt.Sprintf("%d kept pairs: %d agree, %d disagree, %d not applicable", g.Kept, g.Agree, g.Disagree, g.NotApplicable),
			Thin:  !v.metric.Integer && g.Agree+g.Disagree < views.PairsThinMin})
	}
	return row
}

func cloneValues(q url.Values) url.Values {
	out := make(url.Values, len(q))
	for k, v := range q {
		out[k] = slices.Clone(v)
	}
	return out
}

// annotatorOptions lists every dataset annotator and model annotator.
func annotatorOptions(p *app.Pairs, selected string) []views.PairsOption {
	var out []views.PairsOption
	for _, a := range p.Annotators() {
		label := a.Name
		if a.Name != a.Key {
			label += " (" + a.Key + ")"
		}
		out = append(out, views.PairsOption{Value: a.Key, Label: label + " · " + a.Kind, Selected: a.Key == selected})
	}
	for _, a := range p.ModelAnnotators() {
		out = append(out, views.PairsOption{Value: a.Key, Label: a.Key, Selected: a.Key == selected})
	}
	return out
}

func splitOptions(keys []string, selected string) []views.PairsOption {
	out := []views.PairsOption{{Value: "", Label: "(no split)", Selected: selected == ""}}
	for _, k := range keys {
		out = append(out, views.PairsOption{Value: k, Label: k, Selected: k == selected})
	}
	return out
}

// maxValueOptions is the most split values the explorer's form offers in a
// select; a key with more (an index, free text) takes them typed.
const maxValueOptions = 200

// maxValueTags is the most split values listed under the form.
const maxValueTags = 40

func explorerForm(r *pairsReq, t explorerTable, datasets []model.DatasetSummary) views.PairsExplorerForm {
	f := views.PairsExplorerForm{Action: links.Pairs(r.DS.ID, links.Explorer, nil), CI: t.view.ci, ModelsMode: t.q.Models,
		Modes: []views.PairsOption{
			{Value: "", Label: "Feedback analysis: annotators against a reference", Selected: !t.q.Models},
			{Value: "models", Label: "Model analysis: traits against each model", Selected: t.q.Models},
		},
		Refs:   annotatorOptions(r.Pairs, t.Ref.Key),
		Splits: splitOptions(r.DS.MetadataKeys, t.Split),
		Split:  t.Split,
		Models: r.Models(),
	}
	for _, d := range datasets {
		if d.ID != r.DS.ID {
			f.Datasets = append(f.Datasets, views.PairsOption{Value: d.ID, Label: d.ID, Selected: slices.Contains(t.With, d.ID)})
		}
	}
	for _, m := range r.Models() {
		f.ModelOptions = append(f.ModelOptions, views.PairsOption{Value: m, Label: m, Selected: slices.Contains(r.RefModels(), m)})
	}
	for i := range f.Refs {
		f.Refs[i].Selected = false
		for _, a := range t.Refs {
			f.Refs[i].Selected = f.Refs[i].Selected || a.Key == f.Refs[i].Value
		}
	}
	for _, m := range app.Metrics {
		f.Metrics = append(f.Metrics, views.PairsOption{Value: m.Key, Label: m.Label, Selected: m.Key == t.view.metric.Key})
	}
	explicit := len(t.q.Values) > 0
	mv := t.MV
	if len(mv.Values) <= maxValueOptions {
		for _, v := range mv.Values {
			// Only values the URL chose are selected: the defaults (the
			// largest) are marked in the list below, and a browser without
			// script would otherwise send them with another split.
			f.ValueOptions = append(f.ValueOptions, views.PairsOption{Value: v.Value, Label: fmt.Sprintf("%s (%d)", v.Value, v.Count),
				Selected: explicit && slices.Contains(t.Values, v.Value)})
		}
	} else if explicit {
		f.Values = strings.Join(t.Values, ",")
	}
	// The values with their counts, chosen ones marked; a key with
	// thousands of values lists the largest.
	for _, v := range mv.Values[:min(len(mv.Values), maxValueTags)] {
		f.SplitValues = append(f.SplitValues, views.PairsSplitValue{Value: v.Value, Count: v.Count, Chosen: slices.Contains(t.Values, v.Value)})
	}
	f.MoreValues = len(mv.Values) - len(f.SplitValues)
	return f
}
