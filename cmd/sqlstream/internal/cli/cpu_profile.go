package cli

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// cpuProfile is a CPU profile being written to a file (--cpu-profile, a
// diagnostic flag): from the server's ready line to the signal that
// stops it, so it holds what the server spent serving and neither its
// start nor its shutdown.
type cpuProfile struct {
	f *os.File
}

// startCPUProfile starts profiling into path; "" profiles nothing. The
// file is created (truncated) now, so a path the process cannot write
// stops the server before it serves.
func startCPUProfile(path string) (*cpuProfile, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, configErrorf("--cpu-profile: %v", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpu-profile %s: %v (another CPU profile runs in this process)", path, err)
	}
	return &cpuProfile{f: f}, nil
}

// stop writes the profile out and closes its file; nil does nothing.
func (p *cpuProfile) stop() error {
	if p == nil {
		return nil
	}
	pprof.StopCPUProfile()
	if err := p.f.Close(); err != nil {
		return fmt.Errorf("--cpu-profile %s: %v (the profile is incomplete)", p.f.Name(), err)
	}
	return nil
}
