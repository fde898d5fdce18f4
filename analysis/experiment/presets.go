package experiment

import (
	"cmp"
	"fmt"
	"slices"
)

// RunInfo is what the comparison presets read of a training run.
type RunInfo struct {
	ID, Name, Reward, BaseModel string
	CalibrationFraction         float64
	MultiTarget                 bool
	RefreshSteps                int64 // 0: no refresh schedule
}

// AuditorInfo is what the presets read of an auditor: a baseline, or a
// run's checkpoint at an epoch and step (0 when not given).
type AuditorInfo struct {
	ID, Name, Run string
	Baseline      bool
	Epoch, Step   int64
}

// Preset is a comparison the paper makes: A against B.
type Preset struct {
	Kind  string // epochs, base, multi-target
	Title string
	A, B  string
}

// Presets lists the paper's comparisons that the experiment's runs allow:
//
//   - each run's last epoch against its first (epoch 3 against epoch 1);
//   - each run's last checkpoint against its base model (the baseline
//     auditor whose id or name is the run's base_model);
//   - each multi-target run against the single-target run of the same
//     reward, calibration fraction and refresh schedule, compute-matched:
//     their checkpoints at the same training step (the same epoch when
//     steps are not given), the last they share.
func Presets(runs []RunInfo, auditors []AuditorInfo) []Preset {
	ckpts := map[string][]AuditorInfo{}
	baseline := map[string]string{} // id or name -> id
	names := map[string]string{}    // id -> name
	for _, a := range auditors {
		switch {
		case a.Baseline:
			baseline[a.ID] = a.ID
			names[a.ID] = cmp.Or(a.Name, a.ID)
			if _, ok := baseline[a.Name]; !ok {
				baseline[a.Name] = a.ID
			}
		case a.Run != "" && a.Epoch > 0:
			ckpts[a.Run] = append(ckpts[a.Run], a)
		}
	}
	for _, cs := range ckpts {
		slices.SortStableFunc(cs, func(x, y AuditorInfo) int { return int(x.Epoch - y.Epoch) })
	}
	var out []Preset
	for _, r := range runs {
		cs := ckpts[r.ID]
		if len(cs) >= 2 {
			first, last := cs[0], cs[len(cs)-1]
			out = append(out, Preset{Kind: "epochs", Title: fmt.Sprintf("%s: epoch %d against epoch %d", r.Name, last.Epoch, first.Epoch), A: last.ID, B: first.ID})
		}
	}
	for _, r := range runs {
		cs := ckpts[r.ID]
		if base, ok := baseline[r.BaseModel]; ok && len(cs) > 0 {
			last := cs[len(cs)-1]
			out = append(out, Preset{Kind: "base", Title: fmt.Sprintf("%s, epoch %d, against its base model %s", r.Name, last.Epoch, names[base]), A: last.ID, B: base})
		}
	}
	for _, m := range runs {
		if !m.MultiTarget {
			continue
		}
		for _, s := range runs {
			if s.MultiTarget || s.Reward != m.Reward || s.CalibrationFraction != m.CalibrationFraction || s.RefreshSteps != m.RefreshSteps {
				continue
			}
			if a, b, at, ok := computeMatched(ckpts[m.ID], ckpts[s.ID]); ok {
				out = append(out, Preset{Kind: "multi-target", Title: fmt.Sprintf("%s against %s, %s", m.Name, s.Name, at), A: a, B: b})
			}
		}
	}
	return out
}

// computeMatched finds the last training step (else epoch) two runs'
// checkpoints share.
func computeMatched(multi, single []AuditorInfo) (a, b, at string, ok bool) {
	for i := len(multi) - 1; i >= 0; i-- {
		for j := len(single) - 1; j >= 0; j-- {
			x, y := multi[i], single[j]
			switch {
			case x.Step > 0 && y.Step > 0 && x.Step == y.Step:
				return x.ID, y.ID, fmt.Sprintf("step %d", x.Step), true
			case (x.Step == 0 || y.Step == 0) && x.Epoch == y.Epoch:
				return x.ID, y.ID, fmt.Sprintf("epoch %d", x.Epoch), true
			}
		}
	}
	return "", "", "", false
}
