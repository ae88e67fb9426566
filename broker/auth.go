package broker

import (
	"bytes"
	"crypto/md5"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// InternalUser is the SASL user the broker's own clients and the engine
// of the same process authenticate as when WithUsers is set: a
// superuser whose password is random for each Start
// (Broker.InternalCredentials), so that nothing on disk holds it.
const InternalUser = "__sqlstream"

// WithUsers turns on authentication, overriding the default of none: a
// client must authenticate with SASL/PLAIN, or SCRAM-SHA-256/512, as one
// of users (name → credential as in the API's users file: a plain
// password, or "MD5:" and the hex MD5 of it, which only PLAIN can check).
// An anonymous client gets no answer but to its handshake. The users may
// read, write, create and delete topics and use groups and transactional
// ids, except what WithProtected names, which only the broker's
// InternalUser may touch; no user may change ACLs or credentials.
// The users' credentials are the users file's alone: the ACLs and SASL
// credentials kfake would persist in the data directory are removed at
// every start.
func WithUsers(users map[string]string) Option {
	return optionFunc(func(c *config) { c.users = users })
}

// Protected is what, with WithUsers, only the broker's InternalUser may
// use: one service id's command topic, internal topics, consumer groups
// and transactional ids, so that no user can forge commands, read or
// delete changelogs, join a query's group (and take its partitions) or
// fence its transactions.
type Protected struct {
	// Topics are exact topic names (the command topic); users may not
	// read, write, alter or delete them, but still see them listed.
	Topics []string
	// TransactionalIDs are exact transactional ids (the command topic's).
	TransactionalIDs []string
	// Prefixes protect every topic, group id and transactional id that
	// starts with one (a service id's query and transient application
	// ids).
	Prefixes []string
}

// WithProtected sets what only InternalUser may use, overriding the
// default of nothing. Whatever it says, the command topics
// (`_<id>_command_topic`) and `_schemas` are never deleted (see
// guardInternalTopics).
func WithProtected(p Protected) Option {
	return optionFunc(func(c *config) { c.protected = p })
}

// InternalCredentials returns the InternalUser's name and password for
// this run, or "" and "" without WithUsers.
func (b *Broker) InternalCredentials() (user, password string) {
	if b.internalPassword == "" {
		return "", ""
	}
	return InternalUser, b.internalPassword
}

// saslOptions are kfake's options for cfg's users: SASL and ACLs on, the
// internal superuser, every user under PLAIN with a random stand-in
// password (plainCheck puts it in once the real one checked) and under
// SCRAM with their password when it is plain text.
func saslOptions(cfg config, internalPassword string) ([]kfake.Opt, map[string]string) {
	opts := []kfake.Opt{kfake.EnableSASL(), kfake.EnableACLs(),
		kfake.Superuser("PLAIN", InternalUser, internalPassword),
		kfake.Superuser("SCRAM-SHA-256", InternalUser, internalPassword),
		kfake.Superuser("SCRAM-SHA-512", InternalUser, internalPassword)}
	standIns := map[string]string{}
	acls := userACLs(cfg)
	for name, cred := range cfg.users {
		standIns[name] = rand.Text()
		opts = append(opts, kfake.User("PLAIN", name, standIns[name], acls...))
		if !strings.HasPrefix(cred, "MD5:") {
			opts = append(opts, kfake.User("SCRAM-SHA-256", name, cred), kfake.User("SCRAM-SHA-512", name, cred))
		}
	}
	return opts, standIns
}

// userACLs are every user's ACLs: all on topics, groups and
// transactional ids, what a client needs of the cluster, and a deny of
// everything but Describe on the protected topics and of everything on
// the protected groups and transactional ids.
func userACLs(cfg config) []kfake.ACL {
	allow := func(r kmsg.ACLResourceType, name string, op kmsg.ACLOperation) kfake.ACL {
		return kfake.ACL{Resource: r, Name: name, Pattern: kmsg.ACLResourcePatternTypeLiteral, Operation: op, Allow: true}
	}
	acls := []kfake.ACL{
		allow(kmsg.ACLResourceTypeTopic, "*", kmsg.ACLOperationAll),
		allow(kmsg.ACLResourceTypeGroup, "*", kmsg.ACLOperationAll),
		allow(kmsg.ACLResourceTypeTransactionalId, "*", kmsg.ACLOperationAll),
	}
	for _, op := range []kmsg.ACLOperation{kmsg.ACLOperationCreate, kmsg.ACLOperationDescribe,
		kmsg.ACLOperationDescribeConfigs, kmsg.ACLOperationIdempotentWrite} {
		acls = append(acls, allow(kmsg.ACLResourceTypeCluster, "kafka-cluster", op))
	}
	deny := func(r kmsg.ACLResourceType, name string, pattern kmsg.ACLResourcePatternType, ops ...kmsg.ACLOperation) {
		for _, op := range ops {
			acls = append(acls, kfake.ACL{Resource: r, Name: name, Pattern: pattern, Operation: op})
		}
	}
	topicOps := []kmsg.ACLOperation{kmsg.ACLOperationRead, kmsg.ACLOperationWrite, kmsg.ACLOperationDelete,
		kmsg.ACLOperationAlter, kmsg.ACLOperationAlterConfigs}
	p := cfg.protected
	for _, n := range append([]string{"_schemas"}, p.Topics...) {
		deny(kmsg.ACLResourceTypeTopic, n, kmsg.ACLResourcePatternTypeLiteral, topicOps...)
	}
	for _, id := range p.TransactionalIDs {
		deny(kmsg.ACLResourceTypeTransactionalId, id, kmsg.ACLResourcePatternTypeLiteral, kmsg.ACLOperationAll)
	}
	for _, prefix := range p.Prefixes {
		deny(kmsg.ACLResourceTypeTopic, prefix, kmsg.ACLResourcePatternTypePrefixed, topicOps...)
		deny(kmsg.ACLResourceTypeGroup, prefix, kmsg.ACLResourcePatternTypePrefixed, kmsg.ACLOperationAll)
		deny(kmsg.ACLResourceTypeTransactionalId, prefix, kmsg.ACLResourcePatternTypePrefixed, kmsg.ACLOperationAll)
	}
	return acls
}

// plainCheck checks a SASL/PLAIN authentication against the users' own
// credentials (kfake compares plain text only, and the users file may
// hold MD5 sums): when the password is the user's, the request goes on to
// kfake with the user's stand-in password, which kfake accepts; anything
// else goes on unchanged and fails there. SCRAM exchanges carry no NUL
// and pass untouched.
func plainCheck(c *kfake.Cluster, users, standIns map[string]string) {
	c.ControlKey(int16(kmsg.SASLAuthenticate), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		auth := req.(*kmsg.SASLAuthenticateRequest)
		parts := bytes.SplitN(auth.SASLAuthBytes, []byte{0}, 3)
		if len(parts) != 3 {
			return nil, nil, false
		}
		user, password := string(parts[1]), string(parts[2])
		if cred, ok := users[user]; ok && credentialMatches(cred, password) {
			auth.SASLAuthBytes = []byte("\x00" + user + "\x00" + standIns[user])
		}
		return nil, nil, false
	})
}

