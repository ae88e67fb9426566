package qtt

import (
	"os"
	"regexp"
	"sync"
)

// job is one variant to run: a QTT one, or an RQTT one when rest is set.
type job struct {
	qtt  *Variant
	rest *restVariant
}

func (j job) variant() *Variant {
	if j.rest != nil {
		return j.rest.Variant
	}
	return j.qtt
}

func (j job) run(cfg runConfig) Result {
	if j.rest != nil {
		return runRestVariant(j.rest, cfg)
	}
	return runVariant(j.qtt, cfg)
}

// loadJobs parses every file given: a file one of whose tests has
// "responses" is an RQTT file, run through the REST runner, any other a
// QTT file. A file that does not parse becomes a failing "(file)"
// variant, as in loadVariants.
func loadJobs(paths []string) ([]job, error) {
	files, err := collectFiles(paths)
	if err != nil {
		return nil, err
	}
	var jobs []job
	for _, f := range files {
		jobs = append(jobs, loadFileJobs(f)...)
	}
	return jobs, nil
}

func loadFileJobs(f qttFile) []job {
	var jobs []job
	src, err := os.ReadFile(f.path)
	if err == nil && isRestFile(src) {
		rvs, err := parseRestFile(f.name, src)
		if err == nil {
			for _, rv := range rvs {
				jobs = append(jobs, job{rest: rv})
			}
			return jobs
		}
		return []job{{qtt: &Variant{File: f.name, Name: "(file)", LoadErr: err}}}
	}
	var parsed *File
	if err == nil {
		parsed, err = ParseFile(f.name, src)
	}
	if err != nil {
		return []job{{qtt: &Variant{File: f.name, Name: "(file)", LoadErr: err}}}
	}
	for _, v := range Expand(parsed) {
		jobs = append(jobs, job{qtt: v})
	}
	return jobs
}

func filterJobs(js []job, re *regexp.Regexp) []job {
	if re == nil {
		return js
	}
	var out []job
	for _, j := range js {
		if re.MatchString(j.variant().ID()) {
			out = append(out, j)
		}
	}
	return out
}

// runJobs runs the jobs on up to parallel workers, results in the jobs'
// order (as runAll).
func runJobs(js []job, cfg runConfig, parallel int) []Result {
	results := make([]Result, len(js))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < max(1, min(parallel, len(js))); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = js[i].run(cfg)
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
