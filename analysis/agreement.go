package analysis

import (
	"errors"
	"fmt"
	"math"
)

// Vote is a coded pairwise preference, for storing large vote matrices
// compactly (one byte per vote) and computing agreement on them quickly.
type Vote int8

// The preference values of an AnnotatedPairs file, coded.
const (
	VoteNone    Vote = iota // a missing vote ("" or null)
	VoteA                   // "text_a": the first response is preferred
	VoteB                   // "text_b": the second response is preferred
	VoteTie                 // "tie"
	VoteInvalid             // "invalid", and any unrecognised string
)

// ParseVote codes a preference string: "text_a", "text_b", "tie",
// "invalid", and "" for a missing vote. Any other string is coded as
// VoteInvalid, which has the same effect on every agreement metric (it is
// neither a nor b).
func ParseVote(s string) Vote {
	switch s {
	case "":
		return VoteNone
	case "text_a":
		return VoteA
	case "text_b":
		return VoteB
	case "tie":
		return VoteTie
	default:
		return VoteInvalid
	}
}

// String returns the preference string that ParseVote maps to v.
func (v Vote) String() string {
	switch v {
	case VoteNone:
		return ""
	case VoteA:
		return "text_a"
	case VoteB:
		return "text_b"
	case VoteTie:
		return "tie"
	default:
		return "invalid"
	}
}

// decisive reports whether v is a vote for one of the two responses.
func (v Vote) decisive() bool { return v == VoteA || v == VoteB }

// CohenKappa returns Cohen's (unweighted) kappa between raters a and b with
// scikit-learn's cohen_kappa_score(a, b, labels=labels) semantics:
//
//  1. Position i is dropped when a[i] or b[i] is not in labels (so with
//     labels text_a and text_b, a tie or invalid vote from either rater removes
//     the pair). used is the number of pairs left.
//  2. On those pairs, with C the confusion matrix over labels and
//     E[i][j] = (column i total)·(row j total)/used the counts expected by
//     chance, kappa = 1 - Σ_{i≠j} C[i][j] / Σ_{i≠j} E[i][j], which equals
//     (po - pe)/(1 - pe).
//
// kappa is NaN (nil error) when it is undefined: no pairs are left, or
// pe = 1 because both raters use one and the same label throughout.
// No labels and duplicate labels are errors; it panics when a and b differ
// in length.
func CohenKappa(a, b []string, labels []string) (kappa float64, used int, err error) {
	if len(a) != len(b) {
		panic(fmt.Sprintf("analysis: CohenKappa: len(a) = %d, len(b) = %d", len(a), len(b)))
	}
	if len(labels) == 0 {
		return math.NaN(), 0, errors.New("analysis: CohenKappa: no labels")
	}
	index := make(map[string]int, len(labels))
	for i, l := range labels {
		if _, dup := index[l]; dup {
			return math.NaN(), 0, fmt.Errorf("analysis: CohenKappa: duplicate label %q", l)
		}
		index[l] = i
	}
	k := len(labels)
	conf := make([]float64, k*k) // conf[i*k+j]: a says label i, b says label j
	for p := range a {
		i, ok := index[a[p]]
		if !ok {
			continue
		}
		j, ok := index[b[p]]
		if !ok {
			continue
		}
		conf[i*k+j]++
		used++
	}
	if used == 0 {
		return math.NaN(), 0, nil
	}
	rowSum := make([]float64, k) // per label of a
	colSum := make([]float64, k) // per label of b
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			rowSum[i] += conf[i*k+j]
			colSum[j] += conf[i*k+j]
		}
	}
	// Sum in row-major order as scikit-learn does, to track its rounding.
	var observed, expected float64
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			if i != j {
				observed += conf[i*k+j]
				expected += colSum[i] * rowSum[j] / float64(used)
			}
		}
	}
	if expected == 0 {
		return math.NaN(), used, nil
	}
	return 1 - observed/expected, used, nil
}

// Agreement holds the Feedback Forensics metrics of one annotator against a
// reference annotator. Comparisons whose reference vote is neither text_a nor
// text_b are dropped first; Kept counts the rest. On the kept comparisons a
// vote is valid when it is text_a or text_b, and
//
//	Agree         = #(valid and ann == ref)
//	Disagree      = #(valid and ann != ref)
//	NotApplicable = Kept - Agree - Disagree
//	Relevance     = (Agree + Disagree)/Kept
//	Accuracy      = Agree/(Agree + Disagree), or 0.5 when Agree + Disagree = 0
//	Kappa         = 2·(Accuracy - 0.5)   (Cohen's kappa with chance agreement 0.5)
//	Strength      = Kappa · Relevance    (= (Agree - Disagree)/Kept)
//	Agreement     = Agree/Kept
//
// When Kept = 0 every ratio is NaN and the counts are 0.
type Agreement struct {
	Kept, Agree, Disagree, NotApplicable            int
	Relevance, Accuracy, Agreement, Kappa, Strength float64
}

