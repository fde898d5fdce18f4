package main

import (
	"context"
	"fmt"
	"io"

	"github.com/auditscope/auditscope/data"
)

const judgesHelp = `Usage: auditscope judges --db FILE --exp NAME [--judge NAME] PATH

Attaches another judge's verdicts to audits the experiment NAME holds
already (the audit count stays as it is; each audit gains a verdict):
  - PATH a folder (or file) of Petri transcripts judged again: the same
    transcript ids, another judge's output; or Inspect logs rescored: the
    same task, sample ids and epochs, another judge's scores (matched by
    those, not by the file's name). --judge names that judge.
  - PATH a .csv (columns audit, dimension, value, rater) or .jsonl of
    people's labels: each rater is a judge of their own. A rater's labels
    of a dimension are on its 1–10 scale, or all 0/1 for a yes-or-no
    question.
The verdicts land whole or not at all: a verdict on an audit the experiment
does not have, a score outside its scale or a missing column refuses the
file, naming its line.
`

func judgesCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("judges", judgesHelp, stdout, stderr)
	dbPath := fs.String("db", "", "DuckDB database `file` (required)")
	exp := fs.String("exp", "", "the `experiment` whose audits the verdicts judge (required)")
	judge := fs.String("judge", "", "the `name` of the judge that re-judged Petri transcripts (e.g. its model)")
	maxValue := maxValueFlag(fs)
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	paths, err := interleave(fs, args)
	if err != nil {
		return err
	}
	switch {
	case *dbPath == "":
		return usageError{"judges needs --db FILE"}
	case *exp == "":
		return usageError{"judges needs --exp NAME, the experiment whose audits are judged"}
	case len(paths) != 1:
		return usageError{"judges needs one PATH"}
	}
	if err := notURL("--db", *dbPath); err != nil {
		return err
	}
	store, err := data.Open(ctx, data.Options{Path: *dbPath})
	if err != nil {
		return err
	}
	stop := working(stderr, "attaching the verdicts of "+paths[0])
	res, err := store.ImportVerdicts(ctx, *exp, paths[0], *judge, int64(*maxValue))
	stop()
	if cerr := store.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, res.String())
	return nil
}
