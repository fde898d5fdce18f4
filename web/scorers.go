package web

import (
	"bytes"
	"math"
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

// scorerSortKeys are the scorer table's sortable columns.
var scorerSortKeys = []string{"log", "task", "model", "scorer", "metric", "n", "value", "reported"}

// scorerQuery is the scorer table's state: its sort (ssort, sdir), kept
// apart from the suite table's sort and dir.
type scorerQuery struct {
	Sort string // "" keeps the logs' order
	Desc bool
}

func parseScorerQuery(q url.Values) (scorerQuery, error) {
	sq := scorerQuery{Sort: q.Get("ssort")}
	if sq.Sort != "" && !slices.Contains(scorerSortKeys, sq.Sort) {
		return sq, app.UnknownValue("ssort", sq.Sort, scorerSortKeys)
	}
	switch q.Get("sdir") {
	case "":
		// Numbers read best largest first; names A to Z.
		sq.Desc = sq.Sort == "n" || sq.Sort == "value" || sq.Sort == "reported"
	case "desc":
		sq.Desc = true
	case "asc":
	default:
		return sq, badRequestf("sdir: want asc or desc, found %q", q.Get("sdir"))
	}
	return sq, nil
}

// sort orders rows as asked; undefined numbers go last either way.
func (sq scorerQuery) sort(rows []app.ScorerRow) {
	if sq.Sort == "" {
		return
	}
	num := func(r app.ScorerRow) float64 {
		switch sq.Sort {
		case "n":
			return float64(r.N)
		case "value":
			return r.Value.Value
		}
		return r.Reported
	}
	text := func(r app.ScorerRow) string {
		switch sq.Sort {
		case "log":
			return r.Log
		case "task":
			return r.Task
		case "model":
			return r.Model
		case "scorer":
			return r.Scorer
		}
		return r.Metric
	}
	slices.SortStableFunc(rows, func(a, b app.ScorerRow) int {
		switch sq.Sort {
		case "n", "value", "reported":
			return app.CmpNaNLast(num(a), num(b), sq.Desc)
		}
		if sq.Desc {
			return strings.Compare(text(b), text(a))
		}
		return strings.Compare(text(a), text(b))
	})
}

// scorerView turns the table's rows into the page's.
func scorerView(rows []app.ScorerRow) []views.ScorerRow {
	out := make([]views.ScorerRow, len(rows))
	for i, r := range rows {
		out[i] = views.ScorerRow{Log: r.Log, Task: r.Task, Model: r.Model, Status: r.Status, Scorer: r.Scorer, Metric: r.Metric,
			N: r.N, Samples: r.Samples, Total: r.Total, Unconverted: r.Unconverted,
			Records: r.Records, Epochs: r.Epochs(), FromReductions: r.FromReductions,
			Value: r.Value.Value, Lo: r.Value.Lo, Hi: r.Value.Hi, Method: r.Value.Method,
			Reported: r.Reported, ReportedStderr: r.ReportedStderr}
	}
	return out
}

// scorersData is the scorer table's loader for its CSV and figure: the
// experiment and its rows, sorted as the query asks.
func (s *Server) scorersData(c echo.Context) (model.Experiment, []app.ScorerRow, error) {
	sq, err := parseScorerQuery(c.QueryParams())
	if err != nil {
		return model.Experiment{}, nil, err
	}
	exp, err := s.stats.Experiment(c.Request().Context(), c.Param("exp"))
	if err != nil {
		return model.Experiment{}, nil, err
	}
	rows, err := s.overview.Scorers(c.Request().Context(), exp.ID)
	if err != nil {
		return model.Experiment{}, nil, err
	}
	sq.sort(rows)
	return exp, rows, nil
}

// scorersCSV serves the scorer table:
// log,task,model,scorer,metric,n,value,lo,hi,reported,reported_stderr,
// sample_records,epochs,from. n counts samples; sample_records the sample ×
// epoch records in the file they were reduced from; epochs is per sample
// when known (else empty); from is "reductions" (the log's own
// epoch-reduced scores) or "file".
func (s *Server) scorersCSV(c echo.Context) error {
	// An experiment without Inspect logs has an empty table: the header
	// alone, as any empty selection.
	exp, rows, err := s.scorersData(c)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	w := newCSVWriter(&buf)
	w.Write([]string{"log", "task", "model", "scorer", "metric", "n", "value", "lo", "hi", "reported", "reported_stderr", "sample_records", "epochs", "from", "interval"})
	for _, r := range rows {
		epochs, from := "", "file"
		if e := r.Epochs(); e > 0 {
			epochs = strconv.Itoa(e)
		}
		if r.FromReductions {
			from = "reductions"
		}
		w.Write([]string{r.Log, r.Task, r.Model, r.Scorer, r.Metric, strconv.Itoa(r.N),
			csvFloat(r.Value.Value), csvFloat(r.Value.Lo), csvFloat(r.Value.Hi), csvFloat(r.Reported), csvFloat(r.ReportedStderr),
			strconv.Itoa(r.Records), epochs, from, r.Value.Method})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return csvBlob(c, exp.ID+"-scorers.csv", buf.Bytes())
}

// scorersFigure draws the scorer table: for each row with a number, the
// recomputation from the file with its 95% interval and the reported value
// with ±1.96 reported stderr.
func (s *Server) scorersFigure(c echo.Context, _, ext string) error {
	exp, rows, err := s.scorersData(c)
	if err != nil {
		return err
	}
	var items []figures.Interval
	for _, r := range rows {
		label := r.Model + " · " + r.Scorer + " · " + r.Metric
		if !math.IsNaN(r.Value.Value) {
			src := "file"
			if r.FromReductions {
				src = "reductions"
			}
			items = append(items, figures.Interval{Label: label + " (" + src + ", " + views.Count(r.N, "sample") + ")", Group: "recomputed",
				Value: r.Value.Value, Lo: r.Value.Lo, Hi: r.Value.Hi})
		}
		if !math.IsNaN(r.Reported) {
			it := figures.Interval{Label: label + " (reported)", Group: "reported", Value: r.Reported, Lo: math.NaN(), Hi: math.NaN()}
			if !math.IsNaN(r.ReportedStderr) {
				it.Lo, it.Hi = r.Reported-1.96*r.ReportedStderr, r.Reported+1.96*r.ReportedStderr
				// An accuracy cannot leave [0, 1]: nor does its whisker.
				if r.Metric == "accuracy" {
					it.Lo, it.Hi = math.Max(it.Lo, 0), math.Min(it.Hi, 1)
				}
			}
			if r.Total > 0 {
				it.Label = label + " (reported, " + views.Scored(r.Total, r.Epochs()) + ")"
			}
			items = append(items, it)
		}
	}
	p, err := figures.IntervalChart("Scorer metrics: reported and recomputed (95% CI)", "metric value", items)
	if err != nil {
		return err
	}
	return writeFigure(c, p, figures.ColumnWidth*2, figures.IntervalChartHeight(items), ext, exp.ID+"-scorers")
}
