package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/links"
	"github.com/auditscope/auditscope/views/markdown"
	"github.com/auditscope/auditscope/web/app"
)

// longMessage is the length above which a message is collapsible.
const longMessage = 2000

func (s *Server) showAudit(c echo.Context) error {
	ctx := c.Request().Context()
	q := c.QueryParams()
	fq := filterQuery(q)
	f, err := parseAuditFilter(fq)
	if err != nil {
		return err
	}
	var nf *model.AuditFilter // the neighbours' filter: none without one
	if len(fq) > 0 {
		nf = &f
	}
	a, err := s.audit.Audit(ctx, c.Param("id"), nf)
	if err != nil {
		return err
	}
	vm := views.AuditView{Audit: a.Detail, Filter: fq, DimensionInfo: app.JudgeDimensions(), Synthetic: a.Experiment.Synthetic,
		Prev: a.Prev, Next: a.Next, Labels: a.Labels, Judgments: a.Judgments, Verdicts: verdictViews(a)}
	if a.Experiment.Format == "inspect" {
		fillSample(&vm, a.SampleScores, a.Detail.Eval == "")
	}
	if vm.SameUnit, err = s.audit.SameUnit(ctx, a.Detail); err != nil {
		return err
	}
	t := a.Transcript
	if t.Cause != nil {
		s.log.Warn("read transcript", "audit", a.Key, "err", t.Cause)
	}
	vm.LoadError = t.Problem
	eq, events, err := parseEventsQuery(q)
	if err != nil {
		return err
	}
	if err := fillRecord(&vm, t.Record, eq, events, a.Key); err != nil {
		return err
	}
	if err := fillTranscript(&vm, t, q, a.Key, events); err != nil {
		return err
	}
	if t.Judge != nil {
		vm.Judge = judgeView(t, vm.View, vm.Branch, vm.Part.Part, a.Key, fq)
	}
	budget := markdown.NewBudget(markdown.BudgetLines)
	c.SetRequest(c.Request().WithContext(markdown.WithBudget(ctx, budget)))
	prerender(vm.Messages, budget)
	return render(c, http.StatusOK, views.AuditPage(vm))
}

// fillRecord shows an Inspect sample's record and, on the events tab, its
// timeline.
func fillRecord(vm *views.AuditView, r *app.SampleRecord, eq eventsQuery, events bool, key string) error {
	if r != nil {
		vm.Record = sampleDetails(r)
	}
	if r != nil && len(r.Timeline) > 0 {
		q := eventsQuery{}.values()
		for k, v := range vm.Filter {
			q[k] = v
		}
		vm.EventsURL = links.Audit(key, q)
	}
	if !events {
		return nil
	}
	if vm.EventsURL == "" {
		return badRequestf("tab: this %s records no events", strings.ToLower(vm.Noun()))
	}
	tv, err := timelineView(r.Timeline, eq, key, vm.Filter)
	vm.Timeline = tv
	return err
}

// sampleInfo are the labels an Inspect sample's header shows, in order,
// with the names it shows them under.
var sampleInfo = [][2]string{{"task", "Task"}, {"model", "Model"}, {"sample", "Sample"}, {"epoch", "Epoch"},
	{"source", "Log"}, {"status", "Status"}, {"error", "Error"}}

// fillSample adds an Inspect sample's scores as its scorers gave them
// (taking their score columns out of the judge's panel) and, for a sample
// that is not an audit (plain), its header in Inspect's terms.
func fillSample(vm *views.AuditView, scores []model.SampleScore, plain bool) {
	a := &vm.Audit
	columns := map[string]bool{}
	for _, sc := range scores {
		if !sc.Judge {
			vm.Scorers = append(vm.Scorers, sc)
			columns[views.ScorerName(sc)] = true
		}
	}
	judge := a.Scores[:0:0]
	for _, sc := range a.Scores {
		if !columns[sc.Dimension] {
			judge = append(judge, sc)
		}
	}
	a.Scores = judge
	if !plain {
		return
	}
	vm.Sample = true
	labels := map[string]string{"model": a.AuditorName}
	var rest [][2]string
	for _, l := range vm.Labels {
		labels[l[0]] = l[1]
	}
	shown := map[string]bool{}
	for _, si := range sampleInfo {
		if v := labels[si[0]]; v != "" {
			vm.SampleInfo = append(vm.SampleInfo, [2]string{si[1], v})
		}
		shown[si[0]] = true
	}
	for _, l := range vm.Labels {
		if !shown[l[0]] {
			rest = append(rest, l)
		}
	}
	vm.Labels = rest
}

