package web

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/figures"
	"github.com/labstack/echo/v4"
)

// The response models page: who beats whom by the reference's votes, the
// Bradley–Terry ranking and the intransitive cycles, with the query ref
// (default: the default annotator), refmodels and max (the cycle length
// bound, as on the experiments' cycles page).

// modelsQuery is the models page's validated query.
type modelsQuery struct {
	ref    pairsAnn
	maxLen int
}

func (r *pairsReq) modelsQuery() (modelsQuery, error) {
	var q modelsQuery
	var err error
	if q.ref, err = r.ref(); err != nil {
		return q, err
	}
	q.maxLen = defaultCycleLen
	if m := r.q.Get("max"); m != "" {
		q.maxLen, err = strconv.Atoi(m)
		if err != nil || q.maxLen < 3 || q.maxLen > maxCycleLen {
			return q, badRequestf("max: want a cycle length bound from 3 to %d, found %q", maxCycleLen, m)
		}
	}
	return q, nil
}

// values is the query the page's links carry; withMax adds the bound.
func (q modelsQuery) values(r *pairsReq, withMax bool) url.Values {
	v := r.base()
	v.Set("ref", q.ref.key)
	if withMax {
		v.Set("max", strconv.Itoa(q.maxLen))
	}
	return v
}

// modelGraph is the head-to-head win matrix of the response models by the
// reference's votes: Wins[i][j] counts the comparisons between models i
// and j (in either position) where the reference preferred i's response.
// Only text_a and text_b votes count, and only comparisons whose two
// responses name two different models. Models in no counted comparison are
// left out; pairs is the number of comparisons counted.
func (d *pairsData) modelGraph(ref []analysis.Vote) (g pairwiseGraph, pairs int) {
	n := len(d.models)
	wins := make([][]float64, n)
	for i := range wins {
		wins[i] = make([]float64, n)
	}
	for i, v := range ref {
		ma, mb := d.modelA[i], d.modelB[i]
		if ma < 0 || mb < 0 || ma == mb {
			continue
		}
		switch v {
		case analysis.VoteA:
			wins[ma][mb]++
		case analysis.VoteB:
			wins[mb][ma]++
		default:
			continue
		}
		pairs++
	}
	var keep []int
	for i := range n {
		for j := range n {
			if wins[i][j] > 0 || wins[j][i] > 0 {
				keep = append(keep, i)
				break
			}
		}
	}
	g.Wins = make([][]float64, len(keep))
	for a, i := range keep {
		g.IDs = append(g.IDs, d.models[i])
		g.Labels = append(g.Labels, d.models[i])
		g.Wins[a] = make([]float64, len(keep))
		for b, j := range keep {
			g.Wins[a][b] = wins[i][j]
		}
	}
	return g, pairs
}

// modelsData resolves the query and builds the win matrix.
func (r *pairsReq) modelsData() (modelsQuery, pairwiseGraph, int, error) {
	q, err := r.modelsQuery()
	if err != nil {
		return q, pairwiseGraph{}, 0, err
	}
	g, pairs := r.d.modelGraph(r.d.votesOf(q.ref, r.refMask))
	return q, g, pairs, nil
}

// pairComparisonsURL lists the comparisons between two models, with the
// reference's votes.
func (q modelsQuery) pairComparisonsURL(r *pairsReq, a, b string) templ.SafeURL {
	v := q.values(r, false)
	setList(v, "models", []string{a, b})
	return views.PathQuery(v, "pairs", r.ds.ID, "comparisons")
}

