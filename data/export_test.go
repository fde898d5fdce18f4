package data

// For the external tests, which can use the demo generators (data/demo
// imports data).
var (
	APFastAgrees    = apFastAgrees
	APComparisonsOf = apComparisonsOf
)

// NewAPFast is a fast decoder, as a worker has.
func NewAPFast() *apFast { return new(apFast) }
