package props

import (
	"errors"
	"strings"
	"testing"
)

// TestConnectConfig: the Connect client's settings as ksqlDB's
// DefaultConnectClientFactory reads them: a FILE source sends the file's
// credentials (reloaded only when asked), NONE forwards the request's
// header; ksql.connect.ssl.* come before the bare ssl.* settings.
func TestConnectConfig(t *testing.T) {
	table := NewTable()
	for _, tc := range []struct {
		set  map[string]string
		want ConnectConfig
	}{
		{map[string]string{ConnectCredFile: "/creds"}, // NONE: the file is not read
			ConnectConfig{VerifyHost: true}},
		{map[string]string{ConnectCredSource: "file", ConnectCredFile: "/creds"},
			ConnectConfig{CredentialsFile: "/creds", VerifyHost: true}},
		{map[string]string{ConnectCredSource: "FILE", ConnectCredFile: "/creds", ConnectCredReload: "true"},
			ConnectConfig{CredentialsFile: "/creds", ReloadCredentials: true, VerifyHost: true}},
		{map[string]string{"ssl.truststore.location": "/ca.pem", "ssl.keystore.location": "/me.pem"},
			ConnectConfig{Trust: "/ca.pem", Key: "/me.pem", VerifyHost: true}},
		{map[string]string{"ssl.truststore.location": "/ca.pem", ConnectTrust: "/connect-ca.pem", ConnectKey: "/connect.pem"},
			ConnectConfig{Trust: "/connect-ca.pem", Key: "/connect.pem", VerifyHost: true}},
		{map[string]string{"ssl.endpoint.identification.algorithm": "https", ConnectEndpointIdent: "none"},
			ConnectConfig{}},
		{map[string]string{"ssl.endpoint.identification.algorithm": "NONE"}, ConnectConfig{}},
	} {
		c, err := NewEngineConfig(table, table.Defaults().Merge(tc.set))
		if err != nil {
			t.Errorf("%v: %v", tc.set, err)
			continue
		}
		got := c.Connect
		got.URL, got.Timeout = "", 0
		if got != tc.want {
			t.Errorf("%v:\n got %+v\nwant %+v", tc.set, got, tc.want)
		}
	}
}

// TestConnectConfigErrors: a FILE source without a file and an unknown
// endpoint identification algorithm are refused at the start, naming the
// setting, in ksqlDB's words.
func TestConnectConfigErrors(t *testing.T) {
	table := NewTable()
	for _, tc := range []struct {
		set        map[string]string
		name, text string
	}{
		{map[string]string{ConnectCredSource: "FILE"}, ConnectCredFile,
			"'ksql.connect.basic.auth.credentials.file' cannot be empty if 'ksql.connect.basic.auth.credentials.source' is set to 'FILE'"},
		{map[string]string{ConnectEndpointIdent: "ldap"}, ConnectEndpointIdent, "Endpoint identification algorithm not supported: ldap"},
		{map[string]string{ConnectCredSource: "USER_INFO"}, ConnectCredSource, "USER_INFO"},
	} {
		_, err := NewEngineConfig(table, table.Defaults().Merge(tc.set))
		var pe *Error
		if !errors.As(err, &pe) || pe.Name != tc.name || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%v: %v, want an *Error naming %s saying %q", tc.set, err, tc.name, tc.text)
		}
	}
}
