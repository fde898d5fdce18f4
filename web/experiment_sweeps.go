package web

import (
	"fmt"
	"math"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"gonum.org/v1/plot"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views/figures"
	"github.com/auditscope/auditscope/web/app"
)

// sweepQuery is the state of the dose-response and refresh figures: which
// dimension and which epoch. The default epoch differs by figure (the
// calibration sweep is read at epoch 2, the refresh sweep at epoch 1), so it
// travels with the query for values to leave it out.
type sweepQuery struct {
	Dim          string
	Epoch        int
	defaultEpoch int
}

const defaultSweepDim = model.EvalFPCalibration

func parseSweepQuery(q url.Values, defaultEpoch int) (sweepQuery, error) {
	s := sweepQuery{Dim: q.Get("dim"), Epoch: defaultEpoch, defaultEpoch: defaultEpoch}
	if s.Dim == "" {
		s.Dim = defaultSweepDim
	}
	if dimensionTitles[s.Dim] == "" {
		return sweepQuery{}, badRequestf("dim: unknown dimension %q", s.Dim)
	}
	if e := q.Get("epoch"); e != "" {
		n, err := strconv.Atoi(e)
		if err != nil {
			return sweepQuery{}, badRequestf("epoch: want a number, found %q", e)
		}
		s.Epoch = n
	}
	return s, nil
}

// values renders the query back, without defaults.
func (s sweepQuery) values() url.Values {
	v := url.Values{}
	if s.Dim != defaultSweepDim {
		v.Set("dim", s.Dim)
	}
	if s.Epoch != s.defaultEpoch {
		v.Set("epoch", strconv.Itoa(s.Epoch))
	}
	return v
}

// doseSeries groups single-target checkpoints at one epoch by reward and
// returns, for rewards tried at two or more calibration fractions, the
// dimension against the fraction: the paper's dose-response.
func doseSeries(st *app.ExperimentStats, dim string, epoch int) []figures.Series {
	type pt struct{ x, v, lo, hi float64 }
	// One series per reward and reference refresh interval: runs that
	// differ in anything but the fraction are different curves.
	by := map[string][]pt{}
	for _, a := range st.Auditors {
		au := a.Auditor
		if au.Kind != "checkpoint" || au.CalibrationFraction == nil || au.Epoch == nil || int(*au.Epoch) != epoch || (au.MultiTarget != nil && *au.MultiTarget) {
			continue
		}
		name := au.Reward
		if au.RefreshSteps != nil {
			name += fmt.Sprintf(" (refresh %d)", *au.RefreshSteps)
		}
		e := a.Score[dim]
		by[name] = append(by[name], pt{*au.CalibrationFraction, e.Value, e.Lo, e.Hi})
	}
	var rewards []string
	for r, pts := range by {
		xs := map[float64]bool{}
		for _, p := range pts {
			xs[p.x] = true
		}
		if len(xs) >= 2 {
			rewards = append(rewards, r)
		}
	}
	sort.Strings(rewards)
	var out []figures.Series
	for _, r := range rewards {
		pts := by[r]
		sort.Slice(pts, func(i, j int) bool { return pts[i].x < pts[j].x })
		group, rest, _ := strings.Cut(r, " ")
		name := figures.GroupLabel(group)
		if rest != "" {
			name += " " + rest
		}
		s := figures.Series{Name: name, Group: group}
		for _, p := range pts {
			s.Points = append(s.Points, figures.Point{X: p.x, Value: p.v, Lo: p.lo, Hi: p.hi})
		}
		out = append(out, s)
	}
	return out
}

// refreshItems returns reference-pairwise checkpoints without calibration at
// one epoch, one per reference refresh interval, when there are two or more.
func refreshItems(st *app.ExperimentStats, dim string, epoch int) []figures.Interval {
	type item struct {
		steps int64
		it    figures.Interval
	}
	var items []item
	for _, a := range st.Auditors {
		au := a.Auditor
		if au.Kind != "checkpoint" || au.Reward != "reference_pairwise" || au.Epoch == nil || int(*au.Epoch) != epoch ||
			(au.CalibrationFraction != nil && *au.CalibrationFraction != 0) || (au.MultiTarget != nil && *au.MultiTarget) {
			continue
		}
		label, steps := "never refreshed", int64(math.MaxInt64)
		if au.RefreshSteps != nil {
			steps = *au.RefreshSteps
			label = fmt.Sprintf("every %d steps", steps)
		}
		e := a.Score[dim]
		items = append(items, item{steps, figures.Interval{Label: label, Group: "reference_pairwise", Value: e.Value, Lo: e.Lo, Hi: e.Hi}})
	}
	if len(items) < 2 {
		return nil
	}
	sort.Slice(items, func(i, j int) bool { return items[i].steps > items[j].steps })
	out := make([]figures.Interval, len(items))
	for i, it := range items {
		out[i] = it.it
	}
	return out
}

// sweepData is the sweep figures' one loader: the experiment's statistics
// and the query's dimension and epoch (defaultEpoch when it names none).
func (s *Server) sweepData(c echo.Context, defaultEpoch int) (*app.ExperimentStats, string, int, error) {
	q, err := parseSweepQuery(c.QueryParams(), defaultEpoch)
	if err != nil {
		return nil, "", 0, err
	}
	st, err := s.stats.StatsUnder(c.Request().Context(), c.Param("exp"), c.QueryParam("judge"))
	return st, q.Dim, q.Epoch, err
}

func (s *Server) doseFigure(c echo.Context, _, ext string) error {
	st, dim, epoch, err := s.sweepData(c, 2)
	if err != nil {
		return err
	}
	series := doseSeries(st, dim, epoch)
	if len(series) == 0 {
		return notFound(fmt.Sprintf("a calibration sweep at epoch %d in this experiment", epoch))
	}
	p, err := figures.Lines(fmt.Sprintf("%s vs calibration fraction (epoch %d, 95%% CI)", dimensionTitles[dim], epoch)+judgedBy(st.Judge), "calibration fraction", dimensionTitles[dim]+" (0–100)", series)
	if err != nil {
		return err
	}
	return writeFigure(c, p, figures.ColumnWidth, figures.ColumnWidth*0.8, ext, st.Exp.ID+"-dose-"+dim)
}

func (s *Server) refreshFigure(c echo.Context, _, ext string) error {
	st, dim, epoch, err := s.sweepData(c, 1)
	if err != nil {
		return err
	}
	items := refreshItems(st, dim, epoch)
	if len(items) == 0 {
		return notFound(fmt.Sprintf("a reference refresh sweep at epoch %d in this experiment", epoch))
	}
	var p *plot.Plot
	if p, err = figures.IntervalChart(fmt.Sprintf("%s by reference refresh (epoch %d, 95%% CI)", dimensionTitles[dim], epoch)+judgedBy(st.Judge), dimensionTitles[dim]+" (0–100)", items); err != nil {
		return err
	}
	return writeFigure(c, p, figures.ColumnWidth, figures.IntervalChartHeight(items)+figures.ColumnWidth*0.2, ext, st.Exp.ID+"-refresh-"+dim)
}
