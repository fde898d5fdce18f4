package demo

import (
	"bufio"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The synthetic AnnotatedPairs v2.0 dataset: ~3,000 comparisons of two
// model responses, voted on by a human annotator (with a length bias, ties
// and invalid votes) and 20 personality-trait principle annotators whose
// votes follow features of the responses.

const apComparisons = 3000

// Response features the trait annotators look at.
const (
	fSyco = iota
	fPolite
	fCasual
	fFormal
	fEmpathy
	fFormat
	fEmoji
	fHedge
	fConfident
	fRefusal
	fQuestion
	fCode
	fHumor
	fCaveat
	fCites
	fNumbers
	fJargon
	fCreative
	nFeatures
)

// decorations: prefix or suffix text per feature.
var (
	prefixes = map[int][]string{
		fSyco:      {"Great question! ", "You're absolutely right to ask. "},
		fPolite:    {"Thanks for asking. ", "Happy to help. "},
		fCasual:    {"Hey! ", "Oh nice, "},
		fFormal:    {"Certainly. ", "Please find my answer below. "},
		fEmpathy:   {"That sounds stressful. ", "I understand how frustrating that is. "},
		fConfident: {"Definitely: ", "Without a doubt, "},
		fHedge:     {"I think ", "It may be that "},
	}
	suffixes = map[int][]string{
		fEmoji:    {" 🙂", " 🚀", " ✨", " 👍"},
		fQuestion: {" Want me to go into more detail?", " Does that help?"},
		fCode:     {" For example: `counts = Counter(words)`.", " Try `sorted(xs, key=len)`."},
		fHumor:    {" (No pun intended.)", " Easier said than done, I know 😅."},
		fCaveat:   {" Please double-check this before relying on it.", " Consult a professional if in doubt."},
		fCites:    {" (See the official documentation.)", " Source: the 2023 OECD report."},
		fNumbers:  {" In my tests this was about 23% faster.", " Roughly 3 in 5 people report the same."},
		fJargon:   {" This is O(n) amortised.", " Think of it as an idempotent transformation."},
		fCreative: {" Think of it like tending a small garden.", " Picture it as a café queue on a Monday morning ☕."},
	}
)

var apTopics = []string{"coding", "writing", "advice", "math"}

// apText[lang][topic] = prompts, sentences.
type topicText struct{ prompts, sentences []string }

var apText = map[string][]topicText{
	"en": {
		{[]string{"How do I count word frequencies in a Python file?", "Why is my sort changing the original list?", "Any tips for writing faster Python loops?"},
			[]string{"Use a dictionary to count occurrences in one pass.", "The built-in sorted() returns a new list, so the original stays unchanged.",
				"For large files, read line by line instead of loading everything into memory.", "Add a unit test for the empty-input case before refactoring.",
				"List comprehensions are usually faster than a loop with append.", "Type hints make the function easier to review."}},
		{[]string{"Can you help me improve the intro of my blog post about our café?", "How do I make my cover letter less wordy?", "Tips for a naïve first-time newsletter writer?"},
			[]string{"Open with the concrete problem before the background.", "Cut adjectives that don't change the meaning.", "Each paragraph should make one point.",
				"Read the draft aloud to catch awkward rhythm.", "End with a clear call to action.", "Match the tone to your audience — a café newsletter can be playful."}},
		{[]string{"I'm overwhelmed at work. Where do I start?", "How do I plan a budget trip to Kyoto (京都)?", "How do I say no to friends without feeling guilty?"},
			[]string{"Start by listing what you can control this week.", "A short daily walk helps more than an occasional long one.",
				"Talk to your manager early rather than waiting for the review.", "Set a budget and track it in a simple spreadsheet.",
				"It's fine to say no to some invitations.", "Sleep on big decisions when you can."}},
		{[]string{"What's the derivative of x squared?", "Solve 3x = 12.", "What are the odds of flipping two heads in a row?"},
			[]string{"The derivative of x² is 2x.", "Divide both sides by 3 to isolate x, giving x = 4.", "The probability of two heads in a row is 1/4.",
				"A triangle's interior angles always sum to 180°.", "Compound interest grows by a factor of (1 + r)ⁿ.", "The mean is 7.5 and the median is 7."}},
	},
	"de": {
		{[]string{"Wie zähle ich Wörter in einer Datei mit Python?"},
			[]string{"Verwende ein Dictionary, um Vorkommen in einem Durchlauf zu zählen.", "Für große Dateien solltest du zeilenweise lesen.", "Schreib zuerst einen Test für den leeren Fall."}},
		{[]string{"Wie verbessere ich die Einleitung meines Aufsatzes?"},
			[]string{"Beginne mit dem konkreten Problem.", "Streiche überflüssige Adjektive.", "Jeder Absatz sollte genau eine Aussage haben."}},
		{[]string{"Ich bin im Job überfordert – was nun?"},
			[]string{"Überlege zuerst, was du diese Woche beeinflussen kannst.", "Ein kurzer täglicher Spaziergang hilft.", "Sprich früh mit deiner Führungskraft."}},
		{[]string{"Was ist die Ableitung von x²?"},
			[]string{"Die Ableitung von x² ist 2x.", "Die Wahrscheinlichkeit für zweimal Kopf ist 1/4.", "Die Winkelsumme im Dreieck beträgt 180°."}},
	},
	"fr": {
		{[]string{"Comment compter les mots d'un fichier en Python ?"},
			[]string{"Utilise un dictionnaire pour compter les occurrences en une seule passe.", "Pour les gros fichiers, lis ligne par ligne.", "Écris d'abord un test pour le cas vide."}},
		{[]string{"Comment améliorer l'introduction de ma lettre ?"},
			[]string{"Commence par le problème concret.", "Supprime les adjectifs inutiles.", "Chaque paragraphe doit défendre une idée."}},
		{[]string{"Je suis débordé au travail, par où commencer ?"},
			[]string{"Commence par ce que tu peux contrôler cette semaine.", "Une courte marche quotidienne aide beaucoup.", "Parle tôt à ton responsable."}},
		{[]string{"Quelle est la dérivée de x² ?"},
			[]string{"La dérivée de x² est 2x.", "La probabilité d'obtenir deux fois pile est 1/4.", "La somme des angles d'un triangle vaut 180°."}},
	},
}

// apModel is a response model's style.
type apModel struct {
	name      string
	sentences float64 // mean number of content sentences
	strength  float64 // human preference beyond length
	p         [nFeatures]float64
}

func newModel(name string, sentences, strength float64, feats map[int]float64) apModel {
	m := apModel{name: name, sentences: sentences, strength: strength}
	for i := range m.p {
		m.p[i] = 0.08
	}
	m.p[fRefusal] = 0.02
	for k, v := range feats {
		m.p[k] = v
	}
	return m
}

var apModels = []apModel{
	newModel("atlas-7b", 1.4, -0.3, map[int]float64{fCasual: 0.4, fEmoji: 0.3}),
	newModel("borealis-70b", 2.8, 0.2, map[int]float64{fFormat: 0.5, fFormal: 0.3, fCites: 0.25}),
	newModel("cirrus-large", 3.2, 0.1, map[int]float64{fSyco: 0.45, fPolite: 0.5, fEmpathy: 0.3}),
	newModel("delta-mini", 1.6, 0.0, map[int]float64{fConfident: 0.4, fNumbers: 0.3}),
	newModel("ember-2", 2.2, 0.0, map[int]float64{fHumor: 0.35, fCreative: 0.35, fEmoji: 0.25}),
	newModel("fjord-8x7b", 2.5, 0.05, map[int]float64{fJargon: 0.4, fCode: 0.35}),
	newModel("gale-pro", 3.0, 0.35, map[int]float64{fFormat: 0.4, fQuestion: 0.4, fCaveat: 0.3}),
	newModel("helix-1.5", 2.0, -0.1, map[int]float64{fHedge: 0.5, fCaveat: 0.4, fRefusal: 0.1}),
	newModel("ion-small", 1.2, -0.4, map[int]float64{fConfident: 0.3}),
	newModel("juniper-3", 2.6, 0.15, map[int]float64{fPolite: 0.35, fQuestion: 0.3, fEmpathy: 0.25}),
}

// apCycle: human majority preferences that form a cycle (each beats the next).
var apCycle = [3]string{"cirrus-large", "delta-mini", "ember-2"}

// principle is a trait annotator.
type principle struct {
	desc    string
	feature int // -1: length (verbose), -2: -length (concise)
}

var principles = []principle{
	{"Select the response that is more confident.", fConfident},
	{"Select the response that uses more formatting.", fFormat},
	{"Select the response that is more verbose.", -1},
	{"Select the response that is more sycophantic and agrees with the user.", fSyco},
	{"Select the response that uses more emojis.", fEmoji},
	{"Select the response that is more concise.", -2},
	{"Select the response that is more polite.", fPolite},
	{"Select the response that refuses to answer.", fRefusal},
	{"Select the response that ends with a question to the user.", fQuestion},
	{"Select the response that includes code.", fCode},
	{"Select the response that uses more humor.", fHumor},
	{"Select the response that is more formal.", fFormal},
	{"Select the response that adds more safety caveats.", fCaveat},
	{"Select the response that cites sources or references.", fCites},
	{"Select the response that is more empathetic.", fEmpathy},
	{"Select the response that uses more specific numbers.", fNumbers},
	{"Select the response that uses more technical jargon.", fJargon},
	{"Select the response that is more creative.", fCreative},
	{"Select the response that hedges more.", fHedge},
	{"Select the response that uses a more casual tone.", fCasual},
}

var apSources = []struct {
	name  string
	share float64
}{{"arena", 0.4}, {"multipref", 0.3}, {"prism", 0.2}, {"internal", 0.1}}

type apResponse struct {
	Text  string `json:"text"`
	Model string `json:"model"`
}

type apVote struct {
	Pref         *string `json:"pref"`
	NoPrefReason string  `json:"no_pref_reason,omitempty"`
}

type apComparison struct {
	ID          string            `json:"id"`
	Prompt      string            `json:"prompt"`
	ResponseA   apResponse        `json:"response_a"`
	ResponseB   apResponse        `json:"response_b"`
	Annotations map[string]apVote `json:"annotations"`
	Metadata    map[string]string `json:"metadata"`
}

type apAnnotator struct {
	Name        string `json:"name,omitempty"`
	Description string `json:"description"`
	Type        string `json:"type"`
}

// hexID is a stable 8-hex-digit id.
func hexID(seed uint64, s string) string {
	h := seed ^ 0xcbf29ce484222325
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 0x100000001b3
	}
	x := strconv.FormatUint(mix(h)&0xffffffff, 16)
	return strings.Repeat("0", 8-len(x)) + x
}

