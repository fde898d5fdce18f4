package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/data/petri"
	"github.com/auditscope/auditscope/views"
)

// longMessage is the length above which a message is collapsible.
const longMessage = 2000

// loadAudit finds the audit the URL names: "experiment:id", or a bare id
// that only one experiment has.
func (s *Server) loadAudit(c echo.Context) (string, data.AuditDetail, error) {
	ctx := c.Request().Context()
	key, err := s.store.ResolveAuditKey(ctx, c.Param("id"))
	if err != nil {
		return "", data.AuditDetail{}, err
	}
	a, err := s.store.Audit(ctx, key)
	return key, a, err
}

func (s *Server) showAudit(c echo.Context) error {
	ctx := c.Request().Context()
	key, a, err := s.loadAudit(c)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	fq := filterQuery(q)
	f, err := parseAuditFilter(fq)
	if err != nil {
		return err
	}
	vm := views.AuditView{Audit: a, Filter: fq, DimensionInfo: petri.DimensionDescriptions()}
	exp, err := s.store.Experiment(ctx, a.Experiment)
	if err != nil {
		return err
	}
	vm.Synthetic = exp.Synthetic
	if len(fq) > 0 {
		if vm.Prev, vm.Next, err = s.store.Neighbors(ctx, f, key); err != nil {
			return err
		}
	}
	if a.Labels != "" {
		var labels map[string]string
		if json.Unmarshal([]byte(a.Labels), &labels) == nil {
			for k, v := range labels {
				vm.Labels = append(vm.Labels, [2]string{k, v})
			}
			sort.Slice(vm.Labels, func(i, j int) bool { return vm.Labels[i][0] < vm.Labels[j][0] })
		}
	}
	if exp.Format == "inspect" {
		if err := s.fillSample(c, &vm, a.Eval == ""); err != nil {
			return err
		}
	}
	if vm.Judgments, err = s.store.AuditJudgments(ctx, a.Experiment, a.ID); err != nil {
		return err
	}
	body, err := s.store.Transcript(ctx, a.Experiment, a.ID)
	if err != nil {
		// A transcript that is missing or bad stays so: the page says why,
		// with the rest of the audit. Any other failure (the database, a
		// client gone) is an error page, which the response cache does not
		// keep, so the next visit tries again.
		var ie *model.InputError
		if !errors.As(err, &ie) && !errors.Is(err, data.ErrNotFound) {
			return err
		}
		s.log.Warn("read transcript", "audit", key, "err", err)
		vm.LoadError = "The transcript could not be read: " + userMessage(err)
		return render(c, http.StatusOK, views.AuditPage(vm))
	}
	var t petri.Transcript
	if err := json.Unmarshal(body, &t); err != nil {
		vm.LoadError = "The transcript is not valid Petri JSON; download the raw JSON to inspect it."
		return render(c, http.StatusOK, views.AuditPage(vm))
	}
	pv, err := t.Views()
	if err != nil {
		s.log.Warn("replay transcript", "audit", key, "err", err)
		vm.LoadError = "The transcript's edits could not be replayed (" + err.Error() + "); showing what could be rebuilt."
	}
	if err := fillTranscript(&vm, pv, q, key); err != nil {
		return err
	}
	if jo := t.Metadata.JudgeOutput; jo != nil {
		vm.Judge = judgeView(jo, pv, vm.View, vm.Branch, key, fq)
	}
	return render(c, http.StatusOK, views.AuditPage(vm))
}

// sampleInfo are the labels an Inspect sample's header shows, in order,
// with the names it shows them under.
var sampleInfo = [][2]string{{"task", "Task"}, {"model", "Model"}, {"sample", "Sample"}, {"epoch", "Epoch"},
	{"source", "Log"}, {"status", "Status"}, {"error", "Error"}}

// fillSample adds an Inspect sample's scores as its scorers gave them
// (taking their score columns out of the judge's panel) and, for a sample
// that is not an audit (plain), its header in Inspect's terms.
func (s *Server) fillSample(c echo.Context, vm *views.AuditView, plain bool) error {
	a := &vm.Audit
	scores, err := s.store.SampleScores(c.Request().Context(), a.Experiment, a.ID)
	if err != nil {
		return err
	}
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
		return nil
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
	return nil
}

