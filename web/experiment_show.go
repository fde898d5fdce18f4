package web

import (
	"bytes"
	"context"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/figures"
	"github.com/auditscope/auditscope/web/app"
)

// overviewQuery is the state of the overview page, all from its URL.
type overviewQuery struct {
	Run, Reward, Kind string
	Cal, Epoch        string // "" = any
	Sort              string // a dimension key or "name"
	Desc              bool
	Dim               string // the dimension the figure shows
}

func parseOverviewQuery(q url.Values) (overviewQuery, error) {
	o := overviewQuery{Run: q.Get("run"), Reward: q.Get("reward"), Kind: q.Get("kind"), Cal: q.Get("cal"), Epoch: q.Get("epoch"),
		Sort: q.Get("sort"), Dim: q.Get("dim")}
	if o.Sort == "" {
		o.Sort = "order"
	}
	if o.Sort != "order" && o.Sort != "name" && dimensionTitles[o.Sort] == "" {
		return o, badRequestf("sort: unknown column %q (use name or one of %s)", o.Sort, strings.Join(dimensionKeys, ", "))
	}
	switch q.Get("dir") {
	case "", "desc":
		o.Desc = q.Get("dir") == "desc" || (q.Get("dir") == "" && o.Sort != "name" && o.Sort != "order")
	case "asc":
	default:
		return o, badRequestf("dir: want asc or desc, found %q", q.Get("dir"))
	}
	if o.Dim == "" {
		o.Dim = "composite"
	}
	if dimensionTitles[o.Dim] == "" {
		return o, badRequestf("dim: unknown dimension %q (use one of %s)", o.Dim, strings.Join(dimensionKeys, ", "))
	}
	if o.Kind != "" && o.Kind != "baseline" && o.Kind != "checkpoint" {
		return o, badRequestf("kind: want baseline or checkpoint, found %q", o.Kind)
	}
	if o.Cal != "" {
		if _, err := strconv.ParseFloat(o.Cal, 64); err != nil {
			return o, badRequestf("cal: want a calibration fraction such as 0.5, found %q", o.Cal)
		}
	}
	if o.Epoch != "" {
		if _, err := strconv.Atoi(o.Epoch); err != nil {
			return o, badRequestf("epoch: want a number, found %q", o.Epoch)
		}
	}
	return o, nil
}

// values renders the query back, without defaults, for links.
func (o overviewQuery) values() url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"run": o.Run, "reward": o.Reward, "kind": o.Kind, "cal": o.Cal, "epoch": o.Epoch} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if o.Sort != "order" {
		v.Set("sort", o.Sort)
		if o.Desc {
			v.Set("dir", "desc")
		} else {
			v.Set("dir", "asc")
		}
	}
	if o.Dim != "composite" {
		v.Set("dim", o.Dim)
	}
	return v
}

// filter keeps the auditors the query selects, sorted as asked.
func (o overviewQuery) filter(all []app.AuditorScores) []app.AuditorScores {
	var out []app.AuditorScores
	for _, a := range all {
		au := a.Auditor
		if o.Run != "" && au.Run != o.Run {
			continue
		}
		if o.Reward != "" && au.Reward != o.Reward {
			continue
		}
		if o.Kind != "" && au.Kind != o.Kind {
			continue
		}
		if o.Cal != "" {
			want, _ := strconv.ParseFloat(o.Cal, 64)
			if au.CalibrationFraction == nil || math.Abs(*au.CalibrationFraction-want) > 1e-9 {
				continue
			}
		}
		if o.Epoch != "" {
			want, _ := strconv.Atoi(o.Epoch)
			if au.Epoch == nil || int(*au.Epoch) != want {
				continue
			}
		}
		out = append(out, a)
	}
	if o.Sort == "order" {
		return out
	}
	slices.SortStableFunc(out, func(a, b app.AuditorScores) int {
		if o.Sort == "name" {
			if o.Desc {
				return strings.Compare(b.Auditor.Name, a.Auditor.Name)
			}
			return strings.Compare(a.Auditor.Name, b.Auditor.Name)
		}
		return app.CmpNaNLast(a.Score[o.Sort].Value, b.Score[o.Sort].Value, o.Desc)
	})
	return out
}

