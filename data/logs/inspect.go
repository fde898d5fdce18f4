package logs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/inspect"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/data/petri"

	"gonum.org/v1/gonum/stat"
)

func (s *Source) indexInspect(f *logFile, x *logIndex) error {
	l, err := inspect.Open(f.path, s.opts.MaxValue)
	if err != nil {
		return logErr(f.path, err)
	}
	defer l.Close()
	h := &l.Header
	f.model, f.runID = h.Eval.Model, h.Eval.RunID
	s.addAuditor(x, inspectAuditor(h))
	f.paper = s.opts.Eval != "" || s.opts.Behavior != "" || h.Eval.RoleModel("auditor") != ""
	// in[name]: every value of the scalar scorer name so far is a number
	// from 1 to 10.
	in := map[string]bool{}
	samples := 0
	ids := map[string]bool{}
	err = l.Summaries(func(smp *inspect.Sample) error {
		x.samples++
		samples++
		if !ids[smp.ID] {
			ids[smp.ID] = true
			x.distinct++
		}
		x.epochs = max(x.epochs, smp.Epoch)
		if err := x.claim(f.prefix+smp.Key(), f.path+": "+smp.Member, f.path); err != nil {
			return err
		}
		tags, meta := inspectTags(h, smp), inspectMeta(h, smp)
		if namesAudit(tags, meta) {
			f.paper = true
		}
		_, behavior := s.classify(tags, meta, false)
		x.addBehavior(behavior)
		for name, sc := range smp.Scores {
			if isObject(sc.Value) {
				f.paper = f.paper || isJudgeScore(name, &sc)
				continue
			}
			v, isNum := jsonNumber(sc.Value)
			ok, seen := in[name]
			in[name] = (ok || !seen) && isNum && v >= 1 && v <= 10
		}
		return nil
	})
	if err != nil {
		return logErr(f.path, err)
	}
	f.dims = map[string]bool{}
	for name, ok := range in {
		// A plain Inspect scorer's 1-10 numbers stay its own column.
		if ok && f.paper {
			f.dims[name] = true
		}
	}
	f.log, err = inspectLogRecord(f, l, samples)
	return err
}

// namesAudit reports whether a sample's tags or metadata place it in the
// paper's terms: an eval kind or a behavior.
func namesAudit(tags []string, meta func(string) string) bool {
	if model.IsEval(meta("eval")) || strings.TrimSpace(meta("behavior")) != "" {
		return true
	}
	for _, t := range tags {
		if model.IsEval(t) || strings.HasPrefix(t, "behavior:") {
			return true
		}
	}
	return false
}

// inspectLogRecord is the header of an Inspect log as the import records
// it: its task, model, status and its scorers' reported metrics.
func inspectLogRecord(f *logFile, l *inspect.Log, samples int) (*model.InspectLog, error) {
	h := &l.Header
	rec := &model.InspectLog{Log: f.rel, Task: h.Eval.Task, Model: orUnknown(h.Eval.Model), Status: h.Status,
		Created: firstOf(h.Eval.Created, h.Stats.StartedAt), Samples: samples}
	if rec.Status == "" {
		rec.Status = "unknown"
	}
	res, err := l.ParseResults()
	if err != nil {
		return nil, logErr(f.path, err)
	}
	if res == nil {
		return rec, nil
	}
	total := res.TotalSamples
	rec.Total = &total
	reduced, err := reducedScores(l)
	if err != nil {
		return nil, logErr(f.path, err)
	}
	out := make([]model.ReportedScore, 0, len(res.Scores)) // not nil: results were reported
	for _, sc := range res.Scores {
		o := model.ReportedScore{Name: sc.Name, Scorer: sc.Scorer, Metrics: []model.ReportedMetric{}}
		// A scalar scorer's reductions are under its name; a dictionary
		// scorer's under the scorer, by the key its result names; each by
		// the reducer its result was reduced with.
		red := reducerName(sc.Reducer)
		if r, ok := reduced[[3]string{sc.Name, red, ""}]; ok {
			o.Reduced = r
		} else if r, ok := reduced[[3]string{sc.Scorer, red, sc.Name}]; ok && sc.Scorer != "" {
			o.Reduced = r
		}
		for _, name := range sc.MetricNames() {
			m := model.ReportedMetric{Name: name}
			if v, ok := sc.Metrics[name].Number(); ok {
				m.Value = &v
			}
			o.Metrics = append(o.Metrics, m)
		}
		out = append(out, o)
	}
	rec.Scores = out
	return rec, nil
}

// reducerName is a reducer as reductions.json and the results name it: none
// named is Inspect's default, the mean.
func reducerName(r string) string {
	if r == "" {
		return "mean"
	}
	return r
}

