package gcpacing

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const memTotal24G = 24683664 * 1024 // testdata's MemTotal

// TestMachineMemory reads each testdata tree as the root of a machine:
// cgroup v2 and v1 limits (the leaf's or an ancestor's, the smallest),
// a container seeing its cgroup at the root, no limit anywhere, a limit
// above MemTotal, and no cgroup file at all.
func TestMachineMemory(t *testing.T) {
	for _, c := range []struct {
		tree  string
		bytes int64
		from  string
	}{
		{"cgroup2", 4 << 30, "cgroup v2 memory.max"},
		{"cgroup2-container", 2 << 30, "cgroup v2 memory.max"},
		{"cgroup2-above", memTotal24G, "MemTotal"},
		{"cgroup1", 1 << 30, "cgroup v1 memory.limit_in_bytes"},
		{"cgroup1-unlimited", memTotal24G, "MemTotal"},
		{"none", memTotal24G, "MemTotal"},
	} {
		t.Run(c.tree, func(t *testing.T) {
			m, err := MachineMemory(os.DirFS(filepath.Join("testdata", c.tree)))
			if err != nil {
				t.Fatal(err)
			}
			if m.Bytes != c.bytes || m.From != c.from {
				t.Errorf("MachineMemory = %d from %q, want %d from %q", m.Bytes, m.From, c.bytes, c.from)
			}
		})
	}
}

// TestMachineMemoryErrors: a file that is there but unreadable as a
// limit, and a machine without /proc/meminfo, are errors naming the file.
func TestMachineMemoryErrors(t *testing.T) {
	for tree, want := range map[string]string{
		"bad-memmax":  `/sys/fs/cgroup/memory.max: "lots" is not a number of bytes or max`,
		"no-meminfo":  "reading /proc/meminfo",
		"nonexistent": "reading /proc/meminfo",
	} {
		_, err := MachineMemory(os.DirFS(filepath.Join("testdata", tree)))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: MachineMemory error %v, want one containing %q", tree, err, want)
		}
	}
}
