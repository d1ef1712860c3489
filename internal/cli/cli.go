// Package cli is ragd's command-line client: ingest, search, ask, jobs,
// cancel, docs, rm, sources, export, import and embedder, talking to a ragd server over its
// REST API through package client (never to the services directly). Each
// command prints for people, or with --json one JSON document for
// scripts, and ends with an exit status a script can test.
//
// ragd login signs a person in at a server in auth.mode oauth as a native
// app does (RFC 8252: the browser, a loopback redirect on an ephemeral
// port, PKCE S256, the client registered dynamically) and keeps the tokens
// in the user's config directory (0600); every command without --token
// then sends the access token, renewed with the refresh token when it
// expires. ragd logout revokes and forgets them.
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"ragd/client"
)

// Exit statuses.
const (
	ExitOK = 0
	// ExitFailed: a job failed, or the server refused the request.
	ExitFailed = 1
	// ExitUsage: the command line is wrong.
	ExitUsage = 2
	// ExitUnreachable: the server gave no answer (connection refused,
	// unknown host, timeout).
	ExitUnreachable = 3
	// ExitInterrupted: stopped by SIGINT or SIGTERM (jobs already
	// enqueued go on on the server).
	ExitInterrupted = 130
)

// command is one client command.
type command struct {
	synopsis string // arguments and flags, after the name
	summary  string
	run      func(ctx context.Context, s *session, args []string) error
}

// commands are the client's commands, by name. Filled in init so that the
// commands may print the table's synopses.
var commands map[string]command

// order is the order Usage lists the commands in.
var order = []string{"ingest", "search", "ask", "jobs", "cancel", "docs", "rm", "sources", "export", "import", "embedder", "login", "logout"}

func init() {
	commands = map[string]command{
		"ingest":   {"PATH... [--kb NAME] [--sync] [--tags a,b] [--force]", "index files and directories, with progress", runIngest},
		"search":   {"QUERY [--kb NAME] [--top-k N] [--mode hybrid|vector|keyword]", "the passages that best match", runSearch},
		"ask":      {"QUERY [--kb NAME] [--top-k N] [--mode M]", "an answer with numbered sources", runAsk},
		"jobs":     {"[--kb NAME] [--status S] [--watch]", "ingest jobs, newest first", runJobs},
		"cancel":   {"JOB", "cancel a job that has not ended", runCancel},
		"docs":     {"[--kb NAME]", "the documents of a namespace", runDocs},
		"rm":       {"DOC [--kb NAME]", "delete a document and its chunks", runRemove},
		"sources":  {"add URL [--kb NAME] [--ref R] [--every 1h] [--include g] [--exclude g] | ls [--kb NAME] | sync ID [--force] | rm ID [--keep-documents]", "Git repositories kept in sync: add one, list them with their last and next sync, sync one with a progress bar, delete one", runSources},
		"export":   {"KB FILE", "save a namespace as an archive", runExport},
		"import":   {"KB FILE", "load an archive into a namespace", runImport},
		"embedder": {"[switch NAME]", "the live embedder; switch re-embeds every namespace with NAME and cuts over, with progress", runEmbedder},
		"login":    {"[--server URL] [--scope S] [--no-browser]", "sign in through the browser (a server in auth.mode oauth); the other commands then use the token, kept in your config dir", runLogin},
		"logout":   {"[--server URL]", "revoke and forget the token ragd login kept", runLogout},
	}
}

// Usage lists the client commands and their global flags, for ragd's usage text.
func Usage() string {
	var b strings.Builder
	b.WriteString("client commands (talk to a running ragd over REST):\n")
	for _, name := range order {
		c := commands[name]
		fmt.Fprintf(&b, "  ragd %s %s\n      %s\n", name, c.synopsis, c.summary)
	}
	b.WriteString("  global flags, before or after the command:\n")
	b.WriteString("    --server URL   the ragd to talk to (default $RAGD_SERVER, else " + client.DefaultServer + ")\n")
	b.WriteString("    --token KEY    API key or JWT, sent as a bearer token (default $RAGD_TOKEN, else ragd login's token)\n")
	b.WriteString("    --json         one JSON document on stdout, for scripts\n")
	b.WriteString("  exit status: 0 success, 1 a job failed or the server refused, 2 usage error, 3 server unreachable")
	return b.String()
}

// Is reports whether args are a client command: they name one, or start
// with a global flag.
func Is(args []string) bool {
	if len(args) > 0 && isGlobalFlag(args[0]) {
		return true
	}
	_, ok := commands[first(args)]
	return ok
}

// Env is what the commands run with.
type Env struct {
	Stdout, Stderr io.Writer
	// Terminal: Stdout is a terminal, so progress is drawn as bars.
	Terminal bool
	Getenv   func(string) string
	// OpenBrowser opens an address for ragd login; nil: the system's
	// opener (xdg-open, open).
	OpenBrowser func(string) error
}

// StdEnv is the process's own standard output, error and environment.
func StdEnv() Env {
	return Env{Stdout: os.Stdout, Stderr: os.Stderr, Terminal: term.IsTerminal(int(os.Stdout.Fd())), Getenv: os.Getenv}
}

// Run runs a client command and returns its exit status. Whatever went
// wrong is one line on stderr.
func Run(ctx context.Context, args []string, env Env) int {
	g := globals{server: env.Getenv("RAGD_SERVER"), token: env.Getenv("RAGD_TOKEN")}
	rest, err := g.parseLeading(args)
	name := first(rest)
	if err == nil && name == "" {
		err = usageErrorf("no command given: %s", strings.Join(order, ", "))
	}
	c, ok := commands[name]
	if err == nil && !ok {
		err = usageErrorf("unknown command %q", name)
	}
	if err == nil {
		s := &session{env: env, globals: g, name: name}
		err = c.run(ctx, s, rest[1:])
	}
	return report(env.Stderr, name, err)
}

// report writes err as one line and returns its exit status.
func report(stderr io.Writer, name string, err error) int {
	code := exitCode(err)
	if code == ExitOK {
		return code
	}
	prefix := "ragd"
	if name != "" {
		prefix += " " + name
	}
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if code == ExitInterrupted {
		msg = "interrupted"
		if name == "ingest" || name == "import" {
			msg += " (the jobs already enqueued go on on the server: ragd jobs)"
		}
	}
	if code == ExitUsage && name != "" {
		msg += " (usage: ragd " + name + " " + commands[name].synopsis + ")"
	}
	fmt.Fprintf(stderr, "%s: %s\n", prefix, msg)
	return code
}

func first(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}