// AgreementFromCounts computes the Agreement ratios from the counts of kept
// comparisons and of agreeing and disagreeing valid votes, for callers that
// count elsewhere (for example in SQL). It panics unless
// 0 <= agree, 0 <= disagree and agree + disagree <= kept.
func AgreementFromCounts(kept, agree, disagree int) Agreement {
	if agree < 0 || disagree < 0 || agree+disagree > kept {
		panic(fmt.Sprintf("analysis: AgreementFromCounts: inconsistent counts kept=%d agree=%d disagree=%d", kept, agree, disagree))
	}
	g := Agreement{Kept: kept, Agree: agree, Disagree: disagree, NotApplicable: kept - agree - disagree}
	if kept == 0 {
		nan := math.NaN()
		g.Relevance, g.Accuracy, g.Agreement, g.Kappa, g.Strength = nan, nan, nan, nan, nan
		return g
	}
	valid := float64(agree + disagree)
	g.Relevance = valid / float64(kept)
	g.Accuracy = 0.5
	if valid > 0 {
		g.Accuracy = float64(agree) / valid
	}
	g.Kappa = 2 * (g.Accuracy - 0.5)
	g.Strength = g.Kappa * g.Relevance
	g.Agreement = float64(agree) / float64(kept)
	return g
}

// AnnotatorAgreement returns the Agreement of annotator votes ann against
// reference votes ref, position by position. Votes are "text_a", "text_b",
// "tie", "invalid", and "" for a missing vote; any other string counts as
// invalid. It panics when the lengths differ (a caller bug). For large vote
// matrices code the votes once with ParseVote and use AgreementCodes.
func AnnotatorAgreement(ref, ann []string) Agreement {
	if len(ref) != len(ann) {
		panic(fmt.Sprintf("analysis: AnnotatorAgreement: len(ref) = %d, len(ann) = %d", len(ref), len(ann)))
	}
	var kept, agree, disagree int
	for i, r := range ref {
		if r != "text_a" && r != "text_b" {
			continue
		}
		kept++
		switch a := ann[i]; {
		case a == r:
			agree++
		case a == "text_a" || a == "text_b":
			disagree++
		}
	}
	return AgreementFromCounts(kept, agree, disagree)
}

// AgreementCodes is AnnotatorAgreement on coded votes. It panics when the
// lengths differ.
func AgreementCodes(ref, ann []Vote) Agreement {
	if len(ref) != len(ann) {
		panic(fmt.Sprintf("analysis: AgreementCodes: len(ref) = %d, len(ann) = %d", len(ref), len(ann)))
	}
	ann = ann[:len(ref)]
	// Random votes make the branches of the string version unpredictable;
	// a table lookup keeps this loop branch-free.
	var kept, agree, disagree int
	for i, r := range ref {
		t := agreementTable[voteIndex(r)*voteCodes+voteIndex(ann[i])]
		kept += int(t & 1)
		agree += int(t >> 1 & 1)
		disagree += int(t >> 2 & 1)
	}
	return AgreementFromCounts(kept, agree, disagree)
}

// voteCodes is the number of distinct Vote codes.
const voteCodes = int(VoteInvalid) + 1

// voteIndex maps a Vote to 0..voteCodes-1; out-of-range values count as
// VoteInvalid.
func voteIndex(v Vote) int {
	if uint8(v) >= uint8(voteCodes) {
		return int(VoteInvalid)
	}
	return int(v)
}

// agreementTable[ref·voteCodes + ann] has bit 0 set when the comparison is
// kept, bit 1 when the annotator agrees and bit 2 when it disagrees.
var agreementTable = func() (t [voteCodes * voteCodes]uint8) {
	for r := Vote(0); int(r) < voteCodes; r++ {
		for a := Vote(0); int(a) < voteCodes; a++ {
			var bits uint8
			if r.decisive() {
				bits = 1
				switch {
				case a == r:
					bits |= 2
				case a.decisive():
					bits |= 4
				}
			}
			t[int(r)*voteCodes+int(a)] = bits
		}
	}
	return t
}()
