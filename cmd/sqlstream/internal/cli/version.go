package cli

import (
	"fmt"
	goruntime "runtime"

	"github.com/sqlstream/sqlstream/runtime"
)

// versionString names the build for `sqlstream version`: the version the
// server reports in /info (runtime.Version, one source for both), then the
// Go toolchain and platform.
func versionString() string {
	return fmt.Sprintf("sqlstream %s %s %s/%s", runtime.Version(), goruntime.Version(), goruntime.GOOS, goruntime.GOARCH)
}
