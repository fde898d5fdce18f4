package web

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/web/app"
)

// The CSV twins of the experiment pages' tables. Each computes what its page
// computes, from the same query, and writes every row.

func writeCSV(c echo.Context, name string, header []string, rows [][]string) error {
	var buf bytes.Buffer
	w := newCSVWriter(&buf)
	w.Write(header)
	w.WriteAll(rows)
	if err := w.Error(); err != nil {
		return err
	}
	return csvBlob(c, name, buf.Bytes())
}

func itoa(n int) string { return strconv.Itoa(n) }

func rateCSV(r app.SplitRate) []string {
	return []string{itoa(r.N), itoa(r.Wins), itoa(r.Ties), itoa(r.Losses), csvFloat(r.Rate.Value), csvFloat(r.Rate.Lo), csvFloat(r.Rate.Hi)}
}

// correlationsCSV: the correlation matrix of the overview (same filters).
func (s *Server) correlationsCSV(c echo.Context) error {
	q, err := parseOverviewQuery(c.QueryParams())
	if err != nil {
		return err
	}
	st, err := s.overviewStats(c)
	if err != nil {
		return err
	}
	rows := q.filter(st.Auditors)
	keys := app.SuiteDimensions
	var out [][]string
	if cr, ok := app.Correlations(rows); ok {
		for i := range keys {
			for j := range keys {
				out = append(out, []string{keys[i], keys[j], csvFloat(cr.R[i][j]), csvFloat(cr.P[i][j]), itoa(cr.N), cr.Population, itoa(cr.Runs)})
			}
		}
	}
	// population: the auditors correlated (checkpoints when any is shown);
	// runs: among checkpoints, the units p counts (t on runs − 2 df).
	return writeCSV(c, st.Exp.ID+"-correlations.csv", []string{"dimension_a", "dimension_b", "r", "p", "auditors", "population", "runs"}, out)
}

// cruxCSV: R² per dimension.
func (s *Server) cruxCSV(c echo.Context) error {
	d, err := s.cruxData(c)
	if err != nil {
		return err
	}
	ivs, err := d.R2Intervals()
	if err != nil {
		return err
	}
	var out [][]string
	if d.Fits != nil {
		for _, k := range app.SuiteDimensions {
			f, iv := d.Fits[k], ivs[k]
			out = append(out, []string{k, itoa(f.N), itoa(iv.HeldRates.Groups),
				csvFloat(iv.HeldRates.R2), csvFloat(iv.HeldRates.P), csvFloat(iv.HeldAll.R2), csvFloat(iv.HeldAll.P),
				csvFloat(f.R2Rates), csvFloat(iv.Rates.Lo), csvFloat(iv.Rates.Hi), csvFloat(iv.HeldRates.Chance), csvFloat(f.LOORates),
				csvFloat(f.R2All), csvFloat(iv.All.Lo), csvFloat(iv.All.Hi), csvFloat(iv.HeldAll.Chance), csvFloat(f.LOOAll),
				fmt.Sprintf("held out a run at a time, p over %d permutations of the runs' scores; in-sample interval BCa bootstrap over runs, %d resamples", app.CruxPermutations, app.CruxResamples)})
		}
	}
	// The held-out R² (a run left out) leads; loo_r2_* leave one checkpoint
	// out, which leaks a run's other epochs into the fit, and are kept for
	// those who compared with them before.
	return writeCSV(c, d.Stats.Exp.ID+"-crux-r2.csv", []string{"dimension", "checkpoints", "runs",
		"heldout_r2_rates", "heldout_p_rates", "heldout_r2_all", "heldout_p_all",
		"r2_rates", "r2_rates_lo", "r2_rates_hi", "chance_r2_rates", "loo_r2_rates",
		"r2_all", "r2_all_lo", "r2_all_hi", "chance_r2_all", "loo_r2_all", "method"}, out)
}

// cruxFeaturesCSV: the eight features per checkpoint.
func (s *Server) cruxFeaturesCSV(c echo.Context) error {
	d, err := s.cruxData(c)
	if err != nil {
		return err
	}
	header := append([]string{"checkpoint"}, model.CruxFeatureNames...)
	var out [][]string
	for i, n := range d.Names {
		row := []string{n}
		for _, v := range d.Features[i] {
			row = append(row, csvFloat(v))
		}
		out = append(out, row)
	}
	return writeCSV(c, d.Stats.Exp.ID+"-crux-features.csv", header, out)
}

// rwrCSV: train / held-out / benign reference win rates per checkpoint, and
// per behavior (long format).
func (s *Server) rwrCSV(c echo.Context) error {
	st, rows, behaviors, _, err := s.rwrRows(c)
	if err != nil {
		return err
	}
	var out [][]string
	const wilson = "Wilson 95%, judgments pooled"
	gapMethod := fmt.Sprintf("percentile bootstrap 95%% over behaviors, %d resamples", app.GapResamples)
	for _, r := range rows {
		add := func(split, behavior string, rate app.SplitRate) {
			out = append(out, append(append([]string{r.Auditor.ID, split, behavior}, rateCSV(rate)...), wilson))
		}
		add("train", "", r.RWR.Train)
		add("heldout", "", r.RWR.Heldout)
		out = append(out, []string{r.Auditor.ID, "gap", "", "", "", "", "", csvFloat(r.Gap.Value), csvFloat(r.Gap.Lo), csvFloat(r.Gap.Hi), gapMethod})
		add("benign", "", r.Benign)
		for _, b := range behaviors {
			if br, ok := r.RWR.ByBehavior[b]; ok {
				add("", b, br)
			}
		}
	}
	// split "gap" is train − held-out (as a share, like rwr).
	return writeCSV(c, st.Exp.ID+"-rwr.csv", []string{"auditor", "split", "behavior", "n", "wins", "ties", "losses", "rwr", "lo", "hi", "interval"}, out)
}