var (
	prefA, prefB, prefTie = "a", "b", "tie"
)

// respond writes a response of model m and returns its text and features.
func respond(r *rand.Rand, m *apModel, tt *topicText, topic string) (string, [nFeatures]bool) {
	var f [nFeatures]bool
	for i := range f {
		f[i] = r.Float64() < m.p[i]
	}
	if topic != "coding" {
		f[fCode] = false
	}
	if f[fHedge] && f[fConfident] {
		f[fHedge] = false
	}
	if f[fCasual] && f[fFormal] {
		f[fFormal] = false
	}
	var sb strings.Builder
	if f[fRefusal] {
		for i := range f {
			f[i] = false
		}
		f[fRefusal] = true
		f[fPolite] = r.IntN(2) == 0
		if f[fPolite] {
			sb.WriteString("Thanks for asking, but ")
		}
		sb.WriteString("I'm sorry, I can't help with that request.")
		return sb.String(), f
	}
	for _, k := range []int{fCasual, fFormal, fSyco, fPolite, fEmpathy} {
		if f[k] {
			l := prefixes[k]
			sb.WriteString(l[r.IntN(len(l))])
		}
	}
	n := 1 + int(math.Max(0, m.sentences-1+0.9*r.NormFloat64())+0.5)
	n = min(n, 4, len(tt.sentences))
	start := r.IntN(len(tt.sentences))
	if f[fFormat] {
		sb.WriteString("**Summary:**\n")
	}
	for i := 0; i < n; i++ {
		s := tt.sentences[(start+i)%len(tt.sentences)]
		switch {
		case f[fFormat]:
			sb.WriteString("- ")
		case i > 0:
			sb.WriteString(" ")
		}
		if i == 0 {
			switch {
			case f[fConfident]:
				sb.WriteString(prefixes[fConfident][r.IntN(2)])
			case f[fHedge]:
				sb.WriteString(prefixes[fHedge][r.IntN(2)])
			}
			if f[fConfident] || f[fHedge] {
				c, size := utf8.DecodeRuneInString(s)
				s = string(unicode.ToLower(c)) + s[size:]
			}
		}
		sb.WriteString(s)
		if f[fFormat] {
			sb.WriteString("\n")
		}
	}
	for _, k := range []int{fCode, fNumbers, fJargon, fCreative, fCites, fCaveat, fHumor, fQuestion, fEmoji} {
		if f[k] {
			l := suffixes[k]
			sb.WriteString(l[r.IntN(len(l))])
		}
	}
	return strings.TrimRight(sb.String(), "\n"), f
}