// credentialMatches checks password against a users-file credential (the
// server's rule: plain, or "MD5:<hex>") in time independent of how much
// matches.
func credentialMatches(cred, password string) bool {
	want, got := cred, password
	if sum, ok := strings.CutPrefix(cred, "MD5:"); ok {
		h := md5.Sum([]byte(password))
		want, got = strings.ToLower(sum), hex.EncodeToString(h[:])
	}
	return subtle.ConstantTimeCompare([]byte(want), []byte(got)) == 1
}

// validateUsers refuses a user the broker cannot serve.
func validateUsers(users map[string]string) error {
	for name := range users {
		switch {
		case name == InternalUser:
			return fmt.Errorf("broker user %q: the name is the broker's internal user, rename it", name)
		case name == "" || strings.ContainsRune(name, 0):
			return fmt.Errorf("broker user %q: a SASL user name must be non-empty and hold no NUL", name)
		}
	}
	return nil
}

// forgetCredentials removes the SASL credentials and ACLs kfake persisted
// in dataDir: the users given at Start are the only ones, and a stand-in
// password must not outlive its run.
func forgetCredentials(dataDir string) error {
	var errs []error
	for _, f := range []string{"sasl.json", "acls.json"} {
		if err := os.Remove(filepath.Join(dataDir, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
