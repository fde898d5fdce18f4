// Command auditscope serves the auditscope dashboard and imports data into
// its DuckDB database. See README.md, or run auditscope --help.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/auditscope/auditscope/data/demodb"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if err != errHelpShown {
			fmt.Fprintln(os.Stderr, "auditscope:", err)
		}
		os.Exit(exitCode(err))
	}
}

// loadDemo builds the built-in demo into the store; a test replaces it to
// hold the build until it has read the program's first line.
var loadDemo = demodb.Load

// reopenDemo readies a store opened from the demo kept by an earlier start.
var reopenDemo = demodb.Reopened
