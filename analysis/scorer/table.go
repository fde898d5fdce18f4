package scorer

import (
	"math"
	"slices"
	"strings"
)

// Log is an Inspect log as its header reports it.
type Log struct {
	Log, Task, Model, Status string
	// Samples is how many samples (× epochs) the file holds; Total how
	// many the log reports it scored (0 when it does not say).
	Samples, Total int
	Scores         []Reported
}

// Reported is one scorer's results in the log's header.
type Reported struct {
	Name, Scorer string
	Metrics      []Metric
	// Reduced, when set, are the log's own epoch-reduced values of the
	// scorer, one per sample it scored (a .eval log's reductions.json):
	// the recomputation uses them when the file holds no record of the
	// scorer.
	Reduced *Values
}

// Metric is one reported metric; Value is NaN when it is not a number.
type Metric struct {
	Name  string
	Value float64
}

// Row is one line of the scorer table: a metric of one scorer of one log,
// reported and recomputed.
type Row struct {
	Log, Task, Model, Status, Scorer, Metric string
	// N is how many samples the recomputation read (each sample's epochs
	// reduced); Records the sample × epoch records in the file it was
	// reduced from; Samples and Total are the log's (see Log).
	N, Records, Samples, Total int
	Unconverted                int
	// FromReductions: the recomputation read the log's own epoch-reduced
	// values (every sample it scored): the file holds no record of the
	// scorer.
	FromReductions bool
	// Value is the recomputation with its interval; its Value is NaN when
	// auditscope does not recompute this metric (see Recomputable).
	Value Estimate
	// Reported and ReportedStderr are the log's own numbers, NaN when the
	// log gives none (a log still running has no results yet).
	Reported, ReportedStderr float64
}

// Partial reports whether the recomputation read fewer sample × epoch
// results than the log scored: the file holds a subset, and the log's own
// reductions were not there to use.
func (r Row) Partial() bool { return !r.FromReductions && r.Total > 0 && r.Samples < r.Total }

// Epochs is how many epochs the log ran per sample, when its numbers tell
// (its total over the samples of its reductions, or the file's records
// over its samples when the file holds every result the log reports); 0
// when not known. A file of epoch 1 of a 10-epoch run says nothing of the
// other nine.
func (r Row) Epochs() int {
	switch {
	case r.FromReductions && r.N > 0 && r.Total > 0 && r.Total%r.N == 0:
		return r.Total / r.N
	case !r.FromReductions && r.N > 0 && r.Records > 0 && r.Records%r.N == 0 && (r.Total == 0 || r.Records == r.Total):
		return r.Records / r.N
	}
	return 0
}

// Recomputable lists the metrics recomputed from the samples: Inspect's
// accuracy and mean (the mean of the mapped values) and stderr.
var Recomputable = []string{"accuracy", "mean", "stderr"}

// Table builds the scorer table: for each log, each reported scorer and
// each of its metrics a row (a stderr metric is folded into the other
// metrics of its scorer as their reported stderr), and for scorers the
// samples carry but the header does not report (a log still running), a
// recomputed mean. Rows keep the logs' order, then the header's order.
func Table(logs []Log, vals []Values) []Row {
	type vkey struct{ log, scorer, key string }
	byKey := map[vkey]Values{}
	for _, v := range vals {
		byKey[vkey{v.Log, v.Scorer, v.Key}] = v
	}
	var rows []Row
	for _, lg := range logs {
		used := map[vkey]bool{}
		base := Row{Log: lg.Log, Task: lg.Task, Model: lg.Model, Status: lg.Status, Samples: lg.Samples, Total: lg.Total}
		for _, sc := range lg.Scores {
			// A scalar scorer's values are keyed by its name; a dictionary
			// scorer's by the scorer and the key (the result's name).
			k := vkey{lg.Log, sc.Name, ""}
			v, ok := byKey[k]
			if !ok && sc.Scorer != "" {
				k = vkey{lg.Log, sc.Scorer, sc.Name}
				v, ok = byKey[k]
			}
			if ok {
				used[k] = true
			}
			stderr := math.NaN()
			for _, m := range sc.Metrics {
				if m.Name == "stderr" {
					stderr = m.Value
				}
			}
			for _, m := range sc.Metrics {
				if m.Name == "stderr" && len(sc.Metrics) > 1 {
					continue
				}
				r := base
				r.Scorer, r.Metric, r.Reported, r.ReportedStderr = sc.Name, m.Name, m.Value, stderr
				if m.Name == "stderr" {
					r.ReportedStderr = math.NaN()
				}
				r.N, r.Records, r.Unconverted = v.N, v.Records, v.Unconverted
				r.Value = recompute(m.Name, v, ok)
				// The records in the file are what is recomputed; the log's
				// own reductions stand in only for a scorer the file holds
				// no record of. (Recomputed from the reductions, the number
				// is the reported one by construction.)
				if sc.Reduced != nil && sc.Reduced.N > 0 && (!ok || v.N == 0) {
					r.N, r.Unconverted, r.FromReductions = sc.Reduced.N, sc.Reduced.Unconverted, true
					r.Value = recompute(m.Name, *sc.Reduced, true)
				}
				rows = append(rows, r)
			}
		}
		// Scorers the header does not report, in name order.
		var extra []Values
		for _, v := range vals {
			if v.Log == lg.Log && !used[vkey{v.Log, v.Scorer, v.Key}] {
				extra = append(extra, v)
			}
		}
		slices.SortFunc(extra, func(a, b Values) int {
			return strings.Compare(a.Scorer+"\x00"+a.Key, b.Scorer+"\x00"+b.Key)
		})
		for _, v := range extra {
			r := base
			r.Scorer, r.Metric = v.Scorer, "mean"
			if v.Key != "" {
				r.Scorer = v.Scorer + "." + v.Key
			}
			if v.Binary {
				r.Metric = "accuracy"
			}
			r.Reported, r.ReportedStderr = math.NaN(), math.NaN()
			r.N, r.Records, r.Unconverted = v.N, v.Records, v.Unconverted
			r.Value = recompute(r.Metric, v, true)
			rows = append(rows, r)
		}
	}
	return rows
}

// recompute is a metric's recomputation from the samples' values, NaN
// when there are none or the metric is not one auditscope recomputes.
func recompute(metric string, v Values, ok bool) Estimate {
	none := Estimate{}
	none.Value, none.Lo, none.Hi = math.NaN(), math.NaN(), math.NaN()
	if !ok || v.N == 0 {
		return none
	}
	switch metric {
	case "accuracy", "mean":
		e, err := Mean(v)
		if err != nil {
			return none
		}
		return e
	case "stderr":
		none.Value = Stderr(v)
		return none
	}
	return none
}
