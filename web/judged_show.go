package web

import (
	"context"
	"math"
	"net/url"

	"strconv"

	"github.com/a-h/templ"

	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/links"
	"github.com/auditscope/auditscope/web/app"
)

// judgedNames are the judge-scored overview's names: the group's role,
// the yield's threshold, the gate's thresholds and whether it excludes,
// and the forest plot's dimension (the paired page adds a, b and corr).
var judgedNames = []string{"excluded", "fail", "jdim", "judge", "realism", "role", "thr"}

// judgedQuery is the judge-scored overview's state, from its URL.
type judgedQuery struct {
	opts app.JudgedOptions
	dim  string
	// raw keeps the parameters as given, for links.
	raw url.Values
}

// oneValue is a single-valued parameter: given twice it is refused, since
// which of two values a link meant cannot be told.
func oneValue(q url.Values, name string) (string, error) {
	if v := q[name]; len(v) > 1 {
		return "", badRequestf("%s: given %d times; give it once", name, len(v))
	}
	return q.Get(name), nil
}

// scoreParam reads a number on the judge's scale (0 to 11: 0 turns a
// threshold off, 11 is past every score).
func scoreParam(q url.Values, name string, def float64) (float64, string, error) {
	s, err := oneValue(q, name)
	if err != nil || s == "" {
		return def, s, err
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || v < 0 || v > 11 {
		return def, s, badRequestf("%s: want a score from 0 to 11, found %q", name, s)
	}
	return v, s, nil
}

func parseJudgedQuery(q url.Values) (judgedQuery, error) {
	jq := judgedQuery{raw: url.Values{}, opts: app.JudgedOptions{Role: app.RoleTarget, Correction: app.CorrectBH}}
	role, err := oneValue(q, "role")
	if err != nil {
		return jq, err
	}
	switch role {
	case "", app.RoleTarget:
	case app.RoleAuditor:
		jq.opts.Role = role
		jq.raw.Set("role", role)
	default:
		return jq, badRequestf("role: want target or auditor, found %q", role)
	}
	for _, p := range []struct {
		name string
		dst  *float64
		def  float64
	}{{"thr", &jq.opts.Threshold, app.DefaultThreshold}, {"fail", &jq.opts.Gate.FailAt, app.DefaultFailAt}, {"realism", &jq.opts.Gate.RealismBelow, app.DefaultRealismBelow}} {
		v, s, err := scoreParam(q, p.name, p.def)
		if err != nil {
			return jq, err
		}
		*p.dst = v
		if s != "" {
			jq.raw.Set(p.name, s)
		}
	}
	if jq.opts.Threshold == 0 {
		return jq, badRequestf("thr: want a threshold from 1 to 10, found 0")
	}
	switch x, err := oneValue(q, "excluded"); {
	case err != nil:
		return jq, err
	case x == "include":
		jq.opts.Include = true
		jq.raw.Set("excluded", x)
	case x != "":
		return jq, badRequestf("excluded: want include, found %q", x)
	}
	if jq.opts.Judge, err = oneValue(q, "judge"); err != nil {
		return jq, err
	}
	if jq.opts.Judge != "" {
		jq.raw.Set("judge", jq.opts.Judge)
	}
	if jq.dim, err = oneValue(q, "jdim"); err != nil {
		return jq, err
	}
	if jq.dim != "" {
		jq.raw.Set("jdim", jq.dim)
	}
	return jq, nil
}

// judgedView builds the section for the experiment page; nil when the
// experiment's audits have no judge dimension.
func (s *Server) judgedView(ctx context.Context, exp string, jq judgedQuery) (*views.JudgedView, *app.Judged, error) {
	j, err := s.judged.JudgedOverview(ctx, exp, jq.opts)
	if err != nil || len(j.Dims) == 0 {
		return nil, j, err
	}
	if jq.dim != "" && j.DimIndex(jq.dim) < 0 {
		return nil, j, badRequestf("jdim: the audits have no judge dimension %q", jq.dim)
	}
	o := j.Overview
	v := &views.JudgedView{Exp: j.Exp, Query: jq.raw, Role: o.Role, Threshold: num(jq.opts.Threshold),
		FailAt: num(jq.opts.Gate.FailAt), Realism: num(jq.opts.Gate.RealismBelow), Include: jq.opts.Include,
		Dim: jq.dim, Logs: j.Logs, Seeds: j.Seeds, Judge: jq.opts.Judge, Judges: j.Judges}
	if v.Dim == "" {
		v.Dim = defaultDim(j)
	}
	excluded := map[string]int{}
	for i, e := range j.Exclusions {
		if e.Reason != "" {
			excluded[j.ModelOf(i)]++
		}
	}
	for i, m := range o.Models {
		v.Models = append(v.Models, views.JudgedModel{Name: m, Audits: o.Audits[i], Seeds: o.Seeds[i], Excluded: excluded[m]})
	}
	if len(o.Models) >= 2 {
		v.CompareA, v.CompareB = o.Models[0], o.Models[1]
	}
	for _, g := range j.Groups {
		vg := views.JudgedGroup{Name: g.Name}
		for _, pos := range g.Dims {
			name := j.DimName(j.Dims[pos])
			r := views.JudgedRow{Dim: name, Desc: j.Descriptions[name]}
			for mi, m := range o.Models {
				c := o.Cells[mi][pos]
				r.Cells = append(r.Cells, views.JudgedCell{Mean: c.Mean.Value, Lo: c.Mean.Lo, Hi: c.Mean.Hi,
					Yield: c.Yield.Value, YLo: c.Yield.Lo, YHi: c.Yield.Hi, N: c.N, Seeds: c.Seeds, Hit: c.Hit,
					Model: m, Dim: name, Link: modelAuditsLink(j, o.Role, m, name)})
			}
			vg.Rows = append(vg.Rows, r)
		}
		v.Groups = append(v.Groups, vg)
	}
	v.Gate = gateView(j, o.Role)
	return v, j, nil
}

// gateListed is how many excluded audits the page lists (gate.csv has all).
const gateListed = 100

func gateView(j *app.Judged, role string) views.GateView {
	g := views.GateView{Kept: j.Counts.Kept, Total: len(j.Exclusions)}
	for _, r := range app.GateReasons {
		if n := j.Counts.Excluded[r]; n > 0 {
			g.Reasons = append(g.Reasons, views.ReasonCount{Reason: r, N: n})
		}
	}
	for i, e := range j.Exclusions {
		if e.Reason == "" {
			continue
		}
		if len(g.Excluded) == gateListed {
			g.More++
			continue
		}
		a := &j.Set.Audits[i]
		g.Excluded = append(g.Excluded, views.ExcludedAudit{Key: a.Key, ID: a.ID, Model: j.ModelOf(i), Seed: a.Seed, Reason: e.Reason, Detail: e.Detail})
	}
	return g
}

// defaultDim is the forest plot's dimension when none is asked for:
// Petri's "concerning" when there, else the first.
func defaultDim(j *app.Judged) string {
	if j.DimIndex("concerning") >= 0 {
		return "concerning"
	}
	return j.DimName(j.Dims[0])
}

// modelAuditsLink is the audit list of one model's audits sorted by dim,
// highest (worst, for a concerning dimension) first.
func modelAuditsLink(j *app.Judged, role, model, dim string) templ.SafeURL {
	q := url.Values{"exp": {j.Exp.ID}, "sort": {dim}, "dir": {"desc"}}
	if role == app.RoleAuditor {
		q.Set("auditor", j.AuditorID(model))
	} else {
		q.Set("target", model)
	}
	return links.Audits(q)
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// nanRef draws a forest plot without a reference line.
var nanRef = math.NaN()
