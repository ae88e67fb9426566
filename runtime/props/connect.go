package props

import (
	"strings"
	"time"
)

// Kafka Connect client settings: how connector statements reach the
// Connect cluster at ksql.connect.url, as ksqlDB's
// DefaultConnectClientFactory reads them. All are the server's own.
const (
	ConnectCredSource = "ksql.connect.basic.auth.credentials.source"
	ConnectCredFile   = "ksql.connect.basic.auth.credentials.file"
	ConnectCredReload = "ksql.connect.basic.auth.credentials.reload"
	// The Connect client's TLS: ksqlDB reads its ssl.* settings with
	// the ksql.connect. prefix first (KsqlConfig's
	// valuesWithPrefixOverride), then the bare ssl.* ones.
	ConnectTrust         = "ksql.connect.ssl.truststore.location"
	ConnectKey           = "ksql.connect.ssl.keystore.location"
	ConnectEndpointIdent = "ksql.connect.ssl.endpoint.identification.algorithm"
	ConnectTrustType     = "ksql.connect.ssl.truststore.type"
	ConnectKeyType       = "ksql.connect.ssl.keystore.type"
	ConnectTrustPassword = "ksql.connect.ssl.truststore.password"
	ConnectKeyPassword   = "ksql.connect.ssl.keystore.password"
	ConnectKeyKeyPass    = "ksql.connect.ssl.key.password"
)

// ConnectConfig is what the engine reads of the ksql.connect.* settings,
// once at the start.
type ConnectConfig struct {
	URL     string        // ksql.connect.url ("" refuses connector statements)
	Timeout time.Duration // ksql.connect.request.timeout.ms
	// CredentialsFile is ksql.connect.basic.auth.credentials.file when
	// the credentials source is FILE: its username and password are sent
	// to Connect. "" (source NONE): the request's Authorization header is
	// forwarded, as ksqlDB does.
	CredentialsFile string
	// ReloadCredentials is ksql.connect.basic.auth.credentials.reload:
	// a changed credentials file is read again.
	ReloadCredentials bool
	Trust             string // PEM CA certificates trusted for an https Connect ("" for the system's roots)
	Key               string // PEM client certificate and key presented to Connect ("" for none)
	VerifyHost        bool   // check Connect's host name (endpoint identification algorithm https)
}

// connectDefs are the Connect client's settings besides ksql.connect.url
// and ksql.connect.request.timeout.ms (ksql.go).
func connectDefs() []*Def {
	str := func(name, doc string) *Def {
		return &Def{name: name, kind: kindString, fixed: true, doc: doc}
	}
	return []*Def{
		{name: ConnectCredSource, kind: kindEnum, values: []string{"none", "file"}, def: "NONE", fixed: true,
			doc: "where the basic-auth credentials sent to Kafka Connect come from: NONE (the request's Authorization header is forwarded) or FILE (" + ConnectCredFile + ")"},
		str(ConnectCredFile, "a properties file whose username and password are sent to Kafka Connect when "+ConnectCredSource+" is FILE"),
		{name: ConnectCredReload, kind: kindBool, def: "false", fixed: true,
			doc: "read the credentials file again when it changes (a deleted file keeps the last credentials, as in ksqlDB)"},
		str(ConnectTrust, "CA certificates (PEM file) trusted for an https Kafka Connect (default: ssl.truststore.location)"),
		str(ConnectKey, "client certificate and key (one PEM file) presented to an https Kafka Connect (default: ssl.keystore.location)"),
		str(ConnectEndpointIdent, "https (the default) checks Kafka Connect's host name; none or empty does not (default: ssl.endpoint.identification.algorithm)"),
		{name: ConnectTrustType, kind: kindEnum, values: []string{"pem"}, def: "PEM", fixed: true, doc: "Connect truststore format (PEM only)"},
		{name: ConnectKeyType, kind: kindEnum, values: []string{"pem"}, def: "PEM", fixed: true, doc: "Connect keystore format (PEM only)"},
		str(ConnectTrustPassword, "accepted for compatibility (PEM truststores have none)"),
		str(ConnectKeyPassword, "accepted for compatibility (PEM keys are not encrypted)"),
		str(ConnectKeyKeyPass, "accepted for compatibility (PEM keys are not encrypted)"),
	}
}

// parseConnect reads the Connect client's settings; a FILE source
// without a file, or an endpoint identification algorithm other than
// https or none, is an *Error naming the setting.
func parseConnect(p *Parser) (ConnectConfig, error) {
	c := ConnectConfig{URL: strings.TrimSpace(p.Str(ConnectURL)), Timeout: p.Millis(ConnectTimeout),
		Trust: firstSet(p, ConnectTrust, TrustLocation), Key: firstSet(p, ConnectKey, KeyLocation)}
	if p.Str(ConnectCredSource) == "file" {
		c.CredentialsFile = strings.TrimSpace(p.Str(ConnectCredFile))
		if c.CredentialsFile == "" {
			return c, &Error{Name: ConnectCredFile, Problem: ProblemInvalid,
				Reason: "'" + ConnectCredFile + "' cannot be empty if '" + ConnectCredSource + "' is set to 'FILE'"}
		}
		c.ReloadCredentials = p.Bool(ConnectCredReload)
	}
	name := ConnectEndpointIdent
	if p.Str(name) == "" {
		name = EndpointIdent
	}
	switch algo := strings.TrimSpace(p.Str(name)); strings.ToLower(algo) {
	case "", "https":
		c.VerifyHost = true
	case "none":
	default:
		return c, &Error{Name: name, Value: algo, Problem: ProblemInvalid,
			Reason: "Endpoint identification algorithm not supported: " + algo + " (https or none)"}
	}
	return c, nil
}

// firstSet is the first of names that is set ("" when none is).
func firstSet(p *Parser, names ...string) string {
	for _, n := range names {
		if v := strings.TrimSpace(p.Str(n)); v != "" {
			return v
		}
	}
	return ""
}
