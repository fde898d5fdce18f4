package web

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/figures"
	"github.com/auditscope/auditscope/views/links"
	"github.com/auditscope/auditscope/web/app"
)

// The response models page: who beats whom by the reference's votes, the
// Bradley–Terry ranking and the intransitive cycles, with the query ref
// (default: the default annotator), refmodels and max (the cycle length
// bound, as on the experiments' cycles page).

// modelsQuery is the models page's validated query; its CSVs and figure
// read the same one.
type modelsQuery struct {
	refQuery
	Max int // the cycle length bound, 3 to maxCycleLen
}

func parseModelsQuery(q url.Values, v pairsVocab) (modelsQuery, error) {
	var m modelsQuery
	var err error
	if m.refQuery, err = parseRefQuery(q, v); err != nil {
		return m, err
	}
	m.Max = defaultCycleLen
	if raw := q.Get("max"); raw != "" {
		m.Max, err = strconv.Atoi(raw)
		if err != nil || m.Max < 3 || m.Max > maxCycleLen {
			return m, badRequestf("max: want a cycle length bound from 3 to %d, found %q", maxCycleLen, raw)
		}
	}
	return m, nil
}

// values is the query that parses back to m.
func (m modelsQuery) values() url.Values {
	q := m.refQuery.values()
	if m.Max != defaultCycleLen {
		q.Set("max", strconv.Itoa(m.Max))
	}
	return q
}

// link is the query the page's links carry; withMax adds the bound (the
// cycles and the figure depend on it, the matrix and the ranking do not).
func (m modelsQuery) link(r *pairsReq, withMax bool) url.Values {
	v := r.base()
	v.Set("ref", m.Ref)
	if withMax {
		v.Set("max", strconv.Itoa(m.Max))
	}
	return v
}

// modelsPage is the models page's data: the request, its query, the
// reference and the head-to-head win matrix of the response models by the
// reference's votes.
type modelsPage struct {
	r *pairsReq
	q modelsQuery
	app.ModelWins
}

// modelsData parses the query of r's request and builds the win matrix
// (app's ModelWins).
func (s *Server) modelsData(c echo.Context, r *pairsReq) (modelsPage, error) {
	q, err := parseModelsQuery(c.QueryParams(), s.vocab(c.Request().Context(), r))
	if err != nil {
		return modelsPage{}, err
	}
	r.UseRefModels(q.RefModels)
	return modelsPage{r: r, q: q, ModelWins: r.ModelWins(q.Ref)}, nil
}

// modelsRequest loads the dataset and the models page's data.
func (s *Server) modelsRequest(c echo.Context) (modelsPage, error) {
	r, err := s.pairsRequest(c)
	if err != nil {
		return modelsPage{}, err
	}
	return s.modelsData(c, r)
}

// pairComparisonsURL lists the comparisons between two models, with the
// reference's votes.
func (q modelsQuery) pairComparisonsURL(r *pairsReq, a, b string) templ.SafeURL {
	v := q.link(r, false)
	setList(v, "models", []string{a, b})
	return links.Pairs(r.DS.ID, links.Comparisons, v)
}

func (s *Server) showPairsModels(c echo.Context) error {
	p, err := s.modelsRequest(c)
	if err != nil {
		return err
	}
	r, q, g := p.r, p.q, p.G
	v := views.PairsModels{Dataset: r.datasetView(), RefName: p.Ref.Name, Pairs: p.Pairs, Models: g.Labels,
		MatrixCSV: links.Pairs(r.DS.ID, links.ModelsCSV, q.link(r, false)),
		Form: views.PairsModelsForm{Action: links.Pairs(r.DS.ID, links.Models, nil), Refs: annotatorOptions(r.Pairs, q.Ref),
			Max: q.Max, RefModels: strings.Join(r.RefModels(), ",")},
		Cycles: modelsCycles(g, q.Max)}
	v.Dataset.ExplorerURL = links.Pairs(r.DS.ID, links.Explorer, q.link(r, false))
	v.Rows = winRows(p)
	if len(g.IDs) > 0 {
		v.Baseline = g.IDs[len(g.IDs)-1]
	}
	switch {
	case len(r.Models()) == 0:
		v.Notes = append(v.Notes, "No response names its model, so there is nothing to compare.")
	case p.Pairs == 0:
		v.Notes = append(v.Notes, fmt.Sprintf("%s has no text_a or text_b vote on a comparison between two different models.", p.Ref.Name))
	}
	if left := len(r.Models()) - len(g.IDs); left > 0 && p.Pairs > 0 {
		v.Notes = append(v.Notes, fmt.Sprintf("%d models are in no comparison counted here and are left out.", left))
	}
	v.Links = views.CyclesLinks{Noun: "models", Item: "Model",
		Bound: func(n int) templ.SafeURL {
			u := q.link(r, false)
			u.Set("max", strconv.Itoa(n))
			return links.Pairs(r.DS.ID, links.Models, u)
		},
		Figure: func(format string) templ.SafeURL {
			return links.PairsFigure(r.DS.ID, "models."+format, q.link(r, true))
		},
		FigureAlt:  "majority preference graph between the response models",
		Edge:       func(e views.CycleEdge) templ.SafeURL { return q.pairComparisonsURL(r, e.From, e.To) },
		EdgeTitle:  "the comparisons behind this edge",
		CyclesCSV:  links.Pairs(r.DS.ID, links.PairsCycles, q.link(r, true)),
		RankingCSV: links.Pairs(r.DS.ID, links.PairsRanking, q.link(r, false)),
	}
	return render(c, http.StatusOK, views.PairsModelsPage(v))
}

