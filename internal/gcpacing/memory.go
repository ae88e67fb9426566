package gcpacing

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// Memory is the memory the process may use, and what said so:
// "MemTotal", "cgroup v2 memory.max" or "cgroup v1 memory.limit_in_bytes".
type Memory struct {
	Bytes int64
	From  string
}

// MachineMemory reads the process's memory from root, a file system
// rooted at "/" (os.DirFS("/") in the server; testdata trees in tests):
// the smaller of /proc/meminfo's MemTotal and the cgroup limit of
// /proc/self/cgroup's cgroup and its ancestors.
func MachineMemory(root fs.FS) (Memory, error) {
	total, err := memTotal(root)
	if err != nil {
		return Memory{}, err
	}
	m := Memory{Bytes: total, From: "MemTotal"}
	if cg, ok, err := cgroupLimit(root); err != nil {
		return Memory{}, err
	} else if ok && cg.Bytes < m.Bytes {
		m = cg
	}
	return m, nil
}

// memTotal is /proc/meminfo's MemTotal in bytes.
func memTotal(root fs.FS) (int64, error) {
	raw, err := fs.ReadFile(root, "proc/meminfo")
	if err != nil {
		return 0, fmt.Errorf("reading /proc/meminfo: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		num, unit, _ := strings.Cut(strings.TrimSpace(rest), " ")
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || n <= 0 || (unit != "kB" && unit != "") {
			return 0, fmt.Errorf("/proc/meminfo: MemTotal %q is not a number of kB", strings.TrimSpace(rest))
		}
		if unit == "kB" {
			n *= 1024
		}
		return n, nil
	}
	return 0, errors.New("/proc/meminfo has no MemTotal line")
}

// cgroupLimit is the smallest memory limit of the process's cgroup and
// its ancestors: v1's memory controller when /proc/self/cgroup names one
// (on a hybrid system v2 holds no memory controller), else v2's. ok is
// false when there is no cgroup file or no limit is set anywhere.
func cgroupLimit(root fs.FS) (m Memory, ok bool, err error) {
	raw, err := fs.ReadFile(root, "proc/self/cgroup")
	if errors.Is(err, fs.ErrNotExist) {
		return Memory{}, false, nil
	}
	if err != nil {
		return Memory{}, false, fmt.Errorf("reading /proc/self/cgroup: %w", err)
	}
	var v1, v2 string
	var hasV1, hasV2 bool
	for line := range strings.Lines(string(raw)) {
		// hierarchy-ID:controller-list:cgroup-path
		parts := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			v2, hasV2 = parts[2], true
		case containsController(parts[1], "memory"):
			v1, hasV1 = parts[2], true
		}
	}
	switch {
	case hasV1:
		return smallestLimit(root, "sys/fs/cgroup/memory", v1, "memory.limit_in_bytes", "cgroup v1 memory.limit_in_bytes")
	case hasV2:
		return smallestLimit(root, "sys/fs/cgroup", v2, "memory.max", "cgroup v2 memory.max")
	}
	return Memory{}, false, nil
}

func containsController(list, name string) bool {
	for c := range strings.SplitSeq(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// smallestLimit reads file in the cgroup's directory under mount and in
// each parent up to mount itself, and returns the smallest limit found.
// A directory that is not there (the path is the host's, the container
// sees its own cgroup at the mount) or a file without a limit ("max", or
// v1's page-rounded 2^63-1) sets none.
func smallestLimit(root fs.FS, mount, cgroup, file, from string) (Memory, bool, error) {
	best := Memory{Bytes: NoLimit, From: from}
	dir := path.Join(mount, strings.TrimPrefix(path.Clean("/"+cgroup), "/"))
	for {
		raw, err := fs.ReadFile(root, path.Join(dir, file))
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return Memory{}, false, fmt.Errorf("reading /%s/%s: %w", dir, file, err)
		default:
			v := strings.TrimSpace(string(raw))
			if v != "max" {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil || n <= 0 {
					return Memory{}, false, fmt.Errorf("/%s/%s: %q is not a number of bytes or max", dir, file, v)
				}
				best.Bytes = min(best.Bytes, n)
			}
		}
		if dir == mount {
			break
		}
		dir = path.Dir(dir)
	}
	// v1 writes "no limit" as 2^63-1 rounded down to a page.
	return best, best.Bytes < 1<<62, nil
}