func (s *Server) showExperiment(c echo.Context) error {
	ctx := c.Request().Context()
	q, err := parseOverviewQuery(c.QueryParams())
	if err != nil {
		return err
	}
	st, err := s.overviewStats(c)
	if err != nil {
		return err
	}
	sq, err := parseScorerQuery(c.QueryParams())
	if err != nil {
		return err
	}
	jq, err := parseJudgedQuery(c.QueryParams())
	if err != nil {
		return err
	}
	judgedVM, _, err := s.judgedView(ctx, st.Exp.ID, jq)
	if err != nil {
		return err
	}
	scorers, err := s.overview.Scorers(ctx, st.Exp.ID)
	if err != nil {
		return err
	}
	sq.sort(scorers)
	rows := q.filter(st.Auditors)
	vm := views.ExperimentView{Exp: st.Exp, Query: q.values(), Sort: q.Sort, Desc: q.Desc, Dim: q.Dim,
		Filter:  views.OverviewFilter{Run: q.Run, Reward: q.Reward, Kind: q.Kind, Cal: q.Cal, Epoch: q.Epoch},
		Scorers: scorerView(scorers), ScorerSort: sq.Sort, ScorerDesc: sq.Desc, HasSuite: hasSuite(st.Auditors),
		Judged: judgedVM, Outcomes: outcomeJudges(c, st)}
	keepJudge(c, vm.Query)
	if sq.Sort != "" {
		vm.Query.Set("ssort", sq.Sort)
		vm.Query.Set("sdir", map[bool]string{true: "desc", false: "asc"}[sq.Desc])
	}
	for _, k := range dimensionKeys {
		vm.Columns = append(vm.Columns, views.Column{Key: k, Title: dimensionTitles[k]})
	}
	overviewOptions(&vm, st)
	vm.Rows = scoreRows(rows)
	// Correlations of the four dimensions and the composite across the
	// auditors shown.
	for _, k := range app.SuiteDimensions {
		vm.CorrNames = append(vm.CorrNames, dimensionTitles[k])
	}
	if cr, ok := app.Correlations(rows); ok {
		vm.CorrR, vm.CorrP, vm.CorrN, vm.CorrPopulation, vm.CorrRuns = cr.R, cr.P, cr.N, cr.Population, cr.Runs
	}
	if vm.HasSuite {
		if vm.Ranking, err = s.rankingView(ctx, st, q, rows); err != nil {
			return err
		}
	}
	vm.HasDose = len(doseSeries(st, model.EvalFPCalibration, 2)) > 0
	vm.HasRefresh = len(refreshItems(st, app.Composite, 1)) > 0
	return render(c, http.StatusOK, views.Experiment(vm))
}

// overviewOptions are the overview filter's choices: the runs, their
// rewards and calibration fractions, and the checkpoints' epochs.
func overviewOptions(vm *views.ExperimentView, st *app.ExperimentStats) {
	rewards := map[string]bool{}
	cals := map[string]bool{}
	epochs := map[string]bool{}
	for _, r := range st.Runs {
		vm.Runs = append(vm.Runs, views.Option{Value: r.ID, Label: r.Name})
		if !rewards[r.Reward] {
			rewards[r.Reward] = true
			vm.Rewards = append(vm.Rewards, views.Option{Value: r.Reward, Label: r.Reward})
		}
		cal := strconv.FormatFloat(r.CalibrationFraction, 'g', -1, 64)
		if !cals[cal] {
			cals[cal] = true
			vm.Cals = append(vm.Cals, views.Option{Value: cal, Label: cal})
		}
	}
	for _, a := range st.Auditors {
		if a.Auditor.Epoch != nil {
			e := strconv.FormatInt(*a.Auditor.Epoch, 10)
			if !epochs[e] {
				epochs[e] = true
				vm.Epochs = append(vm.Epochs, views.Option{Value: e, Label: e})
			}
		}
	}
}

// scoreRows are the overview's rows: each auditor's dimensions with their
// intervals.
func scoreRows(rows []app.AuditorScores) []views.ScoreRow {
	var out []views.ScoreRow
	for _, a := range rows {
		r := views.ScoreRow{Key: a.Auditor.Key, ID: a.Auditor.ID, Name: a.Auditor.Name, Kind: a.Auditor.Kind, Run: a.Auditor.Run}
		for _, k := range dimensionKeys {
			e := a.Score[k]
			r.Cells = append(r.Cells, views.EstimateCell{Value: e.Value, Lo: e.Lo, Hi: e.Hi, N: a.N[k], Dim: k})
		}
		out = append(out, r)
	}
	return out
}

// hasSuite reports whether any auditor has a value on any dimension of the
// evaluation suite: Inspect logs that are not audits have none.
func hasSuite(all []app.AuditorScores) bool {
	for _, a := range all {
		for _, k := range dimensionKeys {
			if !math.IsNaN(a.Score[k].Value) {
				return true
			}
		}
	}
	return false
}

