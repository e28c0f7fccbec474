package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/debtql/debtql/internal/buildinfo"
)

const versionUsage = `Usage: debtql version

Prints the version of this binary, the commit it was built from and the Go
version that built it. GET /healthz with Accept: application/json answers
the same on a running server. A build without VCS information
(-buildvcs=false, or outside a git checkout) says "unknown"; a release
build may set both with -ldflags (see docs/operations.md#version).
`

// versionCommand prints what buildinfo knows about the binary.
func versionCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("debtql version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), versionUsage) }
	if err := parseFlags(fs, args, stdout, stderr); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return errUsage
	}
	writeVersion(stdout, buildinfo.Get())
	return nil
}

func writeVersion(w io.Writer, in buildinfo.Info) {
	commit := in.Commit
	if in.Modified {
		commit += " (with uncommitted changes)"
	}
	if in.CommitTime != "" {
		commit += ", " + in.CommitTime
	}
	fmt.Fprintf(w, "debtql %s\ncommit: %s\ngo: %s\n", in.Version, commit, in.Go)
}
