package e2e

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// TestMain runs four parallel tests at a time where go test would run one a
// core (unless -parallel is given): two of them spend half a minute
// waiting on slow clients (TestSlowClientDownload, TestStalledClientDropped),
// and with one a core they held a core's share of the parallel tests idle.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(max(4, runtime.GOMAXPROCS(0))))
	}
	os.Exit(m.Run())
}
