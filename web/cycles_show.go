package web

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"

	"github.com/labstack/echo/v4"
	"gonum.org/v1/plot"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/figures"
	"github.com/auditscope/auditscope/web/app"
)

const (
	defaultCycleLen = 4
	maxCycleLen     = 8    // the URL's bound is capped: longer bounds are a 400
	maxCyclesListed = 1000 // the list stops here and says so
)

// pairwiseGraph is a win matrix between items.
type pairwiseGraph struct {
	IDs, Labels []string
	Wins        [][]float64
}

// auditorGraph builds the win matrix between auditors from judgments of the
// given kind whose two sides are audits of different auditors.
func (s *Server) auditorGraph(c echo.Context, kind string) (*app.ExperimentStats, pairwiseGraph, error) {
	ctx := c.Request().Context()
	st, err := s.app.Stats(ctx, c.Param("exp"))
	if err != nil {
		return nil, pairwiseGraph{}, err
	}
	sides, err := s.store.SideJudgments(ctx, st.Exp.ID, kind)
	if err != nil {
		return nil, pairwiseGraph{}, err
	}
	idx := map[string]int{}
	var g pairwiseGraph
	names := map[string]string{}
	for _, a := range st.Auditors {
		names[a.Auditor.ID] = a.Auditor.Name
	}
	type pair struct{ a, b string }
	wins := map[pair]float64{}
	for _, j := range sides {
		if j.OtherAuditor == "" || j.OtherAuditor == j.Auditor || j.Outcome != "win" {
			continue
		}
		for _, id := range []string{j.Auditor, j.OtherAuditor} {
			if _, ok := idx[id]; !ok {
				idx[id] = len(g.IDs)
				g.IDs = append(g.IDs, id)
			}
		}
		wins[pair{j.Auditor, j.OtherAuditor}]++
	}
	// Keep the experiment's auditor order.
	order := map[string]int{}
	for i, a := range st.Auditors {
		order[a.Auditor.ID] = i
	}
	sort.Slice(g.IDs, func(i, j int) bool { return order[g.IDs[i]] < order[g.IDs[j]] })
	g.Wins = make([][]float64, len(g.IDs))
	for i, a := range g.IDs {
		g.Labels = append(g.Labels, names[a])
		g.Wins[i] = make([]float64, len(g.IDs))
		for j, b := range g.IDs {
			g.Wins[i][j] = wins[pair{a, b}]
		}
	}
	return st, g, nil
}

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

// cyclesView analyses a win matrix: majority edges, elementary cycles
// (3-cycles first), counts and a Bradley–Terry ranking with items in
// cycles flagged.
func cyclesView(g pairwiseGraph, maxLen int) views.CyclesView {
	v := views.CyclesView{MaxLen: maxLen, Items: len(g.IDs)}
	if len(g.IDs) == 0 {
		return v
	}
	cycles, capped := analysis.CyclesCapped(g.Wins, maxLen, maxCyclesListed)
	sort.SliceStable(cycles, func(i, j int) bool { return len(cycles[i]) < len(cycles[j]) })
	v.Capped = capped
	v.Count3 = analysis.CountCycles3(g.Wins)
	for _, cyc := range cycles {
		cv := views.Cycle{}
		for k, i := range cyc {
			j := cyc[(k+1)%len(cyc)]
			cv.Edges = append(cv.Edges, views.CycleEdge{From: g.IDs[i], FromName: g.Labels[i], To: g.IDs[j], ToName: g.Labels[j],
				Wins: int(g.Wins[i][j]), Losses: int(g.Wins[j][i])})
		}
		v.Cycles = append(v.Cycles, cv)
	}
	inCycle := analysis.InCycle(g.Wins)
	bt, err := analysis.BradleyTerryCI(g.Wins, 0.95)
	if err != nil {
		v.BTError = "No Bradley–Terry ranking: " + err.Error()
	}
	nan := math.NaN()
	for i := range g.IDs {
		r := views.RankRow{ID: g.IDs[i], Name: g.Labels[i], InCycle: inCycle[i], Strength: nan, Lo: nan, Hi: nan}
		for j := range g.IDs {
			r.Wins += int(g.Wins[i][j])
			r.Losses += int(g.Wins[j][i])
		}
		if bt != nil {
			r.Strength, r.Lo, r.Hi = bt[i].Value, bt[i].Lo, bt[i].Hi
			// The fit fixes the last item at 0; it has no interval of its own.
			if i == len(g.IDs)-1 {
				r.Anchor, r.Lo, r.Hi = true, nan, nan
				v.BTAnchor = g.Labels[i]
			}
		}
		v.Ranking = append(v.Ranking, r)
	}
	if bt != nil {
		rankByStrength(v.Ranking)
	}
	v.Edges = len(analysis.MajorityEdges(g.Wins))
	return v
}

// rankByStrength sorts rows by log-strength, strongest first, and ranks
// them; strengths equal to within rounding residue (1e-9) share a rank and
// keep the experiment's order, so two exactly tied auditors are never
// ordered by noise.
func rankByStrength(rows []views.RankRow) {
	same := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(a)) }
	sort.SliceStable(rows, func(i, j int) bool {
		return !same(rows[i].Strength, rows[j].Strength) && rows[i].Strength > rows[j].Strength
	})
	for i := range rows {
		rows[i].Rank = i + 1
		if i > 0 && same(rows[i].Strength, rows[i-1].Strength) {
			rows[i].Rank = rows[i-1].Rank
		}
	}
}

func (s *Server) showCycles(c echo.Context) error {
	kind, maxLen, err := parseCycleQuery(c)
	if err != nil {
		return err
	}
	st, g, err := s.auditorGraph(c, kind)
	if err != nil {
		return err
	}
	v := cyclesView(g, maxLen)
	v.Exp, v.Kind = st.Exp, kind
	return render(c, http.StatusOK, views.CyclesPage(v))
}

func (s *Server) cyclesFigure(c echo.Context, ext string) error {
	kind, maxLen, err := parseCycleQuery(c)
	if err != nil {
		return err
	}
	st, g, err := s.auditorGraph(c, kind)
	if err != nil {
		return err
	}
	p := graphFigure(fmt.Sprintf("Majority preferences (%s judgments); red: on a cycle", kind), g, maxLen)
	return writeFigure(c, p, figures.ColumnWidth*2, figures.ColumnWidth*1.1, ext, st.Exp.ID+"-cycles")
}

// graphFigure draws the majority graph, cycle edges highlighted.
func graphFigure(title string, g pairwiseGraph, maxLen int) *plot.Plot {
	edges := analysis.MajorityEdges(g.Wins)
	cycles, _ := analysis.CyclesCapped(g.Wins, maxLen, maxCyclesListed)
	hot := map[[2]int]bool{}
	for _, cyc := range cycles {
		for k, i := range cyc {
			hot[[2]int{i, cyc[(k+1)%len(cyc)]}] = true
		}
	}
	return figures.Graph(title, g.Labels, edges, analysis.InCycle(g.Wins), hot)
}
