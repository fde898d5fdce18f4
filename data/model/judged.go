package model

// JudgedAudit is one audit as the judge-scored overview reads it: who
// audited whom on which seed, what the import recorded of its validity,
// and its judge scores in the order of JudgedSet.Dimensions (NaN where it
// has none).
type JudgedAudit struct {
	Key, ID, Auditor, Target string
	// AuditorID is the auditor's id (Auditor is its name).
	AuditorID string
	// Seed is what was sampled: the seed instruction (a Petri transcript's
	// description, an Inspect sample's id). Audits of one seed are not
	// independent, whatever run or epoch they come from.
	Seed string
	// Source is the file the audit came from (an Inspect log is one run);
	// Epoch is an Inspect sample's epoch (0 when none).
	Source string
	Epoch  int
	// Summary tells whether the audit has a judge summary.
	Summary bool
	// TargetReplies is -1 when the import did not record it (a bundle
	// without the label).
	TargetReplies int
	// Judge is the verdict's state as the import recorded it (parsed,
	// unparsed, missing; "" when not recorded).
	Judge        string
	Conversation string
	Scores       []float64
}

// JudgedSet is an experiment's audits with their judge dimensions, in the
// experiment's order.
type JudgedSet struct {
	Dimensions []string
	Audits     []JudgedAudit
}
