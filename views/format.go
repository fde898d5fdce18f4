package views

import (
	"math"
	"strconv"
	"strings"

	"github.com/auditscope/auditscope/data/model"
)

// Undefined is how every page shows a number that does not exist: a rate
// over nothing, a correlation of fewer than three points, a failed fit.
const Undefined = "–"

// Num formats v with the given decimals, or Undefined when v is NaN. Every
// number on the pages goes through it, so one rule rounds them all.
func Num(v float64, decimals int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Undefined
	}
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	// A rounding residue such as -1e-17 reads "-0.00": it is zero.
	if s[0] == '-' && strings.Trim(s[1:], "0.") == "" {
		s = s[1:]
	}
	return s
}

// SamplesWord names what an experiment's audit list holds: "samples" for
// Inspect logs (which may or may not be audits), "audits" otherwise.
func SamplesWord(exp model.Experiment) string {
	if exp.Format == "inspect" {
		return "samples"
	}
	return "audits"
}

// plural picks the word for a count.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count is n with its noun, singular for one: "1 comparison", "2
// comparisons". The nouns the pages count all take an s.
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// SamplesEpochs counts an Inspect experiment's samples and epochs apart:
// "10 samples × 5 epochs", "10 samples" for one epoch; runs is how many
// sample runs there are in all, said when it is not samples × epochs (the
// logs differ in epochs).
func SamplesEpochs(samples, epochs, runs int) string {
	if samples == 0 {
		return Count(runs, "sample")
	}
	if epochs <= 1 {
		return Count(samples, "sample")
	}
	s := Count(samples, "sample") + " × " + Count(epochs, "epoch")
	if samples*epochs != runs {
		s = Count(samples, "sample") + " × up to " + Count(epochs, "epoch") + " (" + strconv.Itoa(runs) + " runs)"
	}
	return s
}
