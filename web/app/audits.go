package app

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/auditscope/auditscope/data/model"
)

// The audit browser: a filter checked against what the store holds, one
// page of audits with their judge scores, the full export in chunks, and
// one audit with its neighbours, labels, sample scores and judgments.

// ResolveFilter checks the filter's experiment and id filters against what
// the selection has, turning a display name given for an id (auditor=Claude
// Opus 4.6, as the page shows it) into that id; anything unknown is a
// QueryError with the nearest choices. It returns what it read.
func (s *Service) ResolveFilter(ctx context.Context, f *model.AuditFilter) ([]model.ExperimentSummary, model.AuditChoices, error) {
	exps, err := kept(ctx, s, "experiments", s.r.ExperimentList)
	if err != nil {
		return nil, model.AuditChoices{}, err
	}
	if err := checkExperiment(f.Experiment, exps); err != nil {
		return nil, model.AuditChoices{}, err
	}
	choices, err := kept(ctx, s, "choices\x00"+f.Experiment, func(ctx context.Context) (model.AuditChoices, error) {
		return s.r.AuditChoices(ctx, f.Experiment)
	})
	if err != nil {
		return nil, model.AuditChoices{}, err
	}
	return exps, choices, resolveChoices(f, choices)
}

// resolveChoices checks the id filters against the choices.
func resolveChoices(f *model.AuditFilter, c model.AuditChoices) error {
	for _, x := range []struct {
		param string
		value *string
		have  []model.Choice
	}{
		{"auditor", &f.Auditor, c.Auditors}, {"run", &f.Run, c.Runs}, {"behavior", &f.Behavior, c.Behaviors}, {"target", &f.Target, c.Targets},
		{"eval", &f.Eval, c.Evals},
	} {
		if *x.value == "" {
			continue
		}
		var ids []string
		var byName []string
		for _, ch := range x.have {
			if ch.Value == *x.value {
				byName = nil
				ids = nil
				break
			}
			ids = append(ids, ch.Value)
			if strings.EqualFold(ch.Label, *x.value) {
				byName = append(byName, ch.Value)
			}
		}
		switch {
		case ids == nil && len(x.have) > 0:
			// found by id
		case len(byName) == 1:
			*x.value = byName[0]
		default:
			return &UnknownChoice{Param: x.param, Value: *x.value, Matches: rankChoices(*x.value, x.have), err: UnknownValue(x.param, *x.value, ids)}
		}
	}
	return nil
}

// UnknownChoice is a filter value that names none of the selection's
// choices, with the choices it may mean, best first (rankChoices). It is
// also the QueryError that lists the nearest ids, for callers that answer
// with a 400.
type UnknownChoice struct {
	Param, Value string
	Matches      []model.Choice
	err          error
}

func (e *UnknownChoice) Error() string { return e.err.Error() }

// As makes an UnknownChoice a *QueryError too.
func (e *UnknownChoice) As(target any) bool {
	qe, ok := target.(**QueryError)
	if ok {
		ok = errors.As(e.err, qe)
	}
	return ok
}

// maxMatches bounds the choices an UnknownChoice offers.
const maxMatches = 10

// rankChoices orders the choices by how well they match what was typed,
// case aside: the same id or name, then those that start with it, then
// those that contain it (a partial name: auditor=opus), then the rest by
// edit distance; at most maxMatches, and none of the rest when something
// contains it.
func rankChoices(typed string, have []model.Choice) []model.Choice {
	t := strings.ToLower(strings.TrimSpace(typed))
	class := func(c model.Choice) int {
		best := 3
		for _, s := range []string{strings.ToLower(c.Value), strings.ToLower(c.Label)} {
			switch {
			case s == t:
				best = min(best, 0)
			case strings.HasPrefix(s, t):
				best = min(best, 1)
			case strings.Contains(s, t):
				best = min(best, 2)
			}
		}
		return best
	}
	dist := func(c model.Choice) int {
		return min(editDistance(t, strings.ToLower(c.Value)), editDistance(t, strings.ToLower(c.Label)))
	}
	ranked := slices.Clone(have)
	slices.SortStableFunc(ranked, func(a, b model.Choice) int {
		if ca, cb := class(a), class(b); ca != cb {
			return ca - cb
		}
		return dist(a) - dist(b)
	})
	if len(ranked) > 0 && class(ranked[0]) < 3 {
		n := 0
		for n < len(ranked) && class(ranked[n]) < 3 {
			n++
		}
		ranked = ranked[:n]
	}
	return ranked[:min(len(ranked), maxMatches)]
}

