package app

import (
	"context"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/analysis/experiment"
)

// PresetResult is one of the paper's comparisons with its composite
// difference A − B (the compare page's test) and its p-value adjusted over
// the family of all the experiment's presets.
type PresetResult struct {
	experiment.Preset
	Composite experiment.Diff
	// PBH is the composite's p adjusted by Benjamini–Hochberg over every
	// preset of the experiment: the comparisons the paper makes are one
	// family, looked at together.
	PBH float64
}

// PresetResults computes every preset's composite difference, as the
// compare page does (the same units, resamples and seed), and adjusts the
// p-values together. Kept per data version, beside the ranking.
func (s *Service) PresetResults(ctx context.Context, st *ExperimentStats) ([]PresetResult, error) {
	key := st.Key()
	return s.presets.Get(ctx, key, func(ctx context.Context) ([]PresetResult, error) {
		ps := Presets(st)
		if len(ps) == 0 {
			return nil, nil
		}
		u, err := st.units()
		if err != nil {
			return nil, err
		}
		out := make([]PresetResult, len(ps))
		raw := make([]float64, len(ps))
		for i, p := range ps {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			d, err := u.Composite(p.A, p.B, BootstrapResamples, experiment.PairSeed(st.Exp.ID, p.A, p.B, "compare"))
			if err != nil {
				return nil, err
			}
			out[i], raw[i] = PresetResult{Preset: p, Composite: d}, d.P
		}
		for i, q := range analysis.BenjaminiHochberg(raw) {
			out[i].PBH = q
		}
		return out, nil
	})
}
