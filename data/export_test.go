package data

// For the external tests, which can use the demo generators (data/demo
// imports data).
var (
	APFastAgrees    = apFastAgrees
	APComparisonsOf = apComparisonsOf
)
