package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/auditscope/auditscope/data"
)

// version prints what this program is: its module version and the
// revision it was built from (Go's build info), and the Go and DuckDB it
// was built with, for a bug report.
func version(ctx context.Context, stdout io.Writer) error {
	mod, rev := "(unknown)", ""
	driver := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		mod = bi.Main.Version
		var at, dirty string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = ", with uncommitted changes"
				}
			}
		}
		if rev != "" {
			rev = " revision " + rev + " (" + at + dirty + ")"
		} else {
			rev = " (no revision: built without VCS stamping, as go run and -buildvcs=false build)"
		}
		for _, d := range bi.Deps {
			if d.Path == "github.com/duckdb/duckdb-go/v2" {
				driver = ", duckdb-go " + d.Version
			}
		}
	}
	engine, err := data.EngineVersion(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "auditscope %s%s\n%s %s/%s\nDuckDB %s%s\n", mod, rev, runtime.Version(), runtime.GOOS, runtime.GOARCH, engine, driver)
	return errHelpShown // exit 0, nothing more printed
}
