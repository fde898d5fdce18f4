package annotatedpairs

// For the external tests, which can use the demo generators (data/demo
// imports data, which imports this package).
var (
	FastAgrees    = fastAgrees
	ComparisonsOf = comparisonsOf
)

// NewFastDecoder is a fast decoder, as a worker has.
func NewFastDecoder() *fastDecoder { return new(fastDecoder) }
