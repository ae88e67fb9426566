// Package version is sqlstream's release version, the one string the
// server's /info, DESCRIBE FUNCTION and `sqlstream version` report: the
// linker sets it, else the build information gives it.
//
//	-ldflags -X …/internal/version.buildVersion=V ─► V
//	go install module@vX.Y.Z                      ─► X.Y.Z
//	go build / go test in the repository          ─► 0.1.0-devel[+revision]
package version

import (
	"runtime/debug"
	"strings"
)

// buildVersion is the release version, set when the binary is linked:
//
//	go build -ldflags "-X github.com/sqlstream/sqlstream/internal/version.buildVersion=0.1.0"
//
// (the Makefile's VERSION). It is the one variable written outside the
// program's own code — the linker writes it, nothing else does — so the
// server's /info, DESCRIBE FUNCTION and `sqlstream version` all read the
// same string.
var buildVersion string

// develVersion is the fallback of a build without the ldflags and without
// a module version (go build or go test in the repository).
const develVersion = "0.1.0-devel"

// String is the server version reported by /info and `sqlstream version`:
// the linked buildVersion, else the main module's version from the build
// information (set by `go install module@version`), else develVersion
// with the VCS revision when the build stamped one ("0.1.0-devel+a5346b5").
func String() string {
	if buildVersion != "" {
		return buildVersion
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return develVersion
	}
	return versionFromBuildInfo(bi)
}

func versionFromBuildInfo(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" && !strings.HasPrefix(v, "v0.0.0-") {
		return strings.TrimPrefix(v, "v")
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && s.Value != "" {
			return develVersion + "+" + s.Value[:min(7, len(s.Value))]
		}
	}
	return develVersion
}
