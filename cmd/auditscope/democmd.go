package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/demo"
)

func demoCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("demo", "Usage: auditscope demo --out DIR [--audits N] [--seed N]\n       auditscope demo --pairs N --traits K [--seed N] --out FILE\n\nWrites the synthetic demo experiment as a bundle folder (see docs/FORMAT.md)\nand the synthetic AnnotatedPairs dataset beside it as annotated_pairs.json.\nImporting DIR reproduces the demo's tables.\n\nWith --pairs it writes instead one large AnnotatedPairs file of N comparisons\n× K principle annotators (plus a human annotator and 12 response models), the\ninput of the import and page benchmarks: --pairs 50000 --traits 40 --seed 5\nis 138 MiB. The same arguments give the same bytes.\n", stdout, stderr)
	out := fs.String("out", "", "`folder` to write the bundle to, or file with --pairs (required)")
	audits := fs.Int("audits", 0, "scale the experiment to about `N` audits (0: the paper's sizes)")
	seed := fs.Uint64("seed", 1, "random `seed` of the generator")
	pairs := fs.Int("pairs", 0, "write one AnnotatedPairs file of `N` comparisons instead of the demo")
	traits := fs.Int("traits", 40, "principle annotators per comparison with --pairs")
	noTexts := fs.Bool("no-texts", false, "with --pairs: an annotation-only file (no prompts or response texts)")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if _, err := interleave(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usageError{"demo needs --out DIR"}
	}
	if *pairs != 0 || flagSet(fs, "traits") {
		if *pairs < 1 || *traits < 0 || *audits != 0 {
			return usageError{"demo --pairs needs N ≥ 1 comparisons, --traits K ≥ 0, and no --audits"}
		}
		o := demo.ScaleOptions{Comparisons: *pairs, Traits: *traits, Seed: *seed, NoTexts: *noTexts}
		stop := working(stderr, "writing "+*out)
		defer stop()
		if err := writeFileAtomic(*out, func(w io.Writer) error { return demo.ScaleAnnotatedPairs(w, o) }); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s: %d comparisons × %d traits\n", *out, *pairs, *traits)
		return nil
	}
	defer working(stderr, "writing the demo to "+*out)()
	opts := demo.Options{Seed: *seed, Audits: *audits}
	b := demo.Experiment(opts)
	if err := bundle.Write(*out, b); err != nil {
		return err
	}
	f, err := os.Create(*out + "/annotated_pairs.json")
	if err != nil {
		return err
	}
	if err := demo.AnnotatedPairs(f, opts); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: %d auditors, %d audits, %d judgments, plus annotated_pairs.json\n", *out, len(b.Auditors), len(b.Audits), len(b.Judgments))
	return nil
}
