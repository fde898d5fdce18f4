// Package static holds the stylesheet and the little JavaScript the pages
// use, embedded in the binary so nothing is loaded from elsewhere.
package static

import "embed"

// FS holds the files served under /static/.
//
//go:embed *.css *.js
var FS embed.FS