// checkExperiment refuses an experiment id that is not loaded.
func checkExperiment(id string, exps []model.ExperimentSummary) error {
	if id == "" {
		return nil
	}
	ids := make([]string, len(exps))
	for i, e := range exps {
		if e.ID == id {
			return nil
		}
		ids[i] = e.ID
	}
	return UnknownValue("exp", id, ids)
}

// ScoreDimensions are the judge dimensions (and Inspect scorers) the
// experiment's audits have scores on; every experiment's for "".
func (s *Service) ScoreDimensions(ctx context.Context, exp string) ([]string, error) {
	return kept(ctx, s, "dims\x00"+exp, func(ctx context.Context) ([]string, error) { return s.r.ScoreDimensions(ctx, exp) })
}

// kept is what load reads, kept by key and the data's version: these
// reads scan every audit (distinct values, distinct dimensions) for every
// page of the audit browser, and change only when an import lands.
// Callers must not modify what they get.
func kept[V any](ctx context.Context, s *Service, key string, load func(context.Context) (V, error)) (V, error) {
	v, err := s.choices.Get(ctx, key+"@"+strconv.FormatInt(s.r.Version(), 10), func(ctx context.Context) (any, error) { return load(ctx) })
	if err != nil {
		var zero V
		return zero, err
	}
	return v.(V), nil
}

// CheckDimensions refuses score thresholds and a score sort on a dimension
// the selection does not have.
func CheckDimensions(f model.AuditFilter, dims []string) error {
	for _, c := range f.Scores {
		if !slices.Contains(dims, c.Dimension) {
			return UnknownValue("score", c.Dimension, dims)
		}
	}
	if d, ok := strings.CutPrefix(f.Sort, "score:"); ok && !slices.Contains(dims, d) {
		return UnknownValue("sort", d, dims)
	}
	return nil
}

// AuditPage is one page of the audits a filter selects, with their judge
// scores by audit key and dimension.
type AuditPage struct {
	Rows   []model.AuditRow
	Total  int
	Scores map[string]map[string]float64
}

// Audits reads one page of the audits a resolved filter selects. A page
// past the last one has no rows, and its Total says how many there are.
func (s *Service) Audits(ctx context.Context, f model.AuditFilter, page, per int) (AuditPage, error) {
	var rows []model.AuditRow
	var total int
	var err error
	if page == 1 {
		// The first page is read first: when it is not full it holds every
		// match, and the count (a scan of every audit: for a rare search
		// term, a second scan of the search text after the page's) is its
		// length.
		if rows, err = s.r.ListAuditsPage(ctx, f, 0, per); err != nil {
			return AuditPage{}, err
		}
		if len(rows) < per {
			total, err = s.countAudits(ctx, f, func(context.Context) (int, error) { return len(rows), nil })
		} else {
			total, err = s.countAudits(ctx, f, nil)
		}
	} else if total, err = s.countAudits(ctx, f, nil); err == nil && (page-1)*per < total {
		rows, err = s.r.ListAuditsPage(ctx, f, (page-1)*per, per)
	}
	if err != nil {
		return AuditPage{}, err
	}
	scores, err := s.pageScores(ctx, f, rows)
	return AuditPage{Rows: rows, Total: total, Scores: scores}, err
}

// countAudits is how many audits a filter selects, kept until the data
// changes: it does not depend on the sort or the page, so paging through a
// list or sorting it again counts once. known, when set, tells it without
// counting.
func (s *Service) countAudits(ctx context.Context, f model.AuditFilter, known func(context.Context) (int, error)) (int, error) {
	f.Sort, f.Desc = "", false
	key, err := json.Marshal(f)
	if err != nil {
		return 0, err
	}
	if known == nil {
		known = func(ctx context.Context) (int, error) { return s.r.CountAudits(ctx, f) }
	}
	return s.counts.Get(ctx, string(key)+"@"+strconv.FormatInt(s.r.Version(), 10), known)
}