// viewURL links to a view and branch of the audit, keeping the filter.
func viewURL(key string, fq url.Values, view string, branch int) url.Values {
	q := url.Values{}
	for k, v := range fq {
		q[k] = v
	}
	if view != "" {
		q.Set("view", view)
	}
	if branch >= 0 {
		q.Set("branch", strconv.Itoa(branch))
	}
	return q
}

// transcriptQuery is the audit page's own state: which view of the
// transcript and which branch of it. The zero values ("" and -1) mean the
// defaults, the combined view and its last branch, which depend on the
// transcript; resolve checks the rest against it.
type transcriptQuery struct {
	View   string
	Branch int
}

func parseTranscriptQuery(q url.Values) (transcriptQuery, error) {
	t := transcriptQuery{View: q.Get("view"), Branch: -1}
	if b := q.Get("branch"); b != "" {
		n, err := strconv.Atoi(b)
		if err != nil || n < 0 {
			return transcriptQuery{}, badRequestf("branch: want a branch number from 0, found %q", b)
		}
		t.Branch = n
	}
	return t, nil
}

// values renders the query back, without defaults.
func (t transcriptQuery) values() url.Values {
	v := url.Values{}
	if t.View != "" {
		v.Set("view", t.View)
	}
	if t.Branch >= 0 {
		v.Set("branch", strconv.Itoa(t.Branch))
	}
	return v
}

// fillTranscript shows the view and branch the query asks for (by default
// the combined view's last branch), with tabs for every view and branch.
func fillTranscript(vm *views.AuditView, t *app.Transcript, q url.Values, key string, events bool) error {
	pv := t.Views()
	if len(pv) == 0 {
		return nil
	}
	tq, err := parseTranscriptQuery(q)
	if err != nil {
		return err
	}
	vi, bi, err := t.Resolve(tq.View, tq.Branch)
	if err != nil {
		return err
	}
	view := pv[vi]
	vm.View, vm.Branch = view.Name, bi
	vm.LinkQuery = url.Values{}
	if vi != t.DefaultView() {
		vm.LinkQuery.Set("view", view.Name)
	}
	if bi != len(view.Branches)-1 {
		vm.LinkQuery.Set("branch", strconv.Itoa(bi))
	}
	fq := vm.Filter
	for _, v := range pv {
		vm.Views = append(vm.Views, views.ViewTab{Name: v.Name, Current: v.Name == view.Name,
			URL: links.Audit(key, viewURL(key, fq, v.Name, -1))})
	}
	// Branches of every view are listed, so a rollback in the target's view
	// is one click away from the combined view too.
	for _, v := range pv {
		if len(v.Branches) < 2 {
			continue
		}
		for i, b := range v.Branches {
			label := v.Name + " branch " + strconv.Itoa(i+1)
			if b.EndedBy != "" {
				label += " (ended by " + b.EndedBy + ")"
			} else {
				label += " (final)"
			}
			vm.Branches = append(vm.Branches, views.BranchTab{Index: i, Current: v.Name == view.Name && i == bi, Label: label, Messages: b.Messages,
				URL: links.Audit(key, viewURL(key, fq, v.Name, i))})
		}
	}
	if events {
		return nil
	}
	vm.SystemNote = t.SystemNote
	return fillMessages(vm, t.Messages(vi, bi), q, key, viewURL(key, fq, tq.View, tq.Branch))
}

// fillMessages shows the part of a view's messages the query asks for;
// base is the view's query, for the links between parts.
func fillMessages(vm *views.AuditView, msgs []app.Message, q url.Values, key string, base url.Values) error {
	starts := messageParts(msgs)
	part, err := parsePart(q)
	if err != nil {
		return err
	}
	if part, err = checkPart(part, len(starts)); err != nil {
		return err
	}
	if part > 1 {
		vm.LinkQuery.Set("part", strconv.Itoa(part))
	}
	vm.Part = partNav(key, base, part, starts, len(msgs), "messages")
	vm.Part.FindThisPartOf = true
	end := len(msgs)
	if part < len(starts) {
		end = starts[part]
	}
	for i := starts[part-1]; i < end; i++ {
		m := msgs[i]
		mv := messageView(m, vm.View, vm.Branch, i)
		mv.Shared, mv.Side = m.Shared, m.Side
		vm.Messages = append(vm.Messages, mv)
	}
	return nil
}

// messagePart is the part of a view and branch that holds a message (1
// when it is not found).
func messagePart(t *app.Transcript, view string, branch int, id string) int {
	vi, bi, err := t.Resolve(view, branch)
	if err != nil {
		return 1
	}
	msgs := t.Messages(vi, bi)
	for i, m := range msgs {
		if m.ID == id {
			return partOf(messageParts(msgs), i)
		}
	}
	return 1
}

