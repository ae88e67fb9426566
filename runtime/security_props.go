package runtime

// Security properties: the HTTP API's authentication and TLS (read by the
// server) and the Kafka clients' TLS and SASL (read by kafkaSecurity).
// All are the server's own (fixed) and off by default. Kafka client
// settings use Kafka's names, given bare (security.protocol) or with
// ksqlDB's ksql.streams. prefix; the HTTP listener's keystore is the
// same ssl.keystore.* (as in ksqlDB, where one file configures both).
const (
	PropAuthMethod     = "authentication.method"
	PropAuthRealm      = "authentication.realm"
	PropAuthRoles      = "authentication.roles"
	PropAuthUsersFile  = "sqlstream.authentication.users.file"
	PropSecProtocol    = "ksql.streams.security.protocol"
	PropSASLMechanism  = "ksql.streams.sasl.mechanism"
	PropSASLJAAS       = "ksql.streams.sasl.jaas.config"
	PropTrustLocation  = "ksql.streams.ssl.truststore.location"
	PropTrustType      = "ksql.streams.ssl.truststore.type"
	PropTrustPassword  = "ksql.streams.ssl.truststore.password"
	PropKeyLocation    = "ksql.streams.ssl.keystore.location"
	PropKeyType        = "ksql.streams.ssl.keystore.type"
	PropKeyPassword    = "ksql.streams.ssl.keystore.password"
	PropKeyKeyPassword = "ksql.streams.ssl.key.password"
	PropEndpointIdent  = "ksql.streams.ssl.endpoint.identification.algorithm"
	PropCertLocation   = "sqlstream.ssl.certificate.location"
	PropCertKey        = "sqlstream.ssl.key.location"
)

// topLevelProperties keep their name in NormalizeProperty (no
// ksql.streams. prefix): ksqlDB's REST server settings.
var topLevelProperties = [...]string{PropAuthMethod, PropAuthRealm, PropAuthRoles}

func securityPropertyDefs() []*propertyDef {
	str := func(name, doc string) *propertyDef {
		return &propertyDef{name: name, kind: kindString, fixed: true, doc: doc}
	}
	return []*propertyDef{
		{name: PropAuthMethod, kind: kindEnum, values: []string{"none", "basic"}, def: "NONE", fixed: true,
			doc: "HTTP API authentication: NONE or BASIC (users in " + PropAuthUsersFile + ")"},
		{name: PropAuthRealm, kind: kindString, def: "KsqlServer-Props", fixed: true, doc: "realm of BASIC authentication"},
		{name: PropAuthRoles, kind: kindString, def: "*", fixed: true,
			doc: "roles (comma separated, * for any) a user needs to use the API"},
		str(PropAuthUsersFile, "users of BASIC authentication, one 'user: password[,role…]' a line (PropertyFileLoginModule format)"),
		{name: PropSecProtocol, kind: kindEnum, values: []string{"plaintext", "ssl", "sasl_plaintext", "sasl_ssl"}, def: "PLAINTEXT", fixed: true,
			doc: "how Kafka clients connect: PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL"},
		{name: PropSASLMechanism, kind: kindEnum, values: []string{"plain", "scram-sha-256", "scram-sha-512"}, def: "PLAIN", fixed: true,
			doc: "SASL mechanism of Kafka clients: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512"},
		str(PropSASLJAAS, "SASL credentials: a PlainLoginModule or ScramLoginModule entry with username and password"),
		str(PropTrustLocation, "CA certificates Kafka clients trust (PEM file)"),
		{name: PropTrustType, kind: kindEnum, values: []string{"pem"}, def: "PEM", fixed: true, doc: "truststore format (PEM only)"},
		str(PropTrustPassword, "accepted for compatibility (PEM truststores have none)"),
		str(PropKeyLocation, "certificate and key (one PEM file) of the HTTPS listener and of Kafka clients"),
		{name: PropKeyType, kind: kindEnum, values: []string{"pem"}, def: "PEM", fixed: true, doc: "keystore format (PEM only)"},
		str(PropKeyPassword, "accepted for compatibility (PEM keys are not encrypted)"),
		str(PropKeyKeyPassword, "accepted for compatibility (PEM keys are not encrypted)"),
		str(PropEndpointIdent, "https (default) checks Kafka brokers' host names; empty does not"),
		str(PropCertLocation, "certificate chain (PEM) of the HTTPS listener"),
		str(PropCertKey, "private key (PEM) of the HTTPS listener"),
		str(PropCommandSecret, "HMAC key of the command topic's records; the same on every server sharing a service id (default: a random key in the data directory)"),
		{name: PropCommandReplayTimeout, kind: kindLong, min: 1000, def: "120000", fixed: true,
			doc: "how long a start may take to read the command topic before it fails (a transaction left open there holds the read back)"},
	}
}
