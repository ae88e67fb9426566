// Package rest runs ksqlDB's REST query-validation tests (RQTT:
// ksql-rqtt/*.json) for `sqlstream test`. They are QTT tests plus
// "responses", one per statement as the REST API answers; qtt.Main runs
// them through Format, beside QTT files, on drivers that are also a
// Driver (ExecuteREST, QueryREST, ReadTopic):
//
//	file has a test with "responses" ──Format.Detect──► parseRestFile ──► []*restVariant ──► []qtt.Job
//	  each variant's properties over ksqlDB's RQTT server config
//	    (serverConfig: ksql.query.push.v2.enabled=true)
//	  statements before the first SELECT ──ExecuteREST──► {"admin": entity}…
//	  inputs produced (after the first query's header instead with
//	    inputConditions.waitForQueryHeader / waitForActivePushQuery)
//	  each SELECT ──QueryREST──► {"query": [header, row…, finalMessage]}
//	  with "queryProto" responses expected (testPullWithProtoFormat), each
//	    SELECT again ──QueryREST──► {"queryProto": [header with protoSchema,
//	    row…]}: rows encoded as the server's protobuf answer encodes them
//	    (protobuf.QueryResponse), decoded with that schema and printed in
//	    TextFormat, as ksqlDB's executor prints its protobufBytes
//	  outputs: the named topics read from the start (INSERT VALUES too)
//	  compareResponses: expected fields a subset of actual, "f|starts_with",
//	    numbers by value, header schemas with whitespace collapsed,
//	    push rows in order, pull rows in any order, queryProto rows as text
//
// RQTT variants join QTT ones in the same run, table and totals ("qtt: N
// passed, M failed, K skipped"); --only-easy also skips tests expecting
// PROTOBUF query responses. A negative test (expectedError) passes when
// any statement or input fails, whatever the message.
package rest