func (s *Server) showPairsModels(c echo.Context) error {
	r, err := s.pairsRequest(c)
	if err != nil {
		return err
	}
	q, g, pairs, err := r.modelsData()
	if err != nil {
		return err
	}
	v := views.PairsModels{Dataset: r.datasetView(), RefName: q.ref.name, Pairs: pairs, Models: g.Labels,
		MatrixCSV: views.PathQuery(q.values(r, false), "pairs", r.ds.ID, "models.csv"),
		Form: views.PairsModelsForm{Action: views.Path("pairs", r.ds.ID, "models"), Refs: annotatorOptions(r.d, q.ref.key),
			Max: q.maxLen, RefModels: strings.Join(r.refModels, ",")},
		Cycles: modelsCycles(g, q.maxLen)}
	v.Dataset.ExplorerURL = views.PathQuery(q.values(r, false), "pairs", r.ds.ID)
	for i, a := range g.IDs {
		row := views.PairsWinRow{Model: a}
		for j, b := range g.IDs {
			w, l := int(g.Wins[i][j]), int(g.Wins[j][i])
			row.Wins += w
			row.Losses += l
			if i == j {
				row.Cells = append(row.Cells, views.PairsWinCell{Self: true, Shade: math.NaN()})
				continue
			}
			cell := views.PairsWinCell{Wins: w, Losses: l, Shade: math.NaN(), URL: q.pairComparisonsURL(r, a, b),
				Title: fmt.Sprintf("%s preferred over %s %d times, %s over %s %d times", a, b, w, b, a, l)}
			if w+l > 0 {
				cell.Shade = 2 * (float64(w)/float64(w+l) - 0.5)
			}
			row.Cells = append(row.Cells, cell)
		}
		row.Rate = views.Undefined
		if n := row.Wins + row.Losses; n > 0 {
			if e, err := analysis.Wilson(float64(row.Wins), n, pairsConfidence); err == nil {
				row.Rate = views.FmtEstimate(float64(row.Wins)/float64(n), e.Lo, e.Hi, 2)
			}
		}
		v.Rows = append(v.Rows, row)
	}
	if len(g.IDs) > 0 {
		v.Baseline = g.IDs[len(g.IDs)-1]
	}
	switch {
	case len(r.d.models) == 0:
		v.Notes = append(v.Notes, "No response names its model, so there is nothing to compare.")
	case pairs == 0:
		v.Notes = append(v.Notes, fmt.Sprintf("%s has no text_a or text_b vote on a comparison between two different models.", q.ref.name))
	}
	if left := len(r.d.models) - len(g.IDs); left > 0 && pairs > 0 {
		v.Notes = append(v.Notes, fmt.Sprintf("%d models are in no comparison counted here and are left out.", left))
	}
	v.Links = views.CyclesLinks{Noun: "models", Item: "Model",
		Bound: func(n int) templ.SafeURL {
			u := q.values(r, false)
			u.Set("max", strconv.Itoa(n))
			return views.PathQuery(u, "pairs", r.ds.ID, "models")
		},
		Figure: func(format string) templ.SafeURL {
			return views.PathQuery(q.values(r, true), "pairs", r.ds.ID, "figures", "models."+format)
		},
		FigureAlt:  "majority preference graph between the response models",
		Edge:       func(e views.CycleEdge) templ.SafeURL { return q.pairComparisonsURL(r, e.From, e.To) },
		EdgeTitle:  "the comparisons behind this edge",
		CyclesCSV:  views.PathQuery(q.values(r, true), "pairs", r.ds.ID, "cycles.csv"),
		RankingCSV: views.PathQuery(q.values(r, false), "pairs", r.ds.ID, "ranking.csv"),
	}
	return render(c, http.StatusOK, views.PairsModelsPage(v))
}

// modelsCycles is cyclesView with undefined log-strengths when there is no
// Bradley–Terry fit (the wins are not strongly connected), rather than 0.
func modelsCycles(g pairwiseGraph, maxLen int) views.CyclesView {
	v := cyclesView(g, maxLen)
	if v.BTError != "" {
		nan := math.NaN()
		for i := range v.Ranking {
			v.Ranking[i].Strength, v.Ranking[i].Lo, v.Ranking[i].Hi = nan, nan, nan
		}
	}
	return v
}