// experimentScoresCSV serves every shown auditor × dimension as rows of
// auditor,dimension,value,lo,hi,n.
func (s *Server) experimentScoresCSV(c echo.Context) error {
	q, err := parseOverviewQuery(c.QueryParams())
	if err != nil {
		return err
	}
	st, err := s.overviewStats(c)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	w := newCSVWriter(&buf)
	w.Write([]string{"auditor", "dimension", "value", "lo", "hi", "n", "interval"})
	for _, a := range q.filter(st.Auditors) {
		for _, k := range dimensionKeys {
			e := a.Score[k]
			w.Write([]string{a.Auditor.ID, k, csvFloat(e.Value), csvFloat(e.Lo), csvFloat(e.Hi), strconv.Itoa(a.N[k]), a.Interval[k]})
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return csvBlob(c, st.Exp.ID+"-scores.csv", buf.Bytes())
}

// csvFloat writes a float exactly, and an undefined value as an empty cell.
func csvFloat(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	// Judge scores are nearly always whole numbers: below a million 'g'
	// writes them as integers, which Itoa does without the float
	// formatting (a few per cent of a large export; -0 keeps its sign).
	if v == math.Trunc(v) && math.Abs(v) < 1e6 && !math.Signbit(v) {
		return strconv.Itoa(int(v))
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// experimentFigure serves the overview's figure in the format its file
// extension names.
func (s *Server) experimentFigure(c echo.Context, _, ext string) error {
	q, err := parseOverviewQuery(c.QueryParams())
	if err != nil {
		return err
	}
	st, err := s.overviewStats(c)
	if err != nil {
		return err
	}
	var items []figures.Interval
	for _, a := range q.filter(st.Auditors) {
		e := a.Score[q.Dim]
		g := a.Auditor.Reward
		if a.Auditor.Kind == "baseline" {
			g = "baseline"
		}
		items = append(items, figures.Interval{Label: a.Auditor.Name, Group: g, Value: e.Value, Lo: e.Lo, Hi: e.Hi})
	}
	p, err := figures.IntervalChart(dimensionTitles[q.Dim]+" by auditor (95% CI)"+judgedBy(st.Judge), dimensionTitles[q.Dim]+" (0–100)", items)
	if err != nil {
		return err
	}
	return writeFigure(c, p, figures.ColumnWidth*2, figures.IntervalChartHeight(items), ext, st.Exp.ID+"-"+q.Dim)
}

// rankShown is how many of the best a ranking shows before folding the
// rest away.
const rankShown = 10

// rankingView ranks the auditors the overview shows (rows) by composite and
// compares the best with each (app.Rank); nil when none has a composite.
func (s *Server) rankingView(ctx context.Context, st *app.ExperimentStats, q overviewQuery, rows []app.AuditorScores) (*views.CompositeRankingView, error) {
	shown := make(map[string]bool, len(rows))
	for _, a := range rows {
		shown[a.Auditor.ID] = true
	}
	var ids []string // in the experiment's order, whatever the table's sort
	for _, a := range st.Auditors {
		if shown[a.Auditor.ID] {
			ids = append(ids, a.Auditor.ID)
		}
	}
	r, err := s.overview.Rank(ctx, st, ids)
	if err != nil || len(r.Rows) == 0 {
		return nil, err
	}
	names := auditorNames(st)
	v := &views.CompositeRankingView{
		Filtered: q.Run != "" || q.Reward != "" || q.Kind != "" || q.Cal != "" || q.Epoch != ""}
	for i, x := range r.Rows {
		row := views.CompositeRankRow{Rank: i + 1, ID: x.ID, Name: names[x.ID],
			Value: x.Composite.Value, Lo: x.Composite.Lo, Hi: x.Composite.Hi,
			Diff: x.VsBest.Value, DiffLo: x.VsBest.Lo, DiffHi: x.VsBest.Hi, P: x.VsBest.P, PHolm: x.VsBest.PHolm, PFloor: x.VsBest.PFloor,
			Tied: x.Tied, Best: i == 0, Method: x.VsBest.Method, Compare: views.CompareJudgeURL(st.Exp.ID, st.Judge, r.Best(), x.ID)}
		if i < rankShown {
			v.Rows = append(v.Rows, row)
		} else {
			v.Rest = append(v.Rest, row)
		}
	}
	for _, id := range r.Unranked {
		v.Unranked = append(v.Unranked, names[id])
	}
	return v, nil
}
