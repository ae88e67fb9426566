package qtt

import (
	"os"
	"regexp"
	"sync"
)

// RQTT mode. ksqlDB's REST query-validation tests (ksql-rqtt/*.json) are
// QTT tests plus "responses", one per statement as the REST API answers:
//
//	file has a test with "responses" ──► parseRestFile ──► []*restVariant
//	  statements before the first SELECT ──ExecuteREST──► {"admin": entity}…
//	  inputs produced (after the first query's header instead with
//	    inputConditions.waitForQueryHeader / waitForActivePushQuery)
//	  each SELECT ──QueryREST──► {"query": [header, row…, finalMessage]}
//	  outputs: the named topics read from the start (INSERT VALUES too)
//	  compareResponses: expected fields a subset of actual, "f|starts_with",
//	    numbers by value, header schemas with whitespace collapsed,
//	    push rows in order, pull rows in any order, queryProto not compared
//
// RQTT variants join QTT ones in the same run, table and totals ("qtt: N
// passed, M failed, K skipped"); --only-easy also skips tests expecting
// PROTOBUF query responses. A negative test (expectedError) passes when
// any statement or input fails, whatever the message.

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
