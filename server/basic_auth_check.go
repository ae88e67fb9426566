package server

// BasicAuthCheck is the credential check WithBasicAuth applies with the
// same roles and users, for another listener of the process (the
// embedded schema registry) to accept the same accounts.
func BasicAuthCheck(roles []string, users Users) func(user, password string) bool {
	return (&basicAuth{roles: roles, users: users}).allows
}