// transferCSV: detection per auditor × approach × behavior ("" = all).
func (s *Server) transferCSV(c echo.Context) error {
	vm, err := s.transferTable(c)
	if err != nil {
		return err
	}
	var out [][]string
	for _, r := range vm.Rows {
		for ai, ap := range vm.Approaches {
			o := r.Overall[ai]
			out = append(out, []string{r.Auditor, ap.Value, "", itoa(o.N), itoa(o.Wins), csvFloat(o.Value), csvFloat(o.Lo), csvFloat(o.Hi), "Wilson 95% on the design effect's n over behaviors"})
			for bi, b := range vm.Behaviors {
				cell := r.Cell(ai, bi, len(vm.Behaviors))
				out = append(out, []string{r.Auditor, ap.Value, b, itoa(cell.N), itoa(cell.Wins), csvFloat(cell.Value), csvFloat(cell.Lo), csvFloat(cell.Hi), "Wilson 95% over audits"})
			}
		}
	}
	return writeCSV(c, vm.Exp.ID+"-transfer.csv", []string{"auditor", "eval", "behavior", "n", "detected", "rate", "lo", "hi", "interval"}, out)
}

// cyclesCSV: the listed cycles, one row per cycle.
func (s *Server) cyclesCSV(c echo.Context) error {
	st, _, w, err := s.auditorCycles(c)
	if err != nil {
		return err
	}
	v := cyclesView(w)
	return writeCSV(c, st.Exp.ID+"-cycles.csv", cyclesHeader, cyclesRows(v))
}

// rankingCSV: the Bradley–Terry ranking with cycle flags.
func (s *Server) rankingCSV(c echo.Context) error {
	st, _, w, err := s.auditorCycles(c)
	if err != nil {
		return err
	}
	v := cyclesView(w)
	var out [][]string
	// A failed fit leaves the strengths empty, never 0; the anchor's
	// interval is empty (it is fixed at 0). Wins and losses leave ties out.
	for _, r := range v.Ranking {
		rank := ""
		if r.Rank > 0 {
			rank = itoa(r.Rank)
		}
		out = append(out, []string{r.ID, csvFloat(r.Strength), csvFloat(r.Lo), csvFloat(r.Hi), itoa(r.Wins), itoa(r.Losses), strconv.FormatBool(r.InCycle), rank, strconv.FormatBool(r.Anchor), rankingInterval})
	}
	return writeCSV(c, st.Exp.ID+"-ranking.csv", []string{"auditor", "log_strength", "lo", "hi", "wins", "losses", "in_cycle", "rank", "anchor", "interval"}, out)
}

// rankingInterval names ranking.csv's interval.
const rankingInterval = "Wald 95% of the difference from the anchor (Bradley–Terry MLE)"

// runCheckpointsCSV: a run's checkpoints and their dimensions (long format).
func (s *Server) runCheckpointsCSV(c echo.Context) error {
	p, err := s.runContext(c)
	if err != nil {
		return err
	}
	var out [][]string
	for _, a := range p.Checkpoints {
		for _, k := range dimensionKeys {
			e := a.Score[k]
			out = append(out, []string{a.Auditor.ID, nullInt(a.Auditor.Epoch), nullInt(a.Auditor.Step), k, csvFloat(e.Value), csvFloat(e.Lo), csvFloat(e.Hi), itoa(a.N[k]), a.Interval[k]})
		}
	}
	return writeCSV(c, p.Stats.Exp.ID+"-"+p.Run.ID+"-checkpoints.csv", []string{"auditor", "epoch", "step", "dimension", "value", "lo", "hi", "n", "interval"}, out)
}

// runMetricsCSV: a run's training-time scalars.
func (s *Server) runMetricsCSV(c echo.Context) error {
	p, err := s.runContext(c)
	if err != nil {
		return err
	}
	ms, err := s.runs.Metrics(c.Request().Context(), p)
	if err != nil {
		return err
	}
	out := make([][]string, 0, len(ms))
	for _, m := range ms {
		out = append(out, []string{itoa(m.Step), m.Name, csvFloat(m.Value)})
	}
	return writeCSV(c, p.Stats.Exp.ID+"-"+p.Run.ID+"-metrics.csv", []string{"step", "name", "value"}, out)
}

// runStrategiesCSV: strategy label counts per checkpoint.
func (s *Server) runStrategiesCSV(c echo.Context) error {
	p, err := s.runContext(c)
	if err != nil {
		return err
	}
	counts, err := s.runs.StrategyCounts(c.Request().Context(), p)
	if err != nil {
		return err
	}
	out := make([][]string, 0, len(counts))
	for _, l := range counts {
		out = append(out, []string{l.Auditor, nullInt(l.Epoch), l.Strategy, itoa(l.N)})
	}
	return writeCSV(c, p.Stats.Exp.ID+"-"+p.Run.ID+"-strategies.csv", []string{"auditor", "epoch", "strategy", "audits"}, out)
}
