package props

import (
	"regexp"
	"strings"
)

// securityDefs are the HTTP API's authentication and TLS (read by the
// server), the Kafka clients' TLS and SASL, and the command topic's key
// and replay bound. All are the server's own (fixed) and off by default.
func securityDefs() []*Def {
	str := func(name, doc string) *Def {
		return &Def{name: name, kind: kindString, fixed: true, doc: doc}
	}
	return []*Def{
		{name: AuthMethod, kind: kindEnum, values: []string{"none", "basic"}, def: "NONE", fixed: true,
			doc: "HTTP API authentication: NONE or BASIC (users in " + AuthUsersFile + ")"},
		{name: AuthRealm, kind: kindString, def: "KsqlServer-Props", fixed: true, doc: "realm of BASIC authentication"},
		{name: AuthRoles, kind: kindString, def: "*", fixed: true,
			doc: "roles (comma separated, * for any) a user needs to use the API"},
		str(AuthUsersFile, "users of BASIC authentication, one 'user: password[,role…]' a line (PropertyFileLoginModule format)"),
		{name: SecProtocol, kind: kindEnum, values: []string{"plaintext", "ssl", "sasl_plaintext", "sasl_ssl"}, def: "PLAINTEXT", fixed: true,
			doc: "how Kafka clients connect: PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL"},
		{name: SASLMechanism, kind: kindEnum, values: []string{"plain", "scram-sha-256", "scram-sha-512"}, def: "PLAIN", fixed: true,
			doc: "SASL mechanism of Kafka clients: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512"},
		str(SASLJAAS, "SASL credentials: a PlainLoginModule or ScramLoginModule entry with username and password"),
		str(TrustLocation, "CA certificates Kafka clients trust (PEM file)"),
		{name: TrustType, kind: kindEnum, values: []string{"pem"}, def: "PEM", fixed: true, doc: "truststore format (PEM only)"},
		str(TrustPassword, "accepted for compatibility (PEM truststores have none)"),
		str(KeyLocation, "certificate and key (one PEM file) of the HTTPS listener and of Kafka clients"),
		{name: KeyType, kind: kindEnum, values: []string{"pem"}, def: "PEM", fixed: true, doc: "keystore format (PEM only)"},
		str(KeyPassword, "accepted for compatibility (PEM keys are not encrypted)"),
		str(KeyKeyPassword, "accepted for compatibility (PEM keys are not encrypted)"),
		str(EndpointIdent, "https (default) checks Kafka brokers' host names; empty does not"),
		str(CertLocation, "certificate chain (PEM) of the HTTPS listener"),
		str(CertKey, "private key (PEM) of the HTTPS listener"),
		str(CommandSecret, "HMAC key of the command topic's records; the same on every server sharing a service id (default: a random key in the data directory)"),
		{name: CommandReplayTimeout, kind: kindLong, min: 1000, def: "120000", fixed: true,
			doc: "how long a start may take to read the command topic before it fails (a transaction left open there holds the read back)"},
	}
}

// schemaRegistryDefs are the schema registry's client settings.
func schemaRegistryDefs() []*Def {
	str := func(name, doc string) *Def {
		return &Def{name: name, kind: kindString, fixed: true, doc: doc}
	}
	return []*Def{
		str(SchemaRegistryURL, "base URLs (comma separated) of the schema registry AVRO, PROTOBUF and JSON_SR use"),
		str(SchemaRegistryUserInfo, "user:password of the schema registry's HTTP basic authentication"),
		str(SchemaRegistryTrust, "CA certificates (PEM file) trusted for an https schema registry"),
		str(SchemaRegistryKey, "client certificate and key (one PEM file) presented to an https schema registry"),
		// The registry client's own settings, which ksqlDB passes through
		// under ksql.schema.registry.
		{name: SchemaRegistryCredSource, kind: kindEnum, values: []string{"user_info"}, fixed: true,
			doc: "where the registry's basic-auth credentials come from: USER_INFO (" + SchemaRegistryUserInfo + ") only"},
		{name: SchemaRegistryTrustType, kind: kindEnum, values: []string{"pem"}, def: "PEM", fixed: true, doc: "registry truststore format (PEM only)"},
		{name: SchemaRegistryKeyType, kind: kindEnum, values: []string{"pem"}, def: "PEM", fixed: true, doc: "registry keystore format (PEM only)"},
		str(SchemaRegistryTrustPass, "accepted for compatibility (PEM truststores have none)"),
		str(SchemaRegistryKeyPass, "accepted for compatibility (PEM keys are not encrypted)"),
		str(SchemaRegistryKeyKeyPass, "accepted for compatibility (PEM keys are not encrypted)"),
	}
}

// Kafka is how the engine's Kafka clients connect: Kafka's client
// security settings under ksql.streams., read once with the engine's
// configuration. The defaults (PLAINTEXT) are the table's.
type Kafka struct {
	TLS  bool // security.protocol is SSL or SASL_SSL
	SASL bool // security.protocol is SASL_PLAINTEXT or SASL_SSL
	// Mechanism is sasl.mechanism, lower-cased: "plain" (the default),
	// "scram-sha-256" or "scram-sha-512".
	Mechanism string
	// User and Password are sasl.jaas.config's username and password
	// (read only with SASL).
	User, Password string
	Trust          string // ssl.truststore.location: PEM CA certificates ("" for the system's roots)
	Key            string // ssl.keystore.location: certificate and key in one PEM file ("" for none)
}

// NewKafka reads the Kafka clients' security settings of props (over
// t's defaults) alone, for a client outside the engine on the same Kafka
// (the embedded schema registry's); the error, an *Error, names the
// setting.
func NewKafka(t Table, props Properties) (Kafka, error) {
	p := NewParser(t, props)
	k, err := parseKafka(p)
	if p.Err() != nil {
		return k, p.Err()
	}
	return k, err
}

// jaasOption is one key="value" (or key='value') of a JAAS entry.
var jaasOption = regexp.MustCompile(`(\w+)\s*=\s*(?:"([^"]*)"|'([^']*)')`)

// parseKafka reads the Kafka clients' security settings; a SASL
// protocol needs sasl.jaas.config's username and password (an *Error
// naming it otherwise).
func parseKafka(p *Parser) (Kafka, error) {
	proto := p.Str(SecProtocol)
	k := Kafka{TLS: proto == "ssl" || proto == "sasl_ssl", SASL: strings.HasPrefix(proto, "sasl_"),
		Mechanism: p.Str(SASLMechanism), Trust: p.Str(TrustLocation), Key: p.Str(KeyLocation)}
	if !k.SASL {
		return k, nil
	}
	jaas := p.Str(SASLJAAS)
	vals := map[string]string{}
	for _, m := range jaasOption.FindAllStringSubmatch(jaas, -1) {
		vals[m[1]] = m[2] + m[3]
	}
	user, okU := vals["username"]
	pass, okP := vals["password"]
	if !okU || !okP {
		return k, &Error{Name: SASLJAAS, Value: jaas, Problem: ProblemInvalid,
			Reason: `a PlainLoginModule or ScramLoginModule entry needs username="…" and password="…" (` + SecProtocol + " is " + strings.ToUpper(proto) + ")"}
	}
	k.User, k.Password = user, pass
	return k, nil
}
