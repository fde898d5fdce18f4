// Package analysis holds the statistics behind auditscope: confidence
// intervals for rates and means, least squares with leave-one-out R²,
// correlation, annotator agreement for pairwise preference data, cycles and
// Bradley–Terry strengths for pairwise wins, reference win rates split by
// behavior, the four-part evaluation suite with its composite, the crux R²
// regression, and a seeded bootstrap.
//
// Functions take plain slices and return plain structs. They import only the
// standard library and gonum, never a database, HTTP or another auditscope
// package.
//
// # Conventions
//
// A value that is mathematically undefined for the given data (0/0, a kappa
// when only one label is in use, the rate of an empty split, an interval from
// a single observation) is reported as NaN with a nil error. Errors are for
// unusable data: no values, n <= 0, a confidence level outside (0, 1),
// non-finite numbers where the formula needs finite ones. Slices of
// different lengths where the caller aligned them, ragged or non-square
// matrices are a caller bug, and every function panics on them with a
// message naming the function, as gonum's floats and stat do.
//
// A few exported functions are API the dashboard does not call: Pearson
// (CorrelationMatrix's pairwise entries are the same statistic), CohenKappa,
// BradleyTerry (the dashboard uses BradleyTerryCI), BehaviorSplits (the split
// rule RWRSplits applies) and ParseVote (the vote coding the importers
// share). Each is the smallest piece its reference values check, and a
// script built on this package may want it.
//
// Confidence levels are two-sided: confidence = 1 - alpha, and an interval
// [Lo, Hi] leaves alpha/2 in each tail.
//
// The expected values in the tests come from the reference vectors in
// the repository's testdata/stats (scipy, statsmodels, scikit-learn, pandas and
// networkx) or, for functions without such vectors, from hand-worked values
// and independent brute-force computations named in each test.
package analysis
