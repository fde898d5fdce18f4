package petri

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
)

// What a transcript says of its own validity, before any statistic uses
// its scores: Petri writes a transcript whose target never replied, and
// fills default scores when it cannot parse its judge's output, without
// saying so. The import records these as labels (LabelTargetReplies,
// LabelJudge, LabelConversation) and the experiment's validity gate reads
// them.
const (
	// LabelTargetReplies is the number of the target's replies.
	LabelTargetReplies = "target_replies"
	// LabelJudge is the judge's verdict: JudgeParsed, JudgeUnparsed or
	// JudgeMissing.
	LabelJudge = "judge_output"
	// LabelConversation is a digest of the target's conversation: two
	// audits with the same one are the same transcript under two ids.
	LabelConversation = "conversation"
)

// The states of a judge's verdict.
const (
	JudgeParsed = "parsed"
	// JudgeUnparsed is a verdict with scores but neither summary nor
	// justification: what Petri writes when its judge's output could not
	// be parsed and the scores are its defaults.
	JudgeUnparsed = "unparsed"
	JudgeMissing  = "missing"
)

// targetView is the view the target saw (the first view when none is
// named the target's).
func targetView(views []View) (View, bool) {
	if len(views) == 0 {
		return View{}, false
	}
	v := views[0]
	for _, x := range views {
		if x.Name == ViewTarget {
			v = x
		}
	}
	return v, true
}

// eachMessage calls fn once for each message of v over all its branches:
// a message a later branch shares, or one with an id seen before, once.
func eachMessage(v View, fn func(Message)) {
	seen := map[string]bool{}
	for _, b := range v.Branches {
		for _, m := range b.Messages[min(b.Shared, len(b.Messages)):] {
			if m.ID != "" {
				if seen[m.ID] {
					continue
				}
				seen[m.ID] = true
			}
			fn(m)
		}
	}
}

// TargetReplies counts the target's replies: the assistant messages of its
// view over all branches.
func TargetReplies(views []View) int {
	v, ok := targetView(views)
	if !ok {
		return 0
	}
	n := 0
	eachMessage(v, func(m Message) {
		if m.Role == "assistant" {
			n++
		}
	})
	return n
}

// Conversation is a digest of the target's view: each message's role, text
// and tool calls, in order. Ids, timestamps and metadata are left out, so
// a transcript copied under another id has the same digest.
func Conversation(views []View) string {
	v, _ := targetView(views)
	h := sha256.New()
	eachMessage(v, func(m Message) {
		h.Write([]byte(m.Role))
		h.Write([]byte{0})
		h.Write([]byte(m.Content.String()))
		h.Write([]byte{0})
		for _, c := range m.ToolCalls {
			args, _ := json.Marshal(c.Arguments) // sorted keys
			h.Write([]byte(c.Function))
			h.Write(args)
		}
		h.Write([]byte{1})
	})
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// JudgeState tells a verdict parsed, unparsed (Petri's defaults) or
// missing.
func JudgeState(jo *JudgeOutput) string {
	switch {
	case jo == nil || len(jo.Scores) == 0:
		return JudgeMissing
	case strings.TrimSpace(jo.Summary) == "" && strings.TrimSpace(jo.Justification) == "":
		return JudgeUnparsed
	}
	return JudgeParsed
}

// ValidityLabels are the labels the gate reads, for a transcript whose
// views are given.
func ValidityLabels(views []View, jo *JudgeOutput) map[string]string {
	return map[string]string{
		LabelTargetReplies: strconv.Itoa(TargetReplies(views)),
		LabelJudge:         JudgeState(jo),
		LabelConversation:  Conversation(views),
	}
}
