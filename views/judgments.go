package views

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views/links"
)

// JudgmentListView lists judgments from one side.
type JudgmentListView struct {
	Exp                                model.Experiment
	Query                              url.Values
	Rows                               []model.SideJudgment
	Total, Page, Per                   int
	Kind, Auditor, Vs, Split, Behavior string
	Names                              map[string]string // auditor id -> display name
}

// Name is an auditor's display name (its id when it has none), or, for an
// external item (ext:label), the label with the prefix dropped.
func (v JudgmentListView) Name(id string) string {
	if n := v.Names[id]; n != "" {
		return n
	}
	if label, ok := strings.CutPrefix(id, "ext:"); ok {
		return label + " (external)"
	}
	return id
}

// PageLink links to another page.
func (v JudgmentListView) PageLink(page int) templ.SafeURL {
	return links.Experiment(v.Exp.ID, links.Judgments, with(v.Query, "page", strconv.Itoa(page)))
}

// Pages is the number of pages.
func (v JudgmentListView) Pages() int {
	if v.Total == 0 {
		return 1
	}
	return (v.Total + v.Per - 1) / v.Per
}

// JudgmentURL is a judgment's page.
func JudgmentURL(exp, id string) templ.SafeURL { return links.Judgment(exp + ":" + id) }

// SideURL links a judgment side: an audit page, or nothing for external items.
func SideURL(exp, ref string) templ.SafeURL { return links.Audit(exp+":"+ref, nil) }

// JudgmentView is one judgment's page.
type JudgmentView struct {
	Exp         model.Experiment
	J           model.Judgment
	Left, Right SideView
}

// SideView is one side of a judgment.
type SideView struct {
	Side     model.JudgmentSide
	View     string
	Messages []MessageView
	Audit    AuditView
	Error    string
}

// Verdict says which side won.
func (v JudgmentView) Verdict() string {
	switch v.J.Outcome {
	case "left":
		return "The judge preferred A, the left side (" + v.J.Left.Ref + ")."
	case "right":
		return "The judge preferred B, the right side (" + v.J.Right.Ref + ")."
	}
	return "The judge called it a tie."
}
