package data

import "github.com/auditscope/auditscope/data/model"

// The experiment reads are data/internal/expquery's (Experiment, Runs,
// Auditors, EvalAudits, SideJudgments): the store embeds them.

// Experiment is model.Experiment.
type Experiment = model.Experiment

// Run is model.Run.
type Run = model.Run

// Auditor is model.Auditor.
type Auditor = model.Auditor

// EvalAudit is model.EvalAudit.
type EvalAudit = model.EvalAudit

// SideJudgment is model.SideJudgment.
type SideJudgment = model.SideJudgment
