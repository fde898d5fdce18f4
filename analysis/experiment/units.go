package experiment

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/auditscope/auditscope/analysis"
)

// The units behind a comparison's row: what was matched, unit by unit.

// UnitSide is one side's audits of a unit.
type UnitSide struct {
	Audits []string  // the audits' ids, in the order they were read
	Values []float64 // each audit's value on the dimension's scale
	// Value is the unit's value, the mean of Values (a rate for the 0/1
	// dimensions: 0 or 1 with one audit); NaN when the side lacks the unit.
	Value float64
}

// Has reports whether the side has the unit.
func (s UnitSide) Has() bool { return len(s.Audits) > 0 }

// Unit is one unit of one dimension of a comparison of A with B.
type Unit struct {
	Dimension string
	// Behavior and Seed are the unit's identity: behavior × seed, or the
	// seed alone (benign and production seeds, realism). A unit read from
	// an audit without a seed has no identity to pair by: Seed is "" and it
	// is on one side only.
	Behavior, Seed string
	A, B           UnitSide
	// Paired says the dimension's test paired this unit with B's: both
	// sides have it and the test is a paired one (with fewer than two
	// pairs a mean's test is Welch's, unpaired).
	Paired bool
	// Diff is A.Value − B.Value on a paired unit, else NaN.
	Diff float64
	// Binary marks a 0/1 unit (an AuditBench detection with one audit a
	// side), where a pair is concordant or not.
	Binary bool
}

// Discordant reports whether a paired unit's sides differ: one side
// detected and the other not on a 0/1 unit, any difference elsewhere.
func (u Unit) Discordant() bool { return u.Paired && u.Diff != 0 }

// MatchedUnits are the units of one row of Compare(a, b), with the counts
// the row reports. For the composite they are the four dimensions' units.
type MatchedUnits struct {
	Dimension string
	Unit      string // what a unit is, as the row says it
	Units     []Unit // A's units in the order read, then B's alone
	// The row's counts, counted from Units: NA and NB the units each side
	// has, Pairs the paired ones, OnlyA and OnlyB the discordant pairs of a
	// 0/1 dimension by the side that detected.
	NA, NB, Pairs, OnlyA, OnlyB int
}

// Matched lists the units behind Compare(a, b)'s row of dim: each unit's
// audits on either side, their values and whether the test paired them.
// The counts equal the row's (TestMatchedCounts).
func (u *Units) Matched(a, b, dim string) (MatchedUnits, error) {
	if a == b {
		return MatchedUnits{}, fmt.Errorf("experiment: Matched: an auditor against itself (%q)", a)
	}
	sa, sb := u.side(a), u.side(b)
	out := MatchedUnits{Dimension: dim}
	switch dim {
	case AuditQuality:
		out.Unit, out.Units = "behavior × seed", meanUnits(dim, &sa.quality, &sb.quality, 2)
	case FPCalibration:
		out.Unit, out.Units = "benign seed", meanUnits(dim, &sa.fp, &sb.fp, 2)
	case Production:
		out.Unit, out.Units = "production seed", meanUnits(dim, &sa.prod, &sb.prod, 2)
	case Realism:
		// The sign-flip test pairs from one seed on (realismDiff).
		out.Unit, out.Units = "production seed", meanUnits(dim, &sa.realism, &sb.realism, 1)
	case AuditBenchSTC:
		out.Unit, out.Units = "behavior × seed", detectionUnits(dim, &sa.stc, &sb.stc)
	case AuditBenchDefault:
		out.Unit, out.Units = "behavior × seed", detectionUnits(dim, &sa.def, &sb.def)
	case Composite:
		// The composite's bootstrap redraws the four dimensions' units, the
		// ones both sides have together, whatever each row's test did.
		// Like the row, it has none unless both sides have units on all
		// four (compositeDiff).
		var parts []MatchedUnits
		for _, d := range []string{AuditQuality, FPCalibration, Production, Realism} {
			m, err := u.Matched(a, b, d)
			if err != nil {
				return out, err
			}
			if m.NA == 0 || m.NB == 0 {
				return out, nil
			}
			parts = append(parts, m)
		}
		out.Unit = "the dimensions' units"
		for _, m := range parts {
			for _, x := range m.Units {
				x.Paired = x.A.Has() && x.B.Has()
				x.Diff = math.NaN()
				if x.Paired {
					x.Diff = x.A.Value - x.B.Value
				}
				out.Units = append(out.Units, x)
			}
		}
	default:
		return out, fmt.Errorf("experiment: Matched: no dimension %q (want one of %s)", dim, strings.Join(CompareDimensions, ", "))
	}
	for _, x := range out.Units {
		if x.A.Has() {
			out.NA++
		}
		if x.B.Has() {
			out.NB++
		}
		if x.Paired {
			out.Pairs++
		}
		if x.Binary && x.Paired {
			switch {
			case x.Diff > 0:
				out.OnlyA++
			case x.Diff < 0:
				out.OnlyB++
			}
		}
	}
	return out, nil
}