// messageView shows a message; its anchor is its id, or its place in the
// view and branch when it has none.
func messageView(m app.Message, view string, branch, i int) views.MessageView {
	anchor := m.ID
	if anchor == "" {
		anchor = view + "-" + strconv.Itoa(branch) + "-" + strconv.Itoa(i)
	}
	mv := views.MessageView{Anchor: anchor, Role: m.Role, Text: m.Text, Function: m.Function, Model: m.Model,
		ToolCallID: m.ToolCallID, Error: m.Error, Reasoning: m.Reasoning}
	for _, o := range m.Other {
		mv.Other = append(mv.Other, views.PartView{Image: templ.SafeURL(o.Image), Label: o.Label})
	}
	for _, tc := range m.ToolCalls {
		tv := views.ToolCallView{ID: tc.ID, Function: tc.Function, Arguments: tc.Arguments}
		for _, a := range tc.Args {
			tv.Args = append(tv.Args, views.ToolArgView{Name: a.Name, Value: a.Value, Lang: a.Lang, Code: a.Code})
		}
		mv.ToolCalls = append(mv.ToolCalls, tv)
	}
	mv.Long = len(mv.Text) > longMessage
	// An author's words (a system prompt, a user's or an assistant's turn)
	// as markdown when they use it; a tool's output as written.
	mv.Markdown = m.Role != "tool" && markdown.Looks(m.Text)
	return mv
}

// judgeView builds the judge panel; each highlight links to a view, branch
// and part that holds the cited message, preferring the one shown (part is
// the part shown, -1 when the page shows them all).
func judgeView(t *app.Transcript, view string, branch, part int, key string, fq url.Values) *views.JudgeView {
	jo := t.Judge
	jv := &views.JudgeView{Summary: jo.Summary, Justification: jo.Justification}
	for i, h := range jo.Highlights {
		hv := views.HighlightView{Index: i + 1, Description: h.Description}
		if h.Index != nil {
			hv.Index = *h.Index
		}
		for _, p := range h.Parts {
			v, b, here := t.Locate(p.MessageID, view, branch)
			hp := views.HighlightPart{MessageID: p.MessageID, Quote: p.Text, Here: here}
			if here || v == "" {
				v, b = view, branch
			}
			lq := viewURL(key, fq, v, b)
			n := messagePart(t, v, b, p.MessageID)
			if n > 1 {
				lq.Set("part", strconv.Itoa(n))
			}
			// On the events tab (part 0) or another part, the message is
			// not on the page; a part < 0 says every part is.
			hp.Here = hp.Here && (part < 0 || n == part)
			hp.Href = links.Audit(key, lq) + "#m-" + templ.SafeURL(url.PathEscape(p.MessageID))
			hv.Parts = append(hv.Parts, hp)
		}
		jv.Highlights = append(jv.Highlights, hv)
	}
	return jv
}

// auditTranscriptJSON downloads the transcript as imported.
func (s *Server) auditTranscriptJSON(c echo.Context) error {
	ctx := c.Request().Context()
	key, a, err := s.audit.AuditByURL(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	body, err := s.audit.RawTranscript(ctx, a.Experiment, a.ID)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Content-Disposition", `attachment; filename="`+strings.NewReplacer(`"`, "", ":", "-", "/", "-").Replace(key)+`.json"`)
	return c.Blob(http.StatusOK, "application/json", body)
}

// sampleDetails is an Inspect sample's record as its page shows it.
func sampleDetails(r *app.SampleRecord) *views.SampleDetails {
	d := &views.SampleDetails{Target: r.Target, Limit: r.Limit, Error: r.Error, Retries: r.Retries}
	secs := func(v *float64) string {
		if v == nil {
			return ""
		}
		return strconv.FormatFloat(*v, 'f', 1, 64) + " s"
	}
	d.TotalTime, d.WorkingTime = secs(r.TotalTime), secs(r.WorkingTime)
	count := func(v *int64) string {
		if v == nil {
			return ""
		}
		return views.FmtInt(int(*v))
	}
	for _, u := range r.Usage {
		d.Usage = append(d.Usage, views.UsageRow{Model: u.Model, Input: views.FmtInt(int(u.Input)), Output: views.FmtInt(int(u.Output)),
			Total: views.FmtInt(int(u.Total)), CacheRead: count(u.CacheRead), CacheWrite: count(u.CacheWrite), Reasoning: count(u.Reasoning)})
	}
	return d
}
