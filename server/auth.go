package server

import (
	"bufio"
	"crypto/md5"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/sqlstream/sqlstream/api"
)

// Users are the accounts of BASIC authentication, read from a file in the
// format of Jetty's PropertyFileLoginModule (what ksqlDB's JAAS
// configuration names): one "user: password[,role…]" a line, # comments.
// A password is plain text, or "MD5:" and the hex MD5 of the password
// (Jetty's MD5 credential); Jetty's CRYPT: and OBF: forms are refused,
// and so is an empty password (Jetty accepts it: anyone knowing the user
// name would be let in).
type Users map[string]account

type account struct {
	password string // plain, or "MD5:<hex>"
	roles    []string
}

// ParseUsers reads a users file.
func ParseUsers(r io.Reader) (Users, error) {
	users := Users{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, rest, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, fmt.Errorf("line %d: want 'user: password[,role…]'", n)
		}
		fields := strings.Split(rest, ",")
		a := account{password: strings.TrimSpace(fields[0])}
		if strings.HasPrefix(a.password, "CRYPT:") || strings.HasPrefix(a.password, "OBF:") {
			return nil, fmt.Errorf("line %d: CRYPT: and OBF: passwords are not supported (use plain text or MD5:<hex>)", n)
		}
		if a.password == "" || a.password == "MD5:" {
			// Jetty would let anyone in as this user with an empty
			// password; an empty line after the colon is a mistake.
			return nil, fmt.Errorf("line %d: user %s has an empty password: give one (plain text or MD5:<hex>)", n, strings.TrimSpace(name))
		}
		for _, role := range fields[1:] {
			if role = strings.TrimSpace(role); role != "" {
				a.roles = append(a.roles, role)
			}
		}
		users[strings.TrimSpace(name)] = a
	}
	return users, sc.Err()
}

// Credentials returns each user's password as the file gives it (plain,
// or "MD5:<hex>"), for the embedded broker's SASL (broker.WithUsers).
func (u Users) Credentials() map[string]string {
	creds := make(map[string]string, len(u))
	for name, a := range u {
		creds[name] = a.password
	}
	return creds
}

// check says whether password is the user's, in time independent of how
// much of it matches.
func (a account) check(password string) bool {
	want, got := a.password, password
	if hexSum, ok := strings.CutPrefix(a.password, "MD5:"); ok {
		sum := md5.Sum([]byte(password))
		want, got = strings.ToLower(hexSum), hex.EncodeToString(sum[:])
	}
	return subtle.ConstantTimeCompare([]byte(want), []byte(got)) == 1
}

// basicAuth is the configuration of WithBasicAuth.
type basicAuth struct {
	realm string
	roles []string // "*": any
	users Users
}

// allows says whether the credentials name a user with an allowed role.
func (b *basicAuth) allows(user, password string) bool {
	a, ok := b.users[user]
	if !ok {
		// The same work for an unknown user as for a wrong password.
		(account{password: "\x00unknown"}).check(password)
		return false
	}
	if !a.check(password) {
		return false
	}
	return slices.Contains(b.roles, "*") || slices.ContainsFunc(a.roles, func(r string) bool { return slices.Contains(b.roles, r) })
}

// authenticate refuses requests without valid credentials when BASIC
// authentication is on: 401 with ksqlDB's body and a WWW-Authenticate
// challenge. /healthcheck, /chc/live and /chc/ready stay open for
// probes (isProbePath).
func (s *Server) authenticate(next http.Handler) http.Handler {
	auth := s.cfg.auth
	if auth == nil {
		// Without authentication the request's Authorization header is
		// still what connector statements forward to Kafka Connect, as
		// ksqlDB's DefaultApiSecurityContext takes it from any request.
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(api.WithAuthorization(r.Context(), r.Header.Get("Authorization"))))
		})
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, password, ok := r.BasicAuth()
		// /heartbeat and /lag authenticate peers by signature (their
		// handlers refuse anything else); peers hold no user password.
		if !isProbePath(r.URL.Path) && !isPeerPath(r.URL.Path) && (!ok || !auth.allows(user, password)) {
			s.cfg.logger.Warn("refused a request without valid credentials", "path", r.URL.Path, "user", user, "remote", r.RemoteAddr)
			w.Header().Set("WWW-Authenticate", `Basic realm="`+auth.realm+`", charset="UTF-8"`)
			writeErrorBody(w, &api.ErrorMessage{ErrorCode: api.CodeUnauthorized, Message: "Unauthorized"})
			return
		}
		// A pull query forwarded to a peer carries the user's credentials.
		next.ServeHTTP(w, r.WithContext(api.WithAuthorization(r.Context(), r.Header.Get("Authorization"))))
	})
}