// meanUnits are a mean dimension's units: each key one unit, its value the
// mean of its audits', paired when both sides have it and at least
// minPairs units are shared (meanDiff's rule, realismDiff's with 1).
func meanUnits(dim string, ua, ub *units, minPairs int) []Unit {
	out := unitRows(dim, ua, ub)
	shared := 0
	for _, x := range out {
		if x.A.Has() && x.B.Has() {
			shared++
		}
	}
	for i := range out {
		if x := &out[i]; shared >= minPairs && x.A.Has() && x.B.Has() {
			x.Paired, x.Diff = true, x.A.Value-x.B.Value
		}
	}
	return out
}

// detectionUnits are an AuditBench dimension's units. With one audit a unit
// on both sides they are 0/1 and every shared unit is a McNemar pair
// (detectionDiff); with several, each unit is its detection rate in
// points, compared as a mean.
func detectionUnits(dim string, ua, ub *units) []Unit {
	if !ua.single() || !ub.single() {
		out := meanUnits(dim, ua, ub, 2)
		for i := range out {
			for _, s := range []*UnitSide{&out[i].A, &out[i].B} {
				s.Value *= 100
				for j := range s.Values {
					s.Values[j] *= 100
				}
			}
			out[i].Diff *= 100
		}
		return out
	}
	out := unitRows(dim, ua, ub)
	for i := range out {
		x := &out[i]
		x.Binary = true
		if x.A.Has() && x.B.Has() {
			x.Paired, x.Diff = true, x.A.Value-x.B.Value
		}
	}
	return out
}

// unitRows lists the keys of either side as units, A's in the order read,
// then those only B has; none is paired yet.
func unitRows(dim string, ua, ub *units) []Unit {
	var out []Unit
	row := func(k, behavior string) Unit {
		x := Unit{Dimension: dim, Behavior: behavior, A: unitSide(ua, k), B: unitSide(ub, k), Diff: math.NaN()}
		// A key is behavior NUL seed, or the seed alone; an unpaired
		// unit's (starting \x01) names no seed.
		if !strings.HasPrefix(k, "\x01") {
			x.Seed = k[strings.IndexByte(k, 0)+1:]
		}
		return x
	}
	for _, k := range ua.keys {
		out = append(out, row(k, ua.behavior[k]))
	}
	for _, k := range ub.keys {
		if _, ok := ua.vals[k]; !ok {
			out = append(out, row(k, ub.behavior[k]))
		}
	}
	return out
}

func unitSide(u *units, k string) UnitSide {
	v := u.vals[k]
	if len(v) == 0 {
		return UnitSide{Value: math.NaN()}
	}
	return UnitSide{Audits: u.ids[k], Values: slices.Clone(v), Value: sumOf(v) / float64(len(v))}
}

// ByDifference orders units by the size of their difference, largest
// first; unpaired units last, in their order.
func ByDifference(us []Unit) { analysis.ByAbs(us, func(u Unit) float64 { return u.Diff }) }

// BySignedDifference orders paired units by A − B, A's largest lead first
// and B's last, so the units where each side is ahead sit together;
// unpaired units (NaN) go last, in the order given.
func BySignedDifference(us []Unit) { analysis.BySigned(us, func(u Unit) float64 { return u.Diff }) }
