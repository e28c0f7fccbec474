package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestRead(t *testing.T) {
	stamped := func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.4.0"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-11-25T10:00:00Z"}, {Key: "vcs.modified", Value: "true"},
		}}, true
	}
	if got := read(stamped); got != (Info{Version: "v1.4.0", Commit: "abc123", CommitTime: "2026-11-25T10:00:00Z", Modified: true, Go: "go1.26.0"}) {
		t.Errorf("stamped build: %+v", got)
	}
	// -buildvcs=false: no vcs settings; a checkout's version is (devel).
	unstamped := func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}}, true
	}
	if got := read(unstamped); got.Version != "(devel)" || got.Commit != Unknown || got.CommitTime != "" {
		t.Errorf("unstamped build: %+v", got)
	}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	if got := read(none); got.Version != Unknown || got.Commit != Unknown || got.Go == "" {
		t.Errorf("no build info: %+v", got)
	}
	// -ldflags -X wins.
	Version, Commit = "v2.0.0", "def456"
	defer func() { Version, Commit = "", "" }()
	if got := read(unstamped); got.Version != "v2.0.0" || got.Commit != "def456" {
		t.Errorf("ldflags: %+v", got)
	}
}