// winRows are the rows of the win matrix: each cell's wins and losses
// linking to their comparisons, each model's record and win rate.
func winRows(p modelsPage) []views.PairsWinRow {
	r, q, g := p.r, p.q, p.G
	var rows []views.PairsWinRow
	for i, a := range g.IDs {
		row := views.PairsWinRow{Model: a}
		for j, b := range g.IDs {
			w, l := int(g.Wins[i][j]), int(g.Wins[j][i])
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
		wins, losses, e := p.Record(i)
		row.Wins, row.Losses = wins, losses
		row.Rate = views.Undefined
		if !math.IsNaN(e.Value) {
			row.Rate = views.FmtEstimate(e.Value, e.Lo, e.Hi, 2)
		}
		rows = append(rows, row)
	}
	return rows
}

// modelsCycles is cyclesView: with no Bradley–Terry fit (the wins are not
// strongly connected) the log-strengths are undefined, never 0.
func modelsCycles(g app.WinMatrix, maxLen int) views.CyclesView {
	return cyclesView(app.AnalyzeWins(g, maxLen))
}

// pairsModelsFigure draws the models' majority graph, cycle edges
// highlighted.
func (s *Server) pairsModelsFigure(c echo.Context, _, ext string) error {
	p, err := s.modelsRequest(c)
	if err != nil {
		return err
	}
	r := p.r
	fig := graphFigure(fmt.Sprintf("Majority preferences of %s between response models; red: on a cycle", p.Ref.Name), app.AnalyzeWins(p.G, p.q.Max))
	return writeFigure(c, fig, figures.ColumnWidth*2, figures.ColumnWidth*1.1, ext, figureStem(r.DS.ID)+"-models")
}

// pairsModelsCSV exports the win matrix in long format: one row per pair of
// models (in the page's order), wins_a counting model_a's wins over model_b.
func (s *Server) pairsModelsCSV(c echo.Context) error {
	p, err := s.modelsRequest(c)
	if err != nil {
		return err
	}
	g := p.G
	var out [][]string
	for i := range g.IDs {
		for j := i + 1; j < len(g.IDs); j++ {
			out = append(out, []string{g.IDs[i], g.IDs[j], itoa(int(g.Wins[i][j])), itoa(int(g.Wins[j][i]))})
		}
	}
	return writeCSV(c, figureStem(p.r.DS.ID)+"-models.csv", []string{"model_a", "model_b", "wins_a", "wins_b"}, out)
}

// pairsRankingCSV exports the models' Bradley–Terry ranking with cycle
// flags, as the experiments' ranking.csv does for auditors.
func (s *Server) pairsRankingCSV(c echo.Context) error {
	p, err := s.modelsRequest(c)
	if err != nil {
		return err
	}
	v := modelsCycles(p.G, p.q.Max)
	var out [][]string
	for _, row := range v.Ranking {
		rank := ""
		if row.Rank > 0 {
			rank = itoa(row.Rank)
		}
		out = append(out, []string{row.ID, csvFloat(row.Strength), csvFloat(row.Lo), csvFloat(row.Hi), itoa(row.Wins), itoa(row.Losses), strconv.FormatBool(row.InCycle), rank, strconv.FormatBool(row.Anchor), rankingInterval})
	}
	return writeCSV(c, figureStem(p.r.DS.ID)+"-ranking.csv", []string{"model", "log_strength", "lo", "hi", "wins", "losses", "in_cycle", "rank", "anchor", "interval"}, out)
}

// pairsCyclesCSV exports the models' listed cycles, one row per cycle.
func (s *Server) pairsCyclesCSV(c echo.Context) error {
	p, err := s.modelsRequest(c)
	if err != nil {
		return err
	}
	v := modelsCycles(p.G, p.q.Max)
	return writeCSV(c, figureStem(p.r.DS.ID)+"-cycles.csv", cyclesHeader, cyclesRows(v))
}