// HasAudits says whether an experiment holds audits (not only plain
// Inspect samples).
func (s *Service) HasAudits(ctx context.Context, exp string) (bool, error) {
	return kept(ctx, s, "has\x00"+exp, func(ctx context.Context) (bool, error) { return s.r.HasAudits(ctx, exp) })
}

func keysOf(rows []model.AuditRow) []string {
	keys := make([]string, len(rows))
	for i, r := range rows {
		keys[i] = r.Key
	}
	return keys
}

// Audit is one audit as its page shows it.
type Audit struct {
	Key        string // "experiment:id"
	Detail     model.AuditDetail
	Experiment model.Experiment
	// Prev and Next are the neighbouring audits' keys in the filter's
	// order ("" at either end, or without a filter).
	Prev, Next string
	Labels     [][2]string // the audit's labels, by name
	// SampleScores are an Inspect sample's scores as its scorers gave them
	// (none for other formats).
	SampleScores []model.SampleScore
	Judgments    []model.SideJudgment // the pairwise judgments of this audit
	// Verdicts are other judges' verdicts on it, besides the evaluation
	// judge's (issue #51).
	Verdicts   []model.Verdict
	Transcript *Transcript // as Service.Transcript reads it
}

// AuditByURL reads the audit an URL names ("experiment:id", or a bare id
// that only one experiment has), without the rest of its page.
func (s *Service) AuditByURL(ctx context.Context, id string) (string, model.AuditDetail, error) {
	key, err := s.r.ResolveAuditKey(ctx, id)
	if err != nil {
		return "", model.AuditDetail{}, err
	}
	a, err := s.r.Audit(ctx, key)
	return key, a, err
}

// Audit reads one audit's page: the audit, its experiment, its neighbours
// in the filter's order (f nil: none), its labels, sample scores,
// judgments and transcript.
//
// The transcript is read while the rest is: at a million audits reading
// one is most of the page's time (DuckDB reads the 2,048 compressed
// transcripts of its vector, 5 MB, to return one), and the other queries
// then take nothing from it on a second core.
func (s *Service) Audit(ctx context.Context, id string, f *model.AuditFilter) (*Audit, error) {
	key, err := s.r.ResolveAuditKey(ctx, id)
	if err != nil {
		return nil, err
	}
	type read struct {
		t   *Transcript
		err error
	}
	tc := make(chan read, 1)
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		t, err := s.keptTranscript(tctx, "key\x00"+key, func(ctx context.Context) ([]byte, error) { return s.r.TranscriptOfKey(ctx, key) })
		tc <- read{t, err}
	}()
	var a *Audit
	d, err := s.r.Audit(ctx, key)
	if err == nil {
		a, err = s.auditRest(ctx, key, d, f)
	}
	if err != nil {
		cancel() // the page fails: the transcript's read is not wanted
	}
	r := <-tc // the read has ended before this returns, whatever happened
	if err != nil {
		return nil, err
	}
	if r.err != nil {
		return nil, r.err
	}
	a.Transcript = r.t
	return a, nil
}

// auditRest reads what Audit shows of audit d besides the transcript.
func (s *Service) auditRest(ctx context.Context, key string, d model.AuditDetail, f *model.AuditFilter) (*Audit, error) {
	var err error
	a := &Audit{Key: key, Detail: d}
	if a.Experiment, err = s.r.Experiment(ctx, d.Experiment); err != nil {
		return nil, err
	}
	if f != nil {
		if a.Prev, a.Next, err = s.r.Neighbors(ctx, *f, key); err != nil {
			return nil, err
		}
	}
	if d.Labels != "" {
		var labels map[string]string
		if json.Unmarshal([]byte(d.Labels), &labels) == nil {
			for k, v := range labels {
				a.Labels = append(a.Labels, [2]string{k, v})
			}
			sort.Slice(a.Labels, func(i, j int) bool { return a.Labels[i][0] < a.Labels[j][0] })
		}
	}
	if a.Experiment.Format == "inspect" {
		if a.SampleScores, err = s.r.SampleScores(ctx, d.Experiment, d.ID); err != nil {
			return nil, err
		}
	}
	if a.Judgments, err = s.r.AuditJudgments(ctx, d.Experiment, d.ID); err != nil {
		return nil, err
	}
	if a.Verdicts, err = s.r.AuditVerdicts(ctx, d.Experiment, d.ID); err != nil {
		return nil, err
	}
	return a, nil
}
