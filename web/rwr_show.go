package web

import (
	"math"
	"net/http"
	"net/url"
	"slices"
	"sort"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/figures"
	"github.com/auditscope/auditscope/web/app"
)

// rwrRows is the RWR page's one loader, shared by the page, its CSV and
// its figure: every auditor's reference win rates, and the behaviors.
func (s *Server) rwrRows(c echo.Context) (*app.ExperimentStats, []app.RWRRow, []string, map[string][]string, error) {
	return s.analyses.RWR(c.Request().Context(), c.Param("exp"))
}

// rwrQuery is the RWR page's and figure's state: which training run the
// figure draws. Without one, the first run with reference judgments.
type rwrQuery struct {
	Run   string
	first string
}

// parseRWRQuery checks the run against runs, those with reference
// judgments in order.
func parseRWRQuery(q url.Values, runs []string) (rwrQuery, error) {
	r := rwrQuery{Run: q.Get("run")}
	if len(runs) > 0 {
		r.first = runs[0]
	}
	if r.Run == "" {
		r.Run = r.first
	}
	if r.Run != "" && !slices.Contains(runs, r.Run) {
		return rwrQuery{}, app.UnknownValue("run", r.Run, runs)
	}
	return r, nil
}

// values renders the query back, without defaults.
func (r rwrQuery) values() url.Values {
	v := url.Values{}
	if r.Run != r.first {
		v.Set("run", r.Run)
	}
	return v
}

// rwrRuns lists the runs of the rows, in order.
func rwrRuns(rows []app.RWRRow) []string {
	var runs []string
	seen := map[string]bool{}
	for _, r := range rows {
		if r.Auditor.Run != "" && !seen[r.Auditor.Run] {
			seen[r.Auditor.Run] = true
			runs = append(runs, r.Auditor.Run)
		}
	}
	return runs
}

func (s *Server) showRWR(c echo.Context) error {
	st, rows, behaviors, targets, err := s.rwrRows(c)
	if err != nil {
		return err
	}
	runs := rwrRuns(rows)
	q, err := parseRWRQuery(c.QueryParams(), runs)
	if err != nil {
		return err
	}
	vm := views.RWRView{Exp: st.Exp, Behaviors: behaviors, Run: q.Run, Runs: runs, RunNames: map[string]string{},
		TrainTargets: targets["train"], HeldoutTargets: targets["heldout"], Few: app.FewJudgments}
	for _, r := range st.Runs {
		vm.RunNames[r.ID] = r.Name
	}
	for _, r := range rows {
		row := views.RWRRow{Auditor: r.Auditor.ID, Name: r.Auditor.Name, Run: r.Auditor.Run,
			Train: rateCell(r.RWR.Train), Heldout: rateCell(r.RWR.Heldout), Benign: rateCell(r.Benign), Gap: views.Interval(r.Gap)}
		for _, b := range behaviors {
			row.ByBehavior = append(row.ByBehavior, rateCell(r.RWR.ByBehavior[b]))
		}
		vm.Rows = append(vm.Rows, row)
	}
	return render(c, http.StatusOK, views.RWRPage(vm))
}

func rateCell(r app.SplitRate) views.RateCell {
	return views.RateCell{N: r.N, Wins: r.Wins, Losses: r.Losses, Ties: r.Ties, Value: r.Rate.Value, Lo: r.Rate.Lo, Hi: r.Rate.Hi}
}

// rwrFigure plots train and held-out RWR over training steps for each run.
func (s *Server) rwrFigure(c echo.Context, _, ext string) error {
	st, rows, _, _, err := s.rwrRows(c)
	if err != nil {
		return err
	}
	// One run at a time: with every run the figure is unreadable. Without
	// a choice, the first run that has reference judgments is drawn.
	q, err := parseRWRQuery(c.QueryParams(), rwrRuns(rows))
	if err != nil {
		return err
	}
	runFilter := q.Run
	var series []figures.Series
	byRun := map[string][]app.RWRRow{}
	var runs []string
	for _, r := range rows {
		if r.Auditor.Run == "" || (runFilter != "" && r.Auditor.Run != runFilter) {
			continue
		}
		if _, ok := byRun[r.Auditor.Run]; !ok {
			runs = append(runs, r.Auditor.Run)
		}
		byRun[r.Auditor.Run] = append(byRun[r.Auditor.Run], r)
	}
	for _, run := range runs {
		rs := byRun[run]
		sort.Slice(rs, func(i, j int) bool { return app.CheckpointX(rs[i].Auditor) < app.CheckpointX(rs[j].Auditor) })
		for _, sp := range []string{"train", "heldout"} {
			s := figures.Series{Name: figures.GroupLabel(sp), Group: sp}
			for _, r := range rs {
				rate := r.RWR.Train
				if sp == "heldout" {
					rate = r.RWR.Heldout
				}
				s.Points = append(s.Points, figures.Point{X: app.CheckpointX(r.Auditor), Value: 100 * rate.Rate.Value, Lo: 100 * rate.Rate.Lo, Hi: 100 * rate.Rate.Hi})
			}
			series = append(series, s)
		}
	}
	xLabel := "step"
	for _, r := range rows {
		if r.Auditor.Run != "" && r.Auditor.Step == nil {
			xLabel = "epoch"
		}
	}
	runName := runFilter
	for _, r := range st.Runs {
		if r.ID == runFilter {
			runName = r.Name
		}
	}
	p, err := figures.Lines("Reference win rate of "+runName+": training vs held-out behaviors (95% CI)", xLabel, "RWR (%)", series)
	if err != nil {
		return err
	}
	p.Y.Min, p.Y.Max = 0, math.Max(p.Y.Max, 60)
	return writeFigure(c, p, figures.ColumnWidth*1.6, figures.ColumnWidth, ext, st.Exp.ID+"-rwr")
}
