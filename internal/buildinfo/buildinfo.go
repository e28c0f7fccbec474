// Package buildinfo says which DebtQL is running: its version and the commit
// it was built from, for `debtql version` and GET /healthz.
package buildinfo

import (
	"runtime"
	"runtime/debug"
	"sync"
)

// Version and Commit may be set when building, for builds that have neither
// a module version nor VCS stamping (a release built from a tarball, or
// with -buildvcs=false):
//
//	go build -ldflags "-X github.com/debtql/debtql/internal/buildinfo.Version=v1.4.0 -X github.com/debtql/debtql/internal/buildinfo.Commit=$(git rev-parse HEAD)" ./cmd/debtql
//
// What is set here wins over what the Go toolchain recorded.
var (
	Version string
	Commit  string
)

// Unknown is written for what the build did not record.
const Unknown = "unknown"

// Info describes the running binary.
type Info struct {
	// Version is the module version (v1.4.0 when installed with
	// `go install ...@v1.4.0`), "(devel)" for a build from a checkout, or
	// Unknown.
	Version string `json:"version"`
	// Commit is the VCS revision, or Unknown when the build did not stamp
	// one (-buildvcs=false, or no .git directory).
	Commit string `json:"commit"`
	// CommitTime is the commit's time (RFC 3339), "" when unknown.
	CommitTime string `json:"commitTime,omitempty"`
	// Modified says the working tree had uncommitted changes.
	Modified bool `json:"modified,omitempty"`
	// Go is the toolchain that built the binary.
	Go string `json:"go"`
}

var (
	once sync.Once
	info Info
)

// Get returns the running binary's Info; it never fails, it says Unknown.
func Get() Info {
	once.Do(func() { info = read(debug.ReadBuildInfo) })
	return info
}

// read builds the Info from what readBuildInfo reports and the ldflags
// variables (a function, so that tests can feed it).
func read(readBuildInfo func() (*debug.BuildInfo, bool)) Info {
	in := Info{Version: Unknown, Commit: Unknown, Go: runtime.Version()}
	if bi, ok := readBuildInfo(); ok && bi != nil {
		if bi.Main.Version != "" {
			in.Version = bi.Main.Version
		}
		if bi.GoVersion != "" {
			in.Go = bi.GoVersion
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				in.Commit = s.Value
			case "vcs.time":
				in.CommitTime = s.Value
			case "vcs.modified":
				in.Modified = s.Value == "true"
			}
		}
	}
	if Version != "" {
		in.Version = Version
	}
	if Commit != "" {
		in.Commit = Commit
	}
	return in
}