// reducedScores summarises a .eval log's epoch-reduced scores
// (reductions.json) by scorer, reducer (a scorer reduced two ways has an
// entry for each) and, for a dictionary value, key: one value per sample,
// mapped as Inspect's value_to_float does.
func reducedScores(l *inspect.Log) (map[[3]string]*model.ReducedScores, error) {
	reds, err := l.Reductions()
	if err != nil || len(reds) == 0 {
		return nil, err
	}
	return summarizeReductions(reds), nil
}

// summarizeReductions is reducedScores of reductions already read.
func summarizeReductions(reds []inspect.Reduction) map[[3]string]*model.ReducedScores {
	type acc struct {
		reducer     string
		vals        []float64
		unconverted int
	}
	by := map[[3]string]*acc{}
	add := func(k [3]string, reducer string, raw json.RawMessage) {
		a := by[k]
		if a == nil {
			a = &acc{reducer: reducer}
			by[k] = a
		}
		v, ok := inspect.ValueToFloat(raw)
		if !ok {
			a.unconverted++
		}
		a.vals = append(a.vals, v)
	}
	for _, r := range reds {
		red := reducerName(r.Reducer)
		for _, smp := range r.Samples {
			var dict map[string]json.RawMessage
			if raw := bytes.TrimSpace(smp.Value); len(raw) > 0 && raw[0] == '{' && json.Unmarshal(raw, &dict) == nil {
				for key, v := range dict {
					add([3]string{r.Scorer, red, key}, r.Reducer, v)
				}
				continue
			}
			add([3]string{r.Scorer, red, ""}, r.Reducer, smp.Value)
		}
	}
	out := make(map[[3]string]*model.ReducedScores, len(by))
	for k, a := range by {
		mean, sd := stat.MeanStdDev(a.vals, nil)
		if len(a.vals) == 1 {
			sd = 0
		}
		binary := true
		for _, v := range a.vals {
			binary = binary && (v == 0 || v == 1)
		}
		out[k] = &model.ReducedScores{Reducer: a.reducer, N: len(a.vals), Mean: mean, SD: sd, Binary: binary,
			Min: slices.Min(a.vals), Max: slices.Max(a.vals), Unconverted: a.unconverted}
	}
	return out
}

// InspectLogs hands over the headers of the Inspect logs, in path order.
func (s *Source) InspectLogs(fn func(bundle.Pos, *model.InspectLog) error) error {
	for _, f := range s.files {
		if f.log == nil {
			continue
		}
		if err := fn(bundle.Pos{File: f.path}, f.log); err != nil {
			return err
		}
	}
	return nil
}

// inspectAuditor is the model that plays the auditor: the auditor role's
// model (Petri runs as an Inspect task with roles), else the eval's model.
func inspectAuditor(h *inspect.Header) string {
	if m := h.Eval.RoleModel("auditor"); m != "" {
		return m
	}
	return orUnknown(h.Eval.Model)
}

// inspectTags are the eval's tags and the sample's metadata tags.
func inspectTags(h *inspect.Header, smp *inspect.Sample) []string {
	tags := append([]string(nil), h.Eval.Tags...)
	var more []string
	if raw, ok := smp.Metadata["tags"]; ok && json.Unmarshal(raw, &more) == nil {
		tags = append(tags, more...)
	}
	return tags
}

// inspectMeta looks a key up in the sample's metadata, then the eval's.
func inspectMeta(h *inspect.Header, smp *inspect.Sample) func(string) string {
	return func(key string) string {
		if v := jsonString(smp.Metadata[key]); v != "" {
			return v
		}
		return jsonString(h.Eval.Metadata[key])
	}
}

// reservedLabels are the labels an Inspect sample gets besides its
// metadata; metadata keys of these names are prefixed with "metadata.".
var reservedLabels = map[string]bool{"task": true, "sample": true, "epoch": true, "source": true, "status": true, "error": true, "tags": true,
	petri.LabelTargetReplies: true, petri.LabelJudge: true, petri.LabelConversation: true}

// inspectAudits reads an Inspect log's samples as audits; each transcript
// is the sample's conversation converted to a legacy Petri transcript.
func (s *Source) inspectAudits(f *logFile, fn func(bundle.Pos, *bundle.Audit, json.RawMessage) error) error {
	l, err := inspect.Open(f.path, s.opts.MaxValue)
	if err != nil {
		return logErr(f.path, err)
	}
	defer l.Close()
	h := &l.Header
	auditor := inspectAuditor(h)
	err = l.Samples(func(smp *inspect.Sample) error {
		a, t, err := s.inspectAudit(f, h, auditor, smp)
		if err != nil {
			return err
		}
		raw, err := json.Marshal(t)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", f.path, smp.Member, err)
		}
		return fn(bundle.Pos{File: f.path + ": " + smp.Member}, a, raw)
	})
	if err != nil {
		return logErr(f.path, err)
	}
	return nil
}

