package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"gonum.org/v1/plot"

	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/figures"
	"github.com/auditscope/auditscope/web/app"
)

const (
	defaultCycleLen = 4
	maxCycleLen     = 8 // the URL's bound is capped: longer bounds are a 400
)

// cyclesQuery is the cycles page's state: which judgments and the longest
// cycle listed.
type cyclesQuery struct {
	Kind string
	Max  int
}

func parseCyclesQuery(q url.Values) (cyclesQuery, error) {
	c := cyclesQuery{Kind: q.Get("kind"), Max: defaultCycleLen}
	if c.Kind == "" {
		c.Kind = "intragroup"
	}
	if !judgmentKinds[c.Kind] {
		return cyclesQuery{}, badRequestf("kind: want reference, intragroup, realism or crux, found %q", c.Kind)
	}
	if m := q.Get("max"); m != "" {
		n, err := strconv.Atoi(m)
		if err != nil || n < 3 || n > maxCycleLen {
			return cyclesQuery{}, badRequestf("max: want a cycle length bound from 3 to %d, found %q", maxCycleLen, m)
		}
		c.Max = n
	}
	return c, nil
}

// values renders the query back, without defaults.
func (c cyclesQuery) values() url.Values {
	v := url.Values{}
	if c.Kind != "intragroup" {
		v.Set("kind", c.Kind)
	}
	if c.Max != defaultCycleLen {
		v.Set("max", strconv.Itoa(c.Max))
	}
	return v
}

func parseCycleQuery(c echo.Context) (kind string, maxLen int, err error) {
	q, err := parseCyclesQuery(c.QueryParams())
	return q.Kind, q.Max, err
}

// cyclesView maps a win analysis to the page's view: every cycle's edges
// with their counts, and the ranking.
func cyclesView(w app.WinAnalysis) views.CyclesView {
	g := w.Matrix
	v := views.CyclesView{MaxLen: w.MaxLen, Items: len(g.IDs)}
	if len(g.IDs) == 0 {
		return v
	}
	v.Capped, v.Count3 = w.Capped, w.Count3
	for n, cyc := range w.Cycles {
		cv := views.Cycle{P: w.CycleP[n]}
		for k, i := range cyc {
			j := cyc[(k+1)%len(cyc)]
			cv.Edges = append(cv.Edges, views.CycleEdge{From: g.IDs[i], FromName: g.Labels[i], To: g.IDs[j], ToName: g.Labels[j],
				Wins: int(g.Wins[i][j]), Losses: int(g.Wins[j][i]), P: app.EdgeP(int(g.Wins[i][j]), int(g.Wins[j][i]))})
		}
		v.Cycles = append(v.Cycles, cv)
	}
	v.TestP, v.TestMean, v.TestReplays = w.Test.P, w.Test.Mean, w.Test.Replications
	if w.TestErr != nil {
		v.TestError = "No test of the count: the Bradley–Terry fit it replays does not exist (" + w.TestErr.Error() + ")"
	}
	if w.BTErr != nil {
		v.BTError = "No Bradley–Terry ranking: " + w.BTErr.Error()
	}
	for _, r := range w.Ranking {
		i := r.Item
		v.Ranking = append(v.Ranking, views.RankRow{ID: g.IDs[i], Name: g.Labels[i], InCycle: r.InCycle, Rank: r.Rank, Anchor: r.Anchor,
			Strength: r.Strength.Value, Lo: r.Strength.Lo, Hi: r.Strength.Hi, Wins: r.Wins, Losses: r.Losses})
		if r.Anchor {
			v.BTAnchor = g.Labels[i]
		}
	}
	v.Edges = len(w.Edges)
	return v
}

// auditorCycles is the cycles page's one loader, shared by the page, its
// CSVs and its figure.
func (s *Server) auditorCycles(c echo.Context) (*app.ExperimentStats, string, app.WinAnalysis, error) {
	kind, maxLen, err := parseCycleQuery(c)
	if err != nil {
		return nil, "", app.WinAnalysis{}, err
	}
	st, w, err := s.analyses.AuditorCycles(c.Request().Context(), c.Param("exp"), kind, maxLen)
	return st, kind, w, err
}

func (s *Server) showCycles(c echo.Context) error {
	st, kind, w, err := s.auditorCycles(c)
	if err != nil {
		return err
	}
	v := cyclesView(w)
	v.Exp, v.Kind = st.Exp, kind
	return render(c, http.StatusOK, views.CyclesPage(v))
}

func (s *Server) cyclesFigure(c echo.Context, _, ext string) error {
	st, kind, w, err := s.auditorCycles(c)
	if err != nil {
		return err
	}
	p := graphFigure(fmt.Sprintf("Majority preferences (%s judgments); red: on a cycle", kind), w)
	return writeFigure(c, p, figures.ColumnWidth*2, figures.ColumnWidth*1.1, ext, st.Exp.ID+"-cycles")
}

// graphFigure draws the majority graph, cycle edges highlighted.
func graphFigure(title string, w app.WinAnalysis) *plot.Plot {
	hot := map[[2]int]bool{}
	for _, cyc := range w.Cycles {
		for k, i := range cyc {
			hot[[2]int{i, cyc[(k+1)%len(cyc)]}] = true
		}
	}
	return figures.Graph(title, w.Matrix.Labels, w.Edges, w.InCycle, hot)
}

// cyclesHeader and cyclesRows are cycles.csv, of auditors and of response
// models: p is a cycle's weakest edge's (two-sided exact binomial, ties
// left out); count_p the transitive Bradley–Terry replay test of the
// 3-cycle count, the same on every row; finding needs both below 0.05.
var cyclesHeader = []string{"length", "cycle", "edge_records", "edge_p", "p", "finding", "count_p"}

func cyclesRows(v views.CyclesView) [][]string {
	var out [][]string
	for _, cyc := range v.Cycles {
		var path, records, ps []string
		for _, e := range cyc.Edges {
			path = append(path, e.From)
			records = append(records, itoa(e.Wins)+"-"+itoa(e.Losses))
			ps = append(ps, csvFloat(e.P))
		}
		out = append(out, []string{itoa(len(cyc.Edges)), strings.Join(path, " > "), strings.Join(records, " > "), strings.Join(ps, " > "),
			csvFloat(cyc.P), strconv.FormatBool(v.Finding(cyc)), csvFloat(v.TestP)})
	}
	return out
}
