// Package assert runs ksqlDB's ASSERT statements: ASSERT [NOT EXISTS]
// TOPIC against the cluster's topics (Topics, which the executor's
// Cluster implements) and ASSERT [NOT EXISTS] SCHEMA against the schema
// registry, each checked every 100 ms until it holds or its timeout
// passes (TIMEOUT, else the session's ksql.assert.*.default.timeout.ms,
// which the engine passes in).
//
//	ASSERT TOPIC t [WITH (PARTITIONS, REPLICAS)] ─► ListTopics ─┐
//	ASSERT SCHEMA [SUBJECT s] [ID n] ─► Latest / SchemaByID /  ─┤
//	                                    SubjectsByID            │
//	                    holds ◄── check every 100 ms ◄──────────┘
//	                      │          │ timeout
//	                      ▼          ▼
//	      Assert{Topic,Schema}Entity  *api.ErrorMessage 417, ksqlDB's words
//
// Nothing is recorded in the command topic and no engine lock is held
// while an assertion waits.
package assert
