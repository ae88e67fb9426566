// Package commandlog is the command topic `_<service id>_command_topic`:
// every accepted statement of a service id, in order, so that a restart
// rebuilds the catalog and restarts persistent queries with the same ids,
// and several servers of one service id apply the same commands.
//
//	engine statement ─► Serialized: begin (fencing producer, txn id =
//	                    service id) ─► catchUp ─► run ─► Append (signed,
//	                    chained) ─► commit ─► read back (read_committed);
//	                    fenced, or not in the topic: run again (backoff)
//
//	Open ─► records (read_committed, bounded by ReplayTimeout)
//	     ─► Replay: chain.check each record ─► Engine.Apply
//	     ─► StartFollowing: tail the topic, Engine.Apply what other
//	        servers append (under the engine lock)
//
// Signing (signing.go): each record carries an HMAC-SHA256 with the
// shared secret or the data directory's key; unsigned records run only
// below the fence (the topic's end when signing began). The chain
// (chain.go): a record is signed over its content and the signature of
// the one before, so a copied or reordered record is refused; a topic
// whose signed records none of this server's key signed stops the start.
//
// The log reaches the engine through the Engine interface (its lock and
// Apply) and Kafka through Broker; it never imports the engine.
package commandlog
