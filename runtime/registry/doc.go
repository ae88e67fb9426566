// Package registry is the engine's use of the schema registry: the
// client built from ksql.schema.registry.url and its basic-auth and PEM
// TLS settings (New), the key and value schemas a CREATE registers
// (Register: as ksqlDB's SchemaRegisterInjector, CREATE with columns
// only where the subject does not exist yet, CREATE … AS SELECT always,
// a KEY_/VALUE_SCHEMA_ID registered as given and refused when the
// registry answers another id), and the subjects a DROP … DELETE TOPIC
// or an ended query's internal topics delete (DeleteSubjects,
// DeleteInternal), and whether an upgrade's kept internal subjects take
// their new schemas (CheckUpgrade). It sees planner sources, topologies
// and the registry client, never the engine.
//
//	props.RegistryConfig ─► New ─► format.SchemaRegistry (planner defaults,
//	                                  the registry formats' codecs)
//	CREATE … ─► Register(src) ─► <topic>-key, <topic>-value subjects
//	DROP … DELETE TOPIC ─► DeleteSubjects(src)   (soft, then hard)
//	query ended ─► DeleteInternal(topology's subjects)
//	CREATE OR REPLACE in place ─► CheckUpgrade(old, new topology): each
//	        kept internal subject's new schema against its compatibility rule
package registry
