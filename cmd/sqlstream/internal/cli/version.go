package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// versionString names the build: module version, VCS revision when the
// binary was built with VCS stamping, and the Go toolchain.
func versionString() string {
	version, revision := "(devel)", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		revision = buildSetting(bi, "vcs.revision")
	}
	if len(revision) > 12 {
		revision = revision[:12]
	}
	if revision != "" {
		revision = " " + revision
	}
	return fmt.Sprintf("sqlstream %s%s %s %s/%s", version, revision, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func buildSetting(bi *debug.BuildInfo, key string) string {
	for _, s := range bi.Settings {
		if s.Key == key {
			return s.Value
		}
	}
	return ""
}
