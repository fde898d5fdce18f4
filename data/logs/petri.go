package logs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/internal/regular"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/data/petri"

	"github.com/auditscope/auditscope/data/internal/digest"
	"github.com/auditscope/auditscope/data/internal/limit"

	"github.com/auditscope/auditscope/data/internal/jsonin"
)

func (s *Source) indexPetri(f *logFile, x *logIndex) error {
	b, err := readPetriFile(f.path, s.opts.MaxValue)
	if err != nil {
		return err
	}
	var head struct {
		Metadata json.RawMessage `json:"metadata"`
	}
	if err := petri.Decode(b, &head); err != nil {
		return logErr(f.path, err)
	}
	info, err := s.petriInfo(f, head.Metadata)
	if err != nil {
		return err
	}
	if err := x.claim(info.id, f.path, f.path); err != nil {
		return err
	}
	s.addAuditor(x, info.auditor)
	x.addBehavior(info.behavior)
	return nil
}

// readPetriFile reads a transcript file, without a UTF-8 byte-order mark.
// A transcript is one JSON document, read whole: maxValue limits it.
func readPetriFile(path string, maxValue int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	if maxValue = limit.Or(maxValue); st.Size() > maxValue {
		return nil, &model.InputError{File: path, Offset: -1, Msg: limit.Message("the transcript file", maxValue)}
	}
	b, err := regular.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	// encoding/json would turn invalid UTF-8 into U+FFFD in what it decodes
	// while the file's bytes are stored as given: refuse it.
	if i := jsonin.FirstInvalidUTF8(b); i >= 0 {
		return nil, &model.InputError{File: path, Offset: int64(i), Line: jsonin.LineAt(path, int64(i)), Msg: "not valid UTF-8"}
	}
	b = bytes.TrimPrefix(b, jsonin.BOM)
	if err := jsonin.CheckItems(b, jsonin.ItemsFor(maxValue)); err != nil {
		var ie *jsonin.ItemsError
		errors.As(err, &ie)
		return nil, &model.InputError{File: path, Offset: -1, Path: ie.Path, Msg: ie.Msg()}
	}
	return b, nil
}

// petriInfo is what an audit takes from a transcript's metadata.
type petriInfo struct {
	id, auditor, target, eval, behavior, seed string
	md                                        petri.Metadata
}

// petriInfo reads a transcript's metadata block.
func (s *Source) petriInfo(f *logFile, raw json.RawMessage) (petriInfo, error) {
	var info petriInfo
	if len(raw) == 0 {
		return info, &model.InputError{File: f.path, Offset: -1, Path: "metadata", Msg: "missing: a Petri transcript has a metadata object"}
	}
	if err := petri.Decode(raw, &info.md); err != nil {
		return info, logErr(f.path, prefixParseErr("metadata", err))
	}
	var extra map[string]json.RawMessage
	if err := petri.Decode(raw, &extra); err != nil {
		return info, logErr(f.path, prefixParseErr("metadata", err))
	}
	md := &info.md
	info.id = md.TranscriptID
	if info.id == "" {
		info.id = model.Slugify(strings.TrimSuffix(f.rel, filepath.Ext(f.rel)))
	}
	info.auditor = orUnknown(md.AuditorModel)
	info.target = orUnknown(md.TargetModel)
	meta := func(key string) string { return jsonString(extra[key]) }
	info.eval, info.behavior = s.classify(md.Tags, meta, true)
	info.seed = meta("seed")
	if info.seed == "" && md.Description != "" {
		info.seed = descriptionSeed(md.Description)
	}
	return info, nil
}

func prefixParseErr(prefix string, err error) error {
	var pe *petri.ParseError
	if errors.As(err, &pe) {
		return &petri.ParseError{Path: petri.JoinPath(prefix, pe.Path), Offset: -1, Msg: pe.Msg}
	}
	return err
}

func orUnknown(s string) string {
	if strings.TrimSpace(s) == "" {
		return "unknown"
	}
	return s
}

// descriptionSeed names the scenario a transcript started from by its
// special instructions: audits of the same instructions share a seed.
func descriptionSeed(desc string) string {
	slug := model.Slugify(desc)
	if len(slug) > 48 {
		slug = strings.TrimRight(slug[:48], "-.")
	}
	return slug + "-" + digest.Bytes([]byte(desc))[:8]
}