// userMessage says why a transcript is missing or bad, for the page.
func userMessage(err error) string {
	var ie *model.InputError
	if errors.As(err, &ie) {
		return ie.Error()
	}
	return "it is missing from the database"
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

// defaultView is the view an audit page opens on: the combined view, which
// shows both sides with the tool calls, when the transcript has one.
func defaultView(pv []petri.View) int {
	vi := 0
	for i, v := range pv {
		if v.Name == petri.ViewCombined {
			vi = i
		}
	}
	return vi
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

func fillTranscript(vm *views.AuditView, pv []petri.View, q url.Values, key string) error {
	if len(pv) == 0 {
		return nil
	}
	tq, err := parseTranscriptQuery(q)
	if err != nil {
		return err
	}
	want := tq.View
	vi := defaultView(pv)
	if want != "" {
		vi = -1
		for i, v := range pv {
			if v.Name == want {
				vi = i
			}
		}
		if vi < 0 {
			names := make([]string, len(pv))
			for i, v := range pv {
				names[i] = v.Name
			}
			return badRequestf("view: this transcript has the views %s, not %q", strings.Join(names, ", "), want)
		}
	}
	view := pv[vi]
	vm.View = view.Name
	bi := len(view.Branches) - 1
	if tq.Branch >= 0 {
		if tq.Branch >= len(view.Branches) {
			return badRequestf("branch: the %s view has branches 0 to %d, not %d", view.Name, len(view.Branches)-1, tq.Branch)
		}
		bi = tq.Branch
	}
	vm.Branch = bi
	vm.LinkQuery = url.Values{}
	if vi != defaultView(pv) {
		vm.LinkQuery.Set("view", view.Name)
	}
	if bi != len(view.Branches)-1 {
		vm.LinkQuery.Set("branch", strconv.Itoa(bi))
	}
	fq := vm.Filter
	for _, v := range pv {
		vm.Views = append(vm.Views, views.ViewTab{Name: v.Name, Current: v.Name == view.Name,
			URL: views.PathQuery(viewURL(key, fq, v.Name, -1), "audits", key)})
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
			vm.Branches = append(vm.Branches, views.BranchTab{Index: i, Current: v.Name == view.Name && i == bi, Label: label, Messages: len(b.Messages),
				URL: views.PathQuery(viewURL(key, fq, v.Name, i), "audits", key)})
		}
	}
	// Who said what: a message the target's view holds belongs to the
	// target's conversation; the rest is the auditor's own.
	targetIDs := map[string]string{}
	for _, v := range pv {
		if v.Name != petri.ViewTarget {
			continue
		}
		for _, b := range v.Branches {
			for _, m := range b.Messages {
				if m.ID != "" {
					targetIDs[m.ID] = m.Role
				}
				if m.Role == "system" && vm.SystemNote == "" {
					vm.SystemNote = m.Content.String()
				}
			}
		}
	}
	br := view.Branches[bi]
	for i, m := range br.Messages {
		mv := messageView(m, view.Name, bi, i)
		mv.Shared = bi > 0 && i < br.Shared
		mv.Side = messageSide(view.Name, m, targetIDs)
		vm.Messages = append(vm.Messages, mv)
	}
	return nil
}

// messageSide names who a message comes from, as a reader needs it.
func messageSide(view string, m petri.Message, targetIDs map[string]string) string {
	_, inTarget := targetIDs[m.ID]
	if len(targetIDs) == 0 && view != petri.ViewAuditor {
		// No target view (an Inspect sample, a legacy file): the
		// conversation is the model's own, so the role says who spoke.
		switch m.Role {
		case "assistant":
			return "model"
		case "tool":
			return "tool result"
		}
		return m.Role
	}
	switch {
	case view == petri.ViewTarget && m.Role == "user":
		return "auditor → target"
	case view == petri.ViewTarget && m.Role == "tool":
		return "simulated tool result"
	case view == petri.ViewTarget:
		return "target"
	case view == petri.ViewAuditor && m.Role == "tool":
		return "to the auditor"
	case view == petri.ViewAuditor:
		return "auditor"
	case inTarget && m.Role == "user":
		return "auditor → target"
	case inTarget && m.Role == "tool":
		return "simulated tool result"
	case inTarget:
		return "target"
	case m.Role == "tool":
		return "to the auditor"
	}
	return "auditor"
}

func messageView(m petri.Message, view string, branch, i int) views.MessageView {
	anchor := m.ID
	if anchor == "" {
		anchor = view + "-" + strconv.Itoa(branch) + "-" + strconv.Itoa(i)
	}
	mv := views.MessageView{Anchor: anchor, Role: m.Role, Text: m.Content.String(), Function: m.Function, Model: m.Model}
	if len(m.ToolCallID) > 0 && m.Role == "tool" {
		mv.ToolCallID = m.ToolCallID[0]
	}
	if m.Error != nil {
		mv.Error = m.Error.Type + ": " + m.Error.Message
	}
	for _, p := range m.Content.Parts {
		switch p.Type {
		case "text":
		case "reasoning":
			if p.Redacted {
				mv.Reasoning += "(redacted reasoning)\n"
			} else {
				mv.Reasoning += p.Reasoning + "\n"
			}
		default:
			mv.Other = append(mv.Other, string(p.Raw))
		}
	}
	for _, tc := range m.ToolCalls {
		args, _ := json.MarshalIndent(tc.Arguments, "", "  ")
		mv.ToolCalls = append(mv.ToolCalls, views.ToolCallView{ID: tc.ID, Function: tc.Function, Arguments: string(args)})
	}
	mv.Long = len(mv.Text) > longMessage
	return mv
}

// judgeView builds the judge panel; each highlight links to a view and
// branch that holds the cited message, preferring the one shown.
func judgeView(jo *petri.JudgeOutput, pv []petri.View, view string, branch int, key string, fq url.Values) *views.JudgeView {
	jv := &views.JudgeView{Summary: jo.Summary, Justification: jo.Justification}
	where := func(id string) (string, int, bool) {
		for _, v := range pv {
			if v.Name != view {
				continue
			}
			for _, m := range v.Branches[branch].Messages {
				if m.ID == id {
					return v.Name, branch, true
				}
			}
		}
		for _, v := range pv {
			for bi := len(v.Branches) - 1; bi >= 0; bi-- {
				for _, m := range v.Branches[bi].Messages {
					if m.ID == id {
						return v.Name, bi, false
					}
				}
			}
		}
		return "", -1, false
	}
	for i, h := range jo.Highlights {
		hv := views.HighlightView{Index: i + 1, Description: h.Description}
		if h.Index != nil {
			hv.Index = *h.Index
		}
		for _, p := range h.Parts {
			v, b, here := where(p.MessageID)
			hp := views.HighlightPart{MessageID: p.MessageID, Quote: p.QuotedText, Here: here}
			if here || v == "" {
				hp.Href = views.PathQuery(viewURL(key, fq, view, branch), "audits", key) + "#m-" + templ.SafeURL(url.PathEscape(p.MessageID))
			} else {
				hp.Href = views.PathQuery(viewURL(key, fq, v, b), "audits", key) + "#m-" + templ.SafeURL(url.PathEscape(p.MessageID))
			}
			hv.Parts = append(hv.Parts, hp)
		}
		jv.Highlights = append(jv.Highlights, hv)
	}
	return jv
}

// auditTranscriptJSON downloads the transcript as imported.
func (s *Server) auditTranscriptJSON(c echo.Context) error {
	ctx := c.Request().Context()
	key, a, err := s.loadAudit(c)
	if err != nil {
		return err
	}
	body, err := s.store.Transcript(ctx, a.Experiment, a.ID)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Content-Disposition", `attachment; filename="`+strings.NewReplacer(`"`, "", ":", "-", "/", "-").Replace(key)+`.json"`)
	return c.Blob(http.StatusOK, "application/json", body)
}
