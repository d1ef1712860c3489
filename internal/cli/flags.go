package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"ragd/client"
)

// globals are the flags every client command takes, before or after its
// name.
type globals struct {
	server, token string
	json          bool
}

// register adds the global flags to fs, bound to g.
func (g *globals) register(fs *flag.FlagSet) {
	fs.StringVar(&g.server, "server", g.server, "the ragd to talk to (default $RAGD_SERVER, else "+client.DefaultServer+")")
	fs.StringVar(&g.token, "token", g.token, "API key or JWT, sent as a bearer token (default $RAGD_TOKEN, else the sign-in ragd login keeps)")
	fs.BoolVar(&g.json, "json", g.json, "print one JSON document on stdout, for scripts")
}

// parseLeading parses the global flags before the command's name and
// returns the rest, name first.
func (g *globals) parseLeading(args []string) ([]string, error) {
	fs := flag.NewFlagSet("ragd", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	g.register(fs)
	if err := fs.Parse(args); err != nil {
		return nil, usageErrorf("%v", err)
	}
	return fs.Args(), nil
}

// isGlobalFlag reports whether arg is one of the global flags.
func isGlobalFlag(arg string) bool {
	name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	return strings.HasPrefix(arg, "-") && (name == "server" || name == "token" || name == "json")
}

// session is one command's run: its environment and global flags.
type session struct {
	env     Env
	globals globals
	name    string
}

// flags starts the command's flag set, with the global flags in it.
func (s *session) flags() *flag.FlagSet {
	fs := flag.NewFlagSet("ragd "+s.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	s.globals.register(fs)
	return fs
}

// parse parses args, flags anywhere among the arguments (everything after
// "--" is an argument), and checks that at least min and, unless max < 0,
// at most max arguments are left. --help prints the command's usage.
func (s *session) parse(fs *flag.FlagSet, args []string, min, max int) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				s.help(fs)
				return nil, errHelp
			}
			return nil, usageErrorf("%v", err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
	switch {
	case len(pos) < min:
		return nil, usageErrorf("missing %s", s.operands())
	case max >= 0 && len(pos) > max:
		return nil, usageErrorf("unexpected arguments: %s", strings.Join(pos[max:], " "))
	}
	return pos, nil
}

// operands names the command's arguments, as its synopsis does: "QUERY".
func (s *session) operands() string {
	var names []string
	for w := range strings.FieldsSeq(commands[s.name].synopsis) {
		if strings.HasPrefix(w, "[") {
			break
		}
		names = append(names, w)
	}
	return strings.Join(names, " ")
}

// help prints the command's usage and flags on stdout.
func (s *session) help(fs *flag.FlagSet) {
	c := commands[s.name]
	fmt.Fprintf(s.env.Stdout, "usage: ragd %s %s\n  %s\n\nflags:\n", s.name, c.synopsis, c.summary)
	fs.SetOutput(s.env.Stdout)
	fs.PrintDefaults()
}

// client is the REST client of the server the flags name, sending the
// --token (or $RAGD_TOKEN) key, else the token ragd login keeps for that
// server, renewed when it expires, else none.
func (s *session) client() (*client.Client, error) {
	c, err := s.bareClient()
	if err != nil || s.globals.token != "" {
		return c, err
	}
	path, err := signinFile()
	if err != nil {
		return c, nil // nowhere a sign-in could be kept: none
	}
	all, err := loadSignins(path)
	if err != nil {
		return nil, err
	}
	if _, ok := all[serverKey(c.Server())]; !ok {
		return c, nil
	}
	src := signedIn{path: path, server: serverKey(c.Server()), http: &http.Client{Timeout: 30 * time.Second}}
	return client.NewWithTokens(c.Server(), src.token)
}

// bareClient is the REST client of the server the flags name, with the
// --token key if any.
func (s *session) bareClient() (*client.Client, error) {
	server := s.globals.server
	if server == "" {
		server = client.DefaultServer
	}
	c, err := client.New(server, s.globals.token)
	if err != nil {
		return nil, usageErrorf("--server: %v", err)
	}
	return c, nil
}

// listFlag is a comma-separated list flag that may also be repeated.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for item := range strings.SplitSeq(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			*l = append(*l, item)
		}
	}
	return nil
}
