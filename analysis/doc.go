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
// unusable input: mismatched lengths, ragged matrices, n <= 0, a confidence
// level outside (0, 1), non-finite numbers where the formula needs finite
// ones. Functions whose signature has no error return (AnnotatorAgreement,
// AgreementCodes, Cycles and the other graph helpers) panic with a message
// naming the function when given mismatched or non-square input, because
// that is a caller bug.
//
// Confidence levels are two-sided: confidence = 1 - alpha, and an interval
// [Lo, Hi] leaves alpha/2 in each tail.
//
// The expected values in the tests come from the reference vectors in
// the repository's testdata/stats (scipy, statsmodels, scikit-learn, pandas and
// networkx) or, for functions without such vectors, from hand-worked values
// and independent brute-force computations named in each test.
package analysis
