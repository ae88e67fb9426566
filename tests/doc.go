// Package tests holds sqlstream's end-to-end tests and project lint: they
// build the real binary, start it on free ports with a temporary data
// directory, and talk to it over HTTP, franz-go and kcat.
//
//	go build ./cmd/sqlstream ──► sqlstream server ──► /healthcheck ready
//	                                   │ HTTP (/ksql, /query-stream)
//	   test ───────────────────────────┤
//	                                   │ Kafka (franz-go, kcat)
//	                              embedded broker ◄── restart on same data dir
//
// The import-direction lint (lint_test.go) parses the tree with go/parser.
package tests