func (s *Source) inspectAudit(f *logFile, h *inspect.Header, auditor string, smp *inspect.Sample) (*bundle.Audit, *petri.Transcript, error) {
	tags := inspectTags(h, smp)
	meta := inspectMeta(h, smp)
	labels := inspectLabels(f, h, smp, tags)
	sc, err := inspectScores(f, smp, labels)
	if err != nil {
		return nil, nil, err
	}
	a := &bundle.Audit{ID: f.prefix + smp.Key(), Auditor: auditor, Seed: f.prefix + smp.ID, Labels: labels,
		Scorers: sc.scorers, Columns: sc.columns}
	if f.paper {
		a.Eval, a.Behavior = s.classify(tags, meta, false)
		a.Target = meta("target_model")
		if a.Target == "" {
			a.Target = h.Eval.RoleModel("target")
		}
		if a.Target == "" {
			a.Target = orUnknown(h.Eval.Model)
		}
	} else {
		// A plain Inspect sample: no eval, behavior or target to invent.
		a.Sample = true
	}
	if len(sc.dims) > 0 {
		a.Scores = sc.dims
	}
	if sc.judge != nil {
		a.Summary = sc.judge.Summary
	} else {
		a.Summary = strings.Join(sc.summary, "; ")
	}
	for _, m := range smp.Messages {
		if m.Role == "user" {
			a.Turns++
		}
	}
	created := firstOf(smp.StartedAt, h.Eval.Created, h.Stats.StartedAt)
	t := &petri.Transcript{
		Metadata: petri.Metadata{
			TranscriptID: a.ID,
			AuditorModel: auditor,
			TargetModel:  a.Target,
			CreatedAt:    created,
			UpdatedAt:    firstOf(smp.CompletedAt, h.Stats.CompletedAt, created),
			Version:      "v3.0",
			Description:  smp.Input,
			Tags:         tags,
			JudgeOutput:  sc.judge,
			Sample:       sampleRecord(smp),
		},
		Messages: smp.Messages,
	}
	a.Transcript = t
	// The gate's labels, as a Petri transcript's: replayed as the audit
	// page replays it.
	if views, err := t.Views(); err == nil && f.paper {
		maps.Copy(labels, petri.ValidityLabels(views, sc.judge))
	}
	return a, t, nil
}

// inspectLabels are a sample's labels: where it comes from, its status,
// tags and metadata.
func inspectLabels(f *logFile, h *inspect.Header, smp *inspect.Sample, tags []string) map[string]string {
	labels := map[string]string{"task": h.Eval.Task, "sample": smp.ID, "epoch": strconv.Itoa(smp.Epoch), "source": f.rel}
	// A running log's status is its header's, which changes as it finishes
	// (the scorer table shows it); a sample's labels stay as imported.
	if h.Status != "" && h.Status != "success" && h.Status != inspect.StatusStarted {
		labels["status"] = h.Status
	}
	if smp.Error != "" {
		labels["error"] = smp.Error
	}
	if len(tags) > 0 {
		labels["tags"] = strings.Join(tags, ", ")
	}
	for k, v := range smp.Metadata {
		if reservedLabels[k] || strings.HasPrefix(k, "score:") {
			k = "metadata." + k
		}
		labels[k] = jsonText(v)
	}
	return labels
}

// sampleScores is what a sample's scores become: judge dimensions, the
// Petri judge's output if a scorer is one, every score as the scorer gave
// it, the numbers filed as score columns, and a line per scorer for the
// summary.
type sampleScores struct {
	dims    map[string]float64
	judge   *petri.JudgeOutput
	scorers []bundle.SampleScore
	columns map[string]float64
	summary []string
}

