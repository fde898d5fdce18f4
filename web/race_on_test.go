//go:build race

package web

// raceEnabled: the tests run under the race detector (CI's second pass).
const raceEnabled = true
