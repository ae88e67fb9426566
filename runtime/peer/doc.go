// Package peer is what the servers of one service id say to each
// other (KLIP-12): the signature of every inter-node request, the agent
// that sends heartbeats and lag reports, and the pull query forwarded to
// the server holding a partition (forward.go).
//
//	this server                                   another server
//	Agent ─ every heartbeat interval ─► POST /heartbeat ─► Verify ─► heard
//	      ─ every lag interval ───────► POST /lag ───────► Verify ─► reported
//	      (Auth.Sign: time, nonce, HMAC over method, path, body)
//	OpenForward ─ Auth.Sign ─► POST /query-stream (skip forwarding,
//	            partitions) ─► Verify ─► its own partitions' rows
//	Forward.Rows ◄─ delimited rows (or an error object) ◄┘
//	Get ─ Auth.Sign ─► GET /tasks (the user's credentials) ─► its tasks
//	    (cluster.Gather: the console's figures of every host, get.go)
//
// The inter-node key is derived from the command topic's key (Key):
// the servers of a service id share it anyway, so holding it is what
// makes a server a peer. A signature lives peerClockSkew either side of
// its time and verifies once (a replay is refused).
//
// The engine keeps its view of the peers (who they are, alive or not,
// where each task runs) and answers the agent's questions through Peers;
// peer never imports the engine.
package peer
