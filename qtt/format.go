package qtt

import (
	"os"
	"regexp"
	"sync"
)

// Format is a test-file format that Main runs beside QTT files, in the
// same run, table and totals: the REST query-validation (RQTT) format of
// qtt/rest, ksqlDB's SQL test files of qtt/sqltest. The first format to
// detect a file parses it; any other file is a QTT file. The report names
// the format each file was read as.
type Format interface {
	// Name is the format as the report prints it ("RQTT", "SQL").
	Name() string
	// Detect reports whether the file at path, whose contents are src,
	// is in this format (by its contents, or its extension).
	Detect(path string, src []byte) bool
	// Parse expands the tests of the file at path (shown as name) into
	// jobs.
	Parse(name, path string, src []byte) ([]Job, error)
}

// QTTFormat is the name the report gives QTT files (the format every file
// no other Format detects is read as).
const QTTFormat = "QTT"

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
		return []Job{loadFailure(f, "", err)}
	}
	for _, format := range formats {
		if format.Detect(f.path, src) {
			jobs, err := format.Parse(f.name, f.path, src)
			if err != nil {
				return []Job{loadFailure(f, format.Name(), err)}
			}
			return withFormat(jobs, format.Name())
		}
	}
	parsed, err := ParseFile(f.name, src)
	if err != nil {
		return []Job{loadFailure(f, QTTFormat, err)}
	}
	var jobs []Job
	for _, v := range Expand(parsed) {
		jobs = append(jobs, Job{Variant: v})
	}
	return withFormat(jobs, QTTFormat)
}

// withFormat records the format the jobs' file was read as.
func withFormat(jobs []Job, name string) []Job {
	for _, j := range jobs {
		if j.Variant.Format == "" {
			j.Variant.Format = name
		}
	}
	return jobs
}

// loadFailure is the failing "(file)" variant of a file that does not
// load as the format named.
func loadFailure(f qttFile, format string, err error) Job {
	return Job{Variant: &Variant{File: f.name, Name: "(file)", Format: format, LoadErr: err}}
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
