package app

import (
	"context"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/analysis/scorer"
	"github.com/auditscope/auditscope/data/model"
)

// Two models of an Inspect experiment compared sample by sample.

type (
	// SampleDiff is one scorer metric of model A against model B.
	SampleDiff = scorer.Diff
	// SampleUnit is one sample behind a SampleDiff, Side one side's
	// records of it.
	SampleUnit = scorer.Unit
	Side       = scorer.Side
)

// sampleValues are an experiment's scorer values per sample record, kept
// until the data changes.
func (s *Service) sampleValues(ctx context.Context, exp string) ([]scorer.SampleValue, error) {
	return kept(ctx, s, "samplevalues\x00"+exp, func(ctx context.Context) ([]scorer.SampleValue, error) {
		in, err := s.r.SampleValues(ctx, exp)
		if err != nil {
			return nil, err
		}
		out := make([]scorer.SampleValue, len(in))
		for i, v := range in {
			out[i] = scorer.SampleValue{Audit: v.Audit, Side: v.Auditor, Task: v.Task, Sample: v.Sample, Scorer: v.Scorer, Key: v.Key, Run: v.Run, Value: v.Num}
		}
		return out, nil
	})
}

// SampleCompare compares models a and b of an Inspect experiment on every
// scorer metric, sample by sample (scorer.Compare): units are the samples
// of each task, epochs reduced to their mean.
func (s *Service) SampleCompare(ctx context.Context, exp, a, b string) ([]SampleDiff, error) {
	vals, err := s.sampleValues(ctx, exp)
	if err != nil {
		return nil, err
	}
	return scorer.Compare(a, b, vals)
}

// SampleMetrics lists the scorer metrics an experiment's samples have, in
// name order (the rows of SampleCompare).
func (s *Service) SampleMetrics(ctx context.Context, exp string) ([]string, error) {
	vals, err := s.sampleValues(ctx, exp)
	if err != nil {
		return nil, err
	}
	return scorer.Metrics(vals), nil
}

// SampleUnits lists the samples behind one metric of SampleCompare.
func (s *Service) SampleUnits(ctx context.Context, exp, a, b, metric string) ([]SampleUnit, error) {
	vals, err := s.sampleValues(ctx, exp)
	if err != nil {
		return nil, err
	}
	return scorer.Units(a, b, metric, vals), nil
}

// SampleByDifference orders samples by the size of their difference.
func SampleByDifference(us []SampleUnit) { scorer.ByDifference(us) }

// SampleBySignedDifference orders samples by A − B, A's largest lead
// first, unpaired last.
func SampleBySignedDifference(us []SampleUnit) {
	analysis.BySigned(us, func(u SampleUnit) float64 { return u.Diff })
}

// IsSamples reports whether an experiment holds plain Inspect samples, not
// audits: its comparisons are by scorer metric and sample.
func (s *Service) IsSamples(ctx context.Context, e model.Experiment) (bool, error) {
	if e.Format != "inspect" {
		return false, nil
	}
	audits, err := s.HasAudits(ctx, e.ID)
	return !audits, err
}
