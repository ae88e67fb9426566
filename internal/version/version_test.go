package version

import (
	"runtime/debug"
	"testing"
)

// The fallback version: a released module version as is, else the devel
// version with the VCS revision the build stamped — never Go's "(devel)".
func TestVersionFromBuildInfo(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs.revision", Value: "a5346b5d1e2f"}}
	for _, c := range []struct {
		main     string
		settings []debug.BuildSetting
		want     string
	}{
		{"v0.3.1", rev, "0.3.1"},
		{"(devel)", rev, "0.1.0-devel+a5346b5"},
		{"v0.0.0-20261201215159-a5346b5d1e2f", rev, "0.1.0-devel+a5346b5"},
		{"", nil, "0.1.0-devel"},
	} {
		bi := &debug.BuildInfo{Main: debug.Module{Version: c.main}, Settings: c.settings}
		if got := versionFromBuildInfo(bi); got != c.want {
			t.Errorf("main version %q: got %q, want %q", c.main, got, c.want)
		}
	}
}