// AnnotatedPairs writes the synthetic AnnotatedPairs v2.0 dataset as JSON to w.
func AnnotatedPairs(w io.Writer, opts Options) error {
	seed := opts.Seed
	if seed == 0 {
		seed = 1
	}
	r := rand.New(rand.NewPCG(seed, mix(0xa9)))
	bw := bufio.NewWriterSize(w, 64<<10)

	human := hexID(seed, "human")
	ids := make([]string, len(principles))
	for i, p := range principles {
		ids[i] = hexID(seed, p.desc)
	}

	if err := writeAPHeader(bw, human, ids); err != nil {
		return err
	}

	hm := newAPHuman()
	modelIdx := map[string]int{}
	for i, m := range apModels {
		modelIdx[m.name] = i
	}

	seen := map[string]bool{}
	for ci := 0; ci < apComparisons; ci++ {
		// Metadata columns.
		src, topic, lang := apMetadata(r)
		tt := &apText[lang][topic]
		// Models: one comparison in eight is a pair of the cycle.
		var ma, mb int
		if r.IntN(8) == 0 {
			k := r.IntN(3)
			ma, mb = modelIdx[apCycle[k]], modelIdx[apCycle[(k+1)%3]]
			if r.IntN(2) == 0 {
				ma, mb = mb, ma
			}
		} else {
			ma = r.IntN(len(apModels))
			mb = (ma + 1 + r.IntN(len(apModels)-1)) % len(apModels)
		}
		ta, fa := respond(r, &apModels[ma], tt, apTopics[topic])
		tb, fb := respond(r, &apModels[mb], tt, apTopics[topic])
		la, lb := utf8.RuneCountInString(ta), utf8.RuneCountInString(tb)

		ann := make(map[string]apVote, len(principles)+1)
		// Human vote.
		na, nb := apModels[ma].name, apModels[mb].name
		ann[human] = hm.vote(r, na, nb, la, lb, &fa, &fb)
		// Trait votes.
		for i, p := range principles {
			ann[ids[i]] = traitVote(r, p.feature, la, lb, &fa, &fb)
		}
		id := hexID(seed, "comparison-"+strconv.Itoa(ci))
		for seen[id] {
			id = hexID(seed, id)
		}
		seen[id] = true
		c := apComparison{
			ID:          id,
			Prompt:      tt.prompts[r.IntN(len(tt.prompts))],
			ResponseA:   apResponse{Text: ta, Model: na},
			ResponseB:   apResponse{Text: tb, Model: nb},
			Annotations: ann,
			Metadata:    map[string]string{"source": src, "topic": apTopics[topic], "language": lang, "index": strconv.Itoa(ci)},
		}
		b, err := json.Marshal(c)
		if err != nil {
			return err
		}
		if ci > 0 {
			bw.WriteByte(',')
		}
		bw.Write(b)
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}

// writeAPHeader writes the dataset's start, up to the opening of its
// comparisons list: its metadata, then its annotators (human, then the
// principles, whose ids are ids).
func writeAPHeader(bw *bufio.Writer, human string, ids []string) error {
	// Header: metadata and annotators, in a fixed order.
	meta, err := json.Marshal(struct {
		Version       string   `json:"version"`
		Description   string   `json:"description"`
		CreatedAt     string   `json:"created_at"`
		DatasetName   string   `json:"dataset_name"`
		DefaultAnnot  string   `json:"default_annotator"`
		AvailableKeys []string `json:"available_metadata_keys_per_comparison"`
	}{"2.0", "Synthetic demo data generated by auditscope: pairwise model responses with a human annotator " +
		"(length-biased, with ties and invalid votes) and 20 AI personality-trait annotators. Not real annotations.",
		"2026-03-02", "Synthetic personality demo", human, []string{"source", "topic", "language"}})
	if err != nil {
		return err
	}
	bw.WriteString(`{"metadata":`)
	bw.Write(meta)
	bw.WriteString(`,"annotators":{`)
	writeAnn := func(id string, a apAnnotator, first bool) error {
		if !first {
			bw.WriteByte(',')
		}
		k, _ := json.Marshal(id)
		v, err := json.Marshal(a)
		bw.Write(k)
		bw.WriteByte(':')
		bw.Write(v)
		return err
	}
	if err := writeAnn(human, apAnnotator{Name: "Human", Description: "Human annotator from the (synthetic) original dataset", Type: "human"}, true); err != nil {
		return err
	}
	for i, p := range principles {
		if err := writeAnn(ids[i], apAnnotator{Description: p.desc, Type: "principle"}, false); err != nil {
			return err
		}
	}
	bw.WriteString(`},"comparisons":[`)
	return nil
}

// apMetadata draws a comparison's metadata columns: its source (by
// apSources' shares), its topic (an index into apTopics) and its language.
func apMetadata(r *rand.Rand) (src string, topic int, lang string) {
	src = apSources[len(apSources)-1].name
	u := r.Float64()
	for _, s := range apSources {
		if u < s.share {
			src = s.name
			break
		}
		u -= s.share
	}
	topic = r.IntN(len(apTopics))
	lang = "en"
	switch x := r.IntN(100); {
	case x < 12:
		lang = "de"
	case x < 20:
		lang = "fr"
	}
	return src, topic, lang
}

// apHuman is what the human annotator's votes follow beyond the responses:
// each model's strength, and the winner of each pair of apCycle.
type apHuman struct {
	strength    map[string]float64
	cycleWinner map[[2]string]string
}

// newAPHuman gathers the strengths of apModels and the winners of apCycle.
func newAPHuman() apHuman {
	strength := map[string]float64{}
	for _, m := range apModels {
		strength[m.name] = m.strength
	}
	cycleWinner := map[[2]string]string{}
	for i := 0; i < 3; i++ {
		a, b := apCycle[i], apCycle[(i+1)%3]
		cycleWinner[[2]string{a, b}] = a
		cycleWinner[[2]string{b, a}] = a
	}
	return apHuman{strength: strength, cycleWinner: cycleWinner}
}

// vote draws the human's vote on responses of models na and nb, of la
// and lb characters with the features fa and fb: a few invalid votes and
// ties; else a pair of the cycle mostly goes the cycle's way, and any
// other pair by the models' strengths, with a bias for the longer and the
// formatted response and against a refusal.
func (h apHuman) vote(r *rand.Rand, na, nb string, la, lb int, fa, fb *[nFeatures]bool) apVote {
	var hv apVote
	switch x := r.IntN(100); {
	case x < 3:
		hv = apVote{NoPrefReason: "invalid vote"}
	case x < 8:
		hv = apVote{Pref: &prefTie}
	default:
		var pA float64
		if w, ok := h.cycleWinner[[2]string{na, nb}]; ok {
			pA = 0.27
			if w == na {
				pA = 0.73
			}
		} else {
			z := h.strength[na] - h.strength[nb]
			switch {
			case la > lb:
				z += 0.65
			case lb > la:
				z -= 0.65
			}
			if fa[fFormat] != fb[fFormat] {
				if fa[fFormat] {
					z += 0.3
				} else {
					z -= 0.3
				}
			}
			if fa[fRefusal] != fb[fRefusal] {
				if fa[fRefusal] {
					z -= 1.5
				} else {
					z += 1.5
				}
			}
			pA = 1 / (1 + math.Exp(-z))
		}
		if r.Float64() < pA {
			hv = apVote{Pref: &prefA}
		} else {
			hv = apVote{Pref: &prefB}
		}
	}
	return hv
}

// traitVote draws a principle annotator's vote on responses of la and lb
// characters with the features fa and fb: by the feature it looks for
// (feature), or by length (-1 the longer, -2 the shorter), mostly right and
// "not applicable" when the responses do not differ.
func traitVote(r *rand.Rand, feature, la, lb int, fa, fb *[nFeatures]bool) apVote {
	var v apVote
	switch feature {
	case -1, -2:
		d := float64(la-lb) / float64(max(la, lb))
		if feature == -2 {
			d = -d
		}
		switch {
		case math.Abs(d) < 0.12:
			v = apVote{NoPrefReason: "not applicable"}
		case (d > 0) == (r.Float64() < 0.94):
			v = apVote{Pref: &prefA}
		default:
			v = apVote{Pref: &prefB}
		}
	default:
		a, b := fa[feature], fb[feature]
		switch {
		case a == b && r.IntN(25) != 0:
			v = apVote{NoPrefReason: "not applicable"}
		case a == b:
			v = apVote{Pref: []*string{&prefA, &prefB}[r.IntN(2)]}
		case a == (r.Float64() < 0.92):
			v = apVote{Pref: &prefA}
		default:
			v = apVote{Pref: &prefB}
		}
	}
	return v
}
