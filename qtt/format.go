package qtt

import (
	"os"
	"regexp"
	"sync"
)

// Format is a test-file format that Main runs beside QTT files, in the
// same run, table and totals: the REST query-validation (RQTT) format of
// qtt/rest. The first format to detect a file parses it; any other file
// is a QTT file.
type Format interface {
	// Detect reports whether src, a JSON test file with comments, is in
	// this format.
	Detect(src []byte) bool
	// Parse expands the tests of the file (shown as name) into jobs.
	Parse(name string, src []byte) ([]Job, error)
}

// Job is one variant to run and how: Run, given a fresh driver, runs it
// (nil: as a QTT test). Skipping, the timeout and panics are handled
// around Run as for QTT variants.
type Job struct {
	Variant *Variant
	Run     func(d Driver) Result
}

// loadJobs parses every file given, in the first of formats that detects
// it or else as a QTT file. A file that does not parse becomes a failing
// "(file)" variant, as in loadVariants.
func loadJobs(paths []string, formats []Format) ([]Job, error) {
	files, err := collectFiles(paths)
	if err != nil {
		return nil, err
	}
	var jobs []Job
	for _, f := range files {
		jobs = append(jobs, loadFileJobs(f, formats)...)
	}
	return jobs, nil
}

func loadFileJobs(f qttFile, formats []Format) []Job {
	src, err := os.ReadFile(f.path)
	if err != nil {
		return []Job{loadFailure(f, err)}
	}
	for _, format := range formats {
		if format.Detect(src) {
			jobs, err := format.Parse(f.name, src)
			if err != nil {
				return []Job{loadFailure(f, err)}
			}
			return jobs
		}
	}
	parsed, err := ParseFile(f.name, src)
	if err != nil {
		return []Job{loadFailure(f, err)}
	}
	var jobs []Job
	for _, v := range Expand(parsed) {
		jobs = append(jobs, Job{Variant: v})
	}
	return jobs
}

// loadFailure is the failing "(file)" variant of a file that does not
// load.
func loadFailure(f qttFile, err error) Job {
	return Job{Variant: &Variant{File: f.name, Name: "(file)", LoadErr: err}}
}

func filterJobs(js []Job, re *regexp.Regexp) []Job {
	if re == nil {
		return js
	}
	var out []Job
	for _, j := range js {
		if re.MatchString(j.Variant.ID()) {
			out = append(out, j)
		}
	}
	return out
}

// runJobs runs the jobs on up to parallel workers, results in the jobs'
// order (as runAll).
func runJobs(js []Job, cfg runConfig, parallel int) []Result {
	results := make([]Result, len(js))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < max(1, min(parallel, len(js))); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = runJob(js[i], cfg)
			}
		}()
	}
	for i := range js {
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}