// inspectScores reads a sample's scores. In a Petri log, a number from 1
// to 10 is a judge dimension (a scalar scorer only when all its numbers in
// the log are in range). Every other number value_to_float can read is a
// score column of the scorer's name (scorer.key for a dictionary value).
func inspectScores(f *logFile, smp *inspect.Sample, labels map[string]string) (sampleScores, error) {
	out := sampleScores{dims: map[string]float64{}, columns: map[string]float64{}}
	// record keeps one score; judge tells a judge dimension, inJudge any key
	// of a judge's scores (an out-of-range one is not a column of its own).
	record := func(name, key string, raw json.RawMessage, sc *inspect.Score, judge, inJudge bool) {
		num, ok := inspect.ValueToFloat(raw)
		ss := bundle.SampleScore{Log: f.rel, Scorer: name, Key: key, Value: jsonText(raw), Num: num, Converted: ok, Judge: judge}
		if key == "" {
			ss.Answer, ss.Explanation = sc.Answer, sc.Explanation
		}
		out.scorers = append(out.scorers, ss)
		col := name
		if key != "" {
			col = name + "." + key
		}
		if _, taken := out.dims[col]; ok && !inJudge && !taken {
			out.columns[col] = num
		}
	}
	for _, name := range slices.Sorted(maps.Keys(smp.Scores)) {
		sc := smp.Scores[name]
		if !isObject(sc.Value) {
			v, isNum := jsonNumber(sc.Value)
			dim := isNum && f.dims[name]
			if dim {
				out.dims[name] = v
			} else if f.paper {
				labels["score:"+name] = jsonText(sc.Value)
			}
			record(name, "", sc.Value, &sc, dim, dim)
			line := name + ": " + jsonText(sc.Value)
			if sc.Answer != "" {
				line += " (answer: " + truncate(sc.Answer, 200) + ")"
			}
			out.summary = append(out.summary, line)
			continue
		}
		var parts map[string]json.RawMessage
		if err := json.Unmarshal(sc.Value, &parts); err != nil {
			return out, &inspect.Error{File: f.path, Member: smp.Member, Path: "scores." + name + ".value", Offset: -1, Msg: err.Error()}
		}
		judge := f.paper && isJudgeScore(name, &sc)
		own := map[string]float64{}
		for _, k := range slices.Sorted(maps.Keys(parts)) {
			v, ok := jsonNumber(parts[k])
			if !f.paper || !ok || v < 1 || v > 10 {
				if f.paper {
					labels["score:"+name+"."+k] = jsonText(parts[k])
				}
				record(name, k, parts[k], &sc, false, judge)
				continue
			}
			dim := k
			if _, taken := out.dims[dim]; taken {
				dim = name + "." + k
			}
			out.dims[dim] = v
			own[k] = v
			record(name, k, parts[k], &sc, true, true)
		}
		if len(parts) > 0 && !judge {
			// A dictionary scorer's answer and explanation belong to it as a
			// whole: kept once, on its first key.
			first := &out.scorers[len(out.scorers)-len(parts)]
			first.Answer, first.Explanation = sc.Answer, sc.Explanation
		}
		if out.judge == nil && judge {
			jo, jerr := judgeOutput(&sc, own)
			if jerr != nil {
				return out, &inspect.Error{File: f.path, Member: smp.Member, Path: "scores." + name + ".metadata." + jerr.path, Offset: -1, Msg: jerr.msg}
			}
			out.judge = jo
		}
	}
	return out, nil
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// isJudgeScore tells a Petri alignment-judge score: an object of
// dimensions whose metadata carries highlights or score descriptions.
func isJudgeScore(name string, sc *inspect.Score) bool {
	_, hl := sc.Metadata["highlights"]
	_, sd := sc.Metadata["score_descriptions"]
	return hl || sd || strings.Contains(name, "judge")
}

type judgeErr struct{ path, msg string }

// judgeOutput builds the judge verdict of a Petri judge score: answer is
// the summary, explanation the justification; the metadata supplies the
// response, the score descriptions and the highlights.
func judgeOutput(sc *inspect.Score, scores map[string]float64) (*petri.JudgeOutput, *judgeErr) {
	jo := &petri.JudgeOutput{Summary: sc.Answer, Justification: sc.Explanation, Scores: scores,
		Response: jsonString(sc.Metadata["response"])}
	if raw, ok := sc.Metadata["score_descriptions"]; ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		if err := petri.Decode(raw, &jo.ScoreDescriptions); err != nil {
			return nil, parseErrPath("score_descriptions", err)
		}
	}
	if raw, ok := sc.Metadata["highlights"]; ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		if err := petri.Decode(raw, &jo.Highlights); err != nil {
			return nil, parseErrPath("highlights", err)
		}
	}
	return jo, nil
}

func parseErrPath(prefix string, err error) *judgeErr {
	var pe *petri.ParseError
	if errors.As(err, &pe) {
		return &judgeErr{petri.JoinPath(prefix, pe.Path), pe.Msg}
	}
	return &judgeErr{prefix, err.Error()}
}

// sampleRecord is what the sample's page shows beside the conversation;
// nil when the log records none of it.
func sampleRecord(smp *inspect.Sample) *petri.SampleRecord {
	r := &petri.SampleRecord{Target: smp.Target, Usage: smp.Usage, TotalTime: smp.TotalTime, WorkingTime: smp.WorkingTime,
		Limit: smp.Limit, Error: smp.Error, Retries: smp.Retries, Timeline: smp.Timeline}
	if len(r.Target) == 0 && len(r.Usage) == 0 && r.TotalTime == nil && r.WorkingTime == nil && r.Limit == "" && r.Error == "" && len(r.Retries) == 0 && len(r.Timeline) == 0 {
		return nil
	}
	return r
}
