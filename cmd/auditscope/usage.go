package main

import (
	"errors"
	"strings"
)

const topUsage = `auditscope: browse alignment-audit experiments and AnnotatedPairs data.

Usage:
  auditscope                      serve the built-in demo on http://localhost:8080
  auditscope serve [flags] [PATH...]
                                  serve a database, importing PATHs first
  auditscope import --db FILE [--name NAME] [--replace] PATH...
                                  import files or folders into a database and exit
  auditscope demo --out DIR       write the demo experiment as a bundle folder
  auditscope demo --pairs N --traits K [--seed S] --out FILE
                                  write a large AnnotatedPairs file for benchmarks
  auditscope export --db FILE URLPATH --out FILE
                                  write what a dashboard URL serves (figure or CSV)
  auditscope lake write --lake DIR [--force] (--db FILE | PATH...)
                                  write the data as a Parquet lake other engines read
  auditscope judges --db FILE --exp NAME [--judge NAME] PATH
                                  attach another judge's verdicts (a re-judged Petri
                                  folder, or people's labels) to an experiment's audits
  auditscope version              the version, its revision, and the Go and DuckDB it uses

Run 'auditscope COMMAND --help' for a command's flags.
`

// commandUsage is each command's one-line usage, as topUsage gives it.
var commandUsage = map[string]string{
	"serve":  "auditscope serve [flags] [PATH...]",
	"import": "auditscope import --db FILE [--name NAME] [--replace] PATH...",
	"demo":   "auditscope demo --out DIR  |  auditscope demo --pairs N --traits K [--seed S] --out FILE",
	"export": "auditscope export --db FILE URLPATH --out FILE",
	"lake":   "auditscope lake write --lake DIR [--force] (--db FILE | PATH...)",
	"judges": "auditscope judges --db FILE --exp NAME [--judge NAME] PATH",
}

// withUsage gives a command's usage error its one-line usage and where
// the flags are told, once: "import needs --db FILE" said neither. An
// error that has them (a flag the parser refused) is left as it is.
func withUsage(cmd string, err error) error {
	var ue usageError
	if !errors.As(err, &ue) || strings.Contains(ue.msg, "--help' for") {
		return err
	}
	name := cmd
	if cmd == "lake" {
		name = "lake write"
	}
	return usageError{ue.msg + "\nUsage: " + commandUsage[cmd] + "\nRun 'auditscope " + name + " --help' for its flags."}
}

// isHelp tells an argument that asks for help.
func isHelp(a string) bool { return a == "-h" || a == "-help" || a == "--help" }