// pairsModelsFigure draws the models' majority graph, cycle edges
// highlighted.
func (s *Server) pairsModelsFigure(c echo.Context, r *pairsReq, ext string) error {
	q, g, _, err := r.modelsData()
	if err != nil {
		return err
	}
	p := graphFigure(fmt.Sprintf("Majority preferences of %s between response models; red: on a cycle", q.ref.name), g, q.maxLen)
	return writeFigure(c, p, figures.ColumnWidth*2, figures.ColumnWidth*1.1, ext, figureStem(r.ds.ID)+"-models")
}

// pairsModelsCSV exports the win matrix in long format: one row per pair of
// models (in the page's order), wins_a counting model_a's wins over model_b.
func (s *Server) pairsModelsCSV(c echo.Context) error {
	r, err := s.pairsRequest(c)
	if err != nil {
		return err
	}
	_, g, _, err := r.modelsData()
	if err != nil {
		return err
	}
	var out [][]string
	for i := range g.IDs {
		for j := i + 1; j < len(g.IDs); j++ {
			out = append(out, []string{g.IDs[i], g.IDs[j], itoa(int(g.Wins[i][j])), itoa(int(g.Wins[j][i]))})
		}
	}
	return writeCSV(c, figureStem(r.ds.ID)+"-models.csv", []string{"model_a", "model_b", "wins_a", "wins_b"}, out)
}

// pairsRankingCSV exports the models' Bradley–Terry ranking with cycle
// flags, as the experiments' ranking.csv does for auditors.
func (s *Server) pairsRankingCSV(c echo.Context) error {
	r, err := s.pairsRequest(c)
	if err != nil {
		return err
	}
	q, g, _, err := r.modelsData()
	if err != nil {
		return err
	}
	v := modelsCycles(g, q.maxLen)
	var out [][]string
	for _, row := range v.Ranking {
		out = append(out, []string{row.ID, csvFloat(row.Strength), csvFloat(row.Lo), csvFloat(row.Hi), itoa(row.Wins), itoa(row.Losses), strconv.FormatBool(row.InCycle)})
	}
	return writeCSV(c, figureStem(r.ds.ID)+"-ranking.csv", []string{"model", "log_strength", "lo", "hi", "wins", "losses", "in_cycle"}, out)
}

// pairsCyclesCSV exports the models' listed cycles, one row per cycle.
func (s *Server) pairsCyclesCSV(c echo.Context) error {
	r, err := s.pairsRequest(c)
	if err != nil {
		return err
	}
	q, g, _, err := r.modelsData()
	if err != nil {
		return err
	}
	v := cyclesView(g, q.maxLen)
	var out [][]string
	for _, cyc := range v.Cycles {
		ids := make([]string, len(cyc.Edges))
		for i, e := range cyc.Edges {
			ids[i] = e.From
		}
		out = append(out, []string{itoa(len(cyc.Edges)), strings.Join(ids, " > ")})
	}
	return writeCSV(c, figureStem(r.ds.ID)+"-cycles.csv", []string{"length", "cycle"}, out)
}

// pairsModelsFilter is the comparison list's models parameter: one response
// model (comparisons with a response by it) or two (comparisons between
// the two, in either position).
type pairsModelsFilter struct {
	names []string
	ids   []int32
}

func (f pairsModelsFilter) match(a, b int32) bool {
	switch len(f.ids) {
	case 0:
		return true
	case 1:
		return a == f.ids[0] || b == f.ids[0]
	default:
		return a == f.ids[0] && b == f.ids[1] || a == f.ids[1] && b == f.ids[0]
	}
}

func (r *pairsReq) modelsFilter() (pairsModelsFilter, error) {
	var f pairsModelsFilter
	f.names = parseList(r.q["models"], func(v string) bool { _, ok := r.d.modelIndex[v]; return ok })
	if len(f.names) > 2 {
		return f, badRequestf("models: choose one response model or a pair, not %d", len(f.names))
	}
	for _, m := range f.names {
		i, ok := r.d.modelIndex[m]
		if !ok {
			return f, badRequestf("models: %q is not a response model of this dataset", m)
		}
		f.ids = append(f.ids, i)
	}
	return f, nil
}
