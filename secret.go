package ragd

import (
	"os"
	"strings"
)

// SecretPrefix marks a secret setting read from an environment variable
// of the server ("env:VAR"), so neither a config file nor a stored record
// holds the secret itself.
const SecretPrefix = "env:"

// ResolveSecret returns a secret setting's value: the value itself, or
// the environment variable an "env:VAR" value names. Errors name the
// setting (what), never the secret.
func ResolveSecret(what, value string) (string, error) {
	if !strings.HasPrefix(value, SecretPrefix) {
		return value, nil
	}
	return EnvSecret(what, value)
}

// EnvSecret returns the environment variable an "env:VAR" value names,
// for settings that must never hold the secret itself (a source's
// credentials): any other form, an unset or empty variable, is
// ragd.Invalid naming the field, never the secret.
func EnvSecret(field, value string) (string, error) {
	name, ok := strings.CutPrefix(value, SecretPrefix)
	if !ok || name == "" {
		return "", Invalid(field, "value_error", "%s must be env:VAR, naming the server's environment variable that holds it", field)
	}
	v, ok := os.LookupEnv(name)
	if !ok || v == "" {
		return "", Invalid(field, "value_error", "%s: environment variable %s is empty or unset on this server", field, name)
	}
	return v, nil
}
