// Package console is sqlstream's web console: a single page served at "/"
// by the HTTP server (server.WithConsole), on the same listener, origin,
// TLS and BASIC authentication as the REST API it talks to.
//
//	browser ──GET / (Accept: text/html) ──► index.html
//	        ──GET /console/app.js, app.css (gzip when accepted) ──► dist/
//	        ──POST /ksql, /query-stream, /close-query ──► statements, queries
//	        ──GET /clusterMetrics ──► the engine's /metrics of every server of the
//	          service id (hosts not answering marked) ──► the Metrics tab's rates and charts
//	        ──GET /clusterStatus, /info, /healthcheck ──► store lags, server, health
//	        ──GET /clusterTasks ──► /tasks of every server of the service id: per
//	          node of the topology (a global store's section too), per task
//	          and host (consumer lag, store size and lag), hosts not answering
//	        ──POST /query-stream on KSQL_PROCESSING_LOG ──► per-task late records, errors
//	        ──GET /schema-registry/… ──► the embedded registry (read only)
//
// web/src/cluster.js turns /clusterTasks into the figures: node records
// summed over hosts (a global store's section: the largest host's, each
// host loading the whole table), store sizes over active copies.
// web/src/metrics.js folds /clusterMetrics: each host's samples labelled
// with its host, a rate taken per host between two polls that both have
// it and summed over the hosts (a host that stops answering or restarts
// adds nothing for that interval rather than a drop or a jump), consumer
// lag summed over every host's tasks, mean commit and transaction end
// over the hosts that had some.
//
// The page (web/src) is plain ES modules bundled by esbuild into one
// script and one stylesheet: CodeMirror 6 (the SQL editor, with the
// REPL's ksqlDB keywords and completion of the catalog's names), dagre
// (the topology layout, drawn as SVG) and uPlot (the metric charts).
// web/package.json and package-lock.json pin the toolchain; `make
// console` rebuilds dist/, which is committed, so go build and CI need no
// Node; dist/SOURCES.sha256 names the sources it was built from, and a
// test here fails when they changed without a rebuild. web/test holds the
// page logic's node --test tests, which make console runs.
// dist/THIRD_PARTY_LICENSES.txt carries the bundled packages' licenses.
//
// The page makes no request to another origin, and its
// Content-Security-Policy (connect-src, script-src and img-src 'self')
// makes the browser refuse any. Its parts carry stable data-testid
// attributes (sql-editor, run, result, sources, queries, topology with a
// data-node element per processor, store and topic) for the browser tests
// in tests/console_test.go.
//
// The console is a leaf: it imports no other package of the project.
package console
