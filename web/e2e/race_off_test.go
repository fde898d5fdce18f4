//go:build !race

package e2e

// raceEnabled: the tests run under the race detector (CI's second pass).
const raceEnabled = false
