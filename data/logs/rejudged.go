package logs

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/model"
)

// Ambiguous is a sample id two of an experiment's logs hold (Rejudged's
// samples).
const Ambiguous = "\x00ambiguous"

// Rejudged reads a folder (or one file) judged again by judge, as that
// judge's verdicts on exp's audits: Petri transcripts by their ids (each
// transcript's id is the audit it judges), Inspect logs rescored by each
// sample's task, id and epoch (a log's file name, which its audit ids
// start with, may differ), which samples maps to the experiment's audit
// ids (Ambiguous for one it holds twice); samples is read only for
// Inspect logs. A transcript or sample without the judge's scores, or one
// the experiment does not hold, is an error.
func Rejudged(ctx context.Context, exp, path, judge string, maxValue int64, samples func() (map[[3]string]string, error)) ([]model.Verdict, error) {
	root, files := path, []string(nil)
	if st, err := os.Stat(path); err != nil {
		return nil, err
	} else if !st.IsDir() {
		root, files = filepath.Dir(path), []string{filepath.Base(path)}
	}
	src, err := Open(ctx, root, Options{MaxValue: maxValue, Files: files})
	if err != nil {
		return nil, err
	}
	var ids map[[3]string]string // task, sample, epoch → audit id
	if src.Kind() == model.KindInspect {
		if ids, err = samples(); err != nil {
			return nil, err
		}
	}
	var out []model.Verdict
	err = src.Audits(func(pos bundle.Pos, a *bundle.Audit, _ json.RawMessage) error {
		if len(a.Scores) == 0 {
			return &model.InputError{File: pos.File, Offset: -1, Path: "metadata.judge_output", Msg: "no judge's scores: a re-judged transcript or rescored sample holds the new judge's scores"}
		}
		id := a.ID
		if ids != nil {
			k := [3]string{a.Labels["task"], a.Labels["sample"], a.Labels["epoch"]}
			switch id = ids[k]; id {
			case "":
				return &model.InputError{File: pos.File, Offset: -1, Msg: fmt.Sprintf("experiment %s has no sample %s, epoch %s of task %s: a rescored log's samples attach to those imported already", exp, k[1], k[2], k[0])}
			case Ambiguous:
				return &model.InputError{File: pos.File, Offset: -1, Msg: fmt.Sprintf("experiment %s holds sample %s, epoch %s of task %s in more than one log: attach the rescored log to an experiment of one run", exp, k[1], k[2], k[0])}
			}
		}
		out = append(out, model.Verdict{Audit: id, Judge: judge, Kind: model.JudgeModel, Summary: a.Summary, Scores: a.Scores, File: pos.File})
		return nil
	})
	return out, err
}
