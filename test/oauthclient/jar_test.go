package oauthclient_test

import "net/http/cookiejar"

// newJar is a browser's cookie jar.
func newJar() *cookiejar.Jar {
	j, _ := cookiejar.New(nil)
	return j
}