// classify picks an audit's eval kind and behavior: the --eval and
// --behavior flags; else the metadata fields eval (when it names an eval
// kind) and behavior; else the tags: a tag equal to an eval kind, a tag
// behavior:NAME. With convention (Petri transcripts), tags written the way
// auditscope writes them, [eval] or [eval, behavior], give the behavior
// too.
func (s *Source) classify(tags []string, meta func(string) string, convention bool) (eval, behavior string) {
	eval, behavior = s.opts.Eval, s.opts.Behavior
	if eval == "" {
		if e := meta("eval"); model.IsEval(e) {
			eval = e
		}
	}
	if behavior == "" {
		behavior = strings.TrimSpace(meta("behavior"))
	}
	evalTag := ""
	var bare []string
	for _, t := range tags {
		switch {
		case model.IsEval(t) && evalTag == "":
			evalTag = t
		case strings.HasPrefix(t, "behavior:"):
			if behavior == "" {
				behavior = strings.TrimSpace(strings.TrimPrefix(t, "behavior:"))
			}
		case !strings.Contains(t, ":") && !model.IsEval(t):
			bare = append(bare, t)
		}
	}
	if eval == "" {
		eval = evalTag
	}
	if behavior == "" && convention && evalTag != "" && len(bare) == 1 && len(tags) == 2 {
		behavior = bare[0]
	}
	if eval == "" {
		eval = model.EvalAuditQuality
	}
	return eval, behavior
}

// jsonString returns a JSON string's text ("" for other values).
func jsonString(raw json.RawMessage) string {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// jsonNumber returns a JSON number's value.
func jsonNumber(raw json.RawMessage) (float64, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || !(raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(raw), 64)
	return v, err == nil
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// jsonText is a JSON value as label text: strings as they are, other
// values as JSON, at most maxLabel characters.
func jsonText(raw json.RawMessage) string {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		var buf bytes.Buffer
		if json.Compact(&buf, raw) == nil {
			s = buf.String()
		} else {
			s = string(bytes.TrimSpace(raw))
		}
	}
	if utf8.RuneCountInString(s) > maxLabel {
		r := []rune(s)
		s = string(r[:maxLabel]) + "…"
	}
	return s
}

// petriAudit reads one transcript file as an audit; the transcript is
// stored as the file gives it.
func (s *Source) petriAudit(f *logFile, fn func(bundle.Pos, *bundle.Audit, json.RawMessage) error) error {
	b, err := readPetriFile(f.path, s.opts.MaxValue)
	if err != nil {
		return err
	}
	t, err := petri.Parse(b)
	if err != nil {
		return logErr(f.path, err)
	}
	var head struct {
		Metadata json.RawMessage `json:"metadata"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return logErr(f.path, err)
	}
	info, err := s.petriInfo(f, head.Metadata)
	if err != nil {
		return err
	}
	views, err := t.Views()
	if err != nil {
		var re *petri.ReplayError
		if errors.As(err, &re) {
			return &model.InputError{File: f.path, Offset: -1, Path: fmt.Sprintf("events[%d]", re.Event), Msg: re.Msg}
		}
		return logErr(f.path, err)
	}
	a := &bundle.Audit{ID: info.id, Auditor: info.auditor, Eval: info.eval, Behavior: info.behavior, Seed: info.seed,
		Target: info.target, Turns: petri.Turns(views), Transcript: t, Labels: map[string]string{"source": f.rel}}
	if len(t.Metadata.Tags) > 0 {
		a.Labels["tags"] = strings.Join(t.Metadata.Tags, ", ")
	}
	maps.Copy(a.Labels, petri.ValidityLabels(views, t.Metadata.JudgeOutput))
	if jo := t.Metadata.JudgeOutput; jo != nil {
		a.Summary = jo.Summary
		dims := make([]string, 0, len(jo.Scores))
		for d := range jo.Scores {
			dims = append(dims, d)
		}
		sort.Strings(dims)
		for _, d := range dims {
			if v := jo.Scores[d]; !(v >= 1 && v <= 10) {
				return &model.InputError{File: f.path, Offset: -1, Path: "metadata.judge_output.scores." + d, Msg: fmt.Sprintf("want a score from 1 to 10, found %v", v)}
			}
		}
		if len(jo.Scores) > 0 {
			a.Scores = jo.Scores
		}
	}
	return fn(bundle.Pos{File: f.path}, a, b)
}
