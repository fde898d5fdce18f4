package demo

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
)

// ScaleOptions sizes the large AnnotatedPairs file written by
// ScaleAnnotatedPairs.
type ScaleOptions struct {
	Comparisons int    // N comparisons
	Traits      int    // K principle annotators
	Seed        uint64 // same seed, same bytes
	// NoTexts writes an annotation-only file: no prompts, responses with a
	// model but no text, and a conversation_id to merge texts back by.
	NoTexts bool
}

// scaleWords are the words the synthetic prompts and responses are made of.
var scaleWords = []string{"the", "model", "answer", "user", "clearly", "therefore",
	"however", "because", "data", "result", "safety", "policy", "example", "code",
	"list", "step", "reason", "detail", "note", "brief", "long"}

// scaleHuman is the human annotator's id: Feedback Forensics hard-codes it
// (the md5 prefix of its default annotator's description) as the reference.
const scaleHuman = "ba751e7b"

// scaleModels is the number of response models; a pool this small gives
// model annotators and the intransitivity analysis something to find.
const scaleModels = 12

var scaleTopics = []string{"code", "chat", "math", "advice"}

// ScaleAnnotatedPairs writes a large, deterministic AnnotatedPairs 2.0 file
// for the import and page benchmarks: N comparisons of two responses from a
// pool of 12 models of different skill, one human annotator whose vote
// follows the skills (10% ties), and K principle annotators. Each principle
// has a relevance (the chance it votes a or b; otherwise it votes tie or
// leaves the comparison out) and a correlation with the human vote, so
// strengths spread over [-1, 1].
//
// The file has the shape, size and proportions of the generator the
// benchmarks were first measured with (a Python script, gen_ap.py: 53,000 ×
// 40 is 143 MiB from both): the same distributions and the same JSON
// layout, drawn from Go's PCG instead of Python's Mersenne Twister, so the
// bytes differ but the numbers do not move.
func ScaleAnnotatedPairs(w io.Writer, o ScaleOptions) error {
	if o.Comparisons < 1 || o.Traits < 0 {
		return fmt.Errorf("scale file: want at least one comparison and no negative trait count, got %d × %d", o.Comparisons, o.Traits)
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x5ca1e))
	principles := make([]string, o.Traits)
	corr := make([]float64, o.Traits)
	rel := make([]float64, o.Traits)
	for i := range principles {
		principles[i] = fmt.Sprintf("p%07d", i)
	}
	for i := range corr {
		corr[i] = -0.6 + 1.5*rng.Float64()
	}
	for i := range rel {
		rel[i] = 0.2 + 0.8*rng.Float64()
	}
	skill := make([]float64, scaleModels)
	for i := range skill {
		skill[i] = rng.NormFloat64()
	}

	bw := bufio.NewWriterSize(w, 1<<16)
	// The layout is Python's json.dump: ", " and ": " separators.
	fmt.Fprintf(bw, `{"metadata": {"version": "2.0", "description": "synthetic file for scale tests", `+
		`"created_at": "2026-01-01T00:00:00Z", "dataset_name": "scale-%d", "default_annotator": %q, `+
		`"available_metadata_keys_per_comparison": ["index", "topic"]}, "annotators": {`, o.Comparisons, scaleHuman)
	fmt.Fprintf(bw, `%q: {"name": "preferred_text", "description": "Human preference from the source data", "type": "human"}`, scaleHuman)
	for _, p := range principles {
		fmt.Fprintf(bw, `, %q: {"description": "Select the response that has trait %s", "type": "principle"}`, p, p)
	}
	bw.WriteString(`}, "comparisons": [`)

	var buf []byte
	for i := range o.Comparisons {
		ma := rng.IntN(scaleModels)
		mb := rng.IntN(scaleModels - 1)
		if mb >= ma {
			mb++
		}
		pA := 1 / (1 + math.Exp(skill[mb]-skill[ma]))
		r := rng.Float64()
		hv := "tie"
		switch {
		case r < 0.9*pA:
			hv = "a"
		case r < 0.9:
			hv = "b"
		}
		buf = buf[:0]
		if i > 0 {
			buf = append(buf, ", "...)
		}
		if o.NoTexts {
			buf = fmt.Appendf(buf, `{"id": "c%08d", "response_a": {"model": "model-%02d"}, "response_b": {"model": "model-%02d"}, "annotations": {%q: {"pref": %q}`,
				i, ma, mb, scaleHuman, hv)
		} else {
			buf = fmt.Appendf(buf, `{"id": "c%08d", "prompt": "`, i)
			buf = scaleText(buf, rng, 20)
			buf = append(buf, `", "response_a": {"text": "`...)
			buf = scaleText(buf, rng, 120)
			buf = fmt.Appendf(buf, `", "model": "model-%02d"}, "response_b": {"text": "`, ma)
			buf = scaleText(buf, rng, 120)
			buf = fmt.Appendf(buf, `", "model": "model-%02d"}, "annotations": {%q: {"pref": %q}`, mb, scaleHuman, hv)
		}
		for j, p := range principles {
			var v string
			switch {
			case rng.Float64() > rel[j]:
				// Out of its relevance: two thirds tie, one third no vote.
				if rng.IntN(3) == 2 {
					continue
				}
				v = "tie"
			case hv != "tie" && rng.Float64() < (1+corr[j])/2:
				v = hv
			default:
				v = [2]string{"a", "b"}[rng.IntN(2)]
			}
			buf = fmt.Appendf(buf, `, %q: {"pref": %q}`, p, v)
		}
		buf = fmt.Appendf(buf, `}, "metadata": {"index": "%d", "topic": %q, "conversation_id": "conv-%08d"}}`, i, scaleTopics[rng.IntN(len(scaleTopics))], i)
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}

// scaleText appends max(3, ⌊Exp(mean)⌋) random words.
func scaleText(buf []byte, rng *rand.Rand, mean float64) []byte {
	n := max(3, int(rng.ExpFloat64()*mean))
	for i := range n {
		if i > 0 {
			buf = append(buf, ' ')
		}
		buf = append(buf, scaleWords[rng.IntN(len(scaleWords))]...)
	}
	return buf
}

// ScaleFileName is the conventional name of a scale file, so benchmarks and
// the bench table share one cached copy.
func ScaleFileName(o ScaleOptions) string {
	return "ap-" + strconv.Itoa(o.Comparisons) + "-" + strconv.Itoa(o.Traits) + "-" + strconv.FormatUint(o.Seed, 10) + ".json"
}
