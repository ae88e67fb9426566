package cli

import (
	"fmt"
	goruntime "runtime"

	"github.com/sqlstream/sqlstream/internal/version"
)

// versionString names the build for `sqlstream version`: the version the
// server reports in /info (internal/version, one source for both), then the
// Go toolchain and platform.
func versionString() string {
	return fmt.Sprintf("sqlstream %s %s %s/%s", version.String(), goruntime.Version(), goruntime.GOOS, goruntime.GOARCH)
}
