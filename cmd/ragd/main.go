// Command ragd runs the ragd knowledge-base server, its ingest worker and its
// MCP stdio server, and is the command-line client of a running ragd. It
// only wires the packages together.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"ragd/internal/cli"
)

const usage = `server commands:
  ragd serve [--config FILE] [--worker]   REST API (and, with --worker, the ingest worker)
  ragd worker [--config FILE]             ingest worker only
  ragd mcp [--config FILE]                MCP over stdio (logs go to stderr)
  ragd watch PATH [--kb NAME] [--recursive=false] [--prune=false] [--worker]
                                          keep a directory in sync with a namespace
  ragd eval [--url U] [--kb_name K] [--set F] [--mode M]   retrieval quality on a question set
  ragd eval corpus --out DIR              build the evaluation corpus from GOROOT
  ragd convert-glove -in JSON -out BIN    convert the GloVe npm package into ragd's table

`

func main() {
	if cli.Is(os.Args[1:]) {
		os.Exit(runClient(os.Args[1:]))
	}
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "ragd:", err)
		var usage usageError
		if errors.As(err, &usage) {
			os.Exit(cli.ExitUsage)
		}
		os.Exit(1)
	}
}

// usageError is a command line naming no command ragd knows.
type usageError string

func (e usageError) Error() string { return string(e) }

func run(args []string) error {
	if len(args) == 0 {
		return usageError("no command given\n" + usage + cli.Usage())
	}
	stop, err := startCPUProfile()
	if err != nil {
		return err
	}
	defer stop()
	switch args[0] {
	case "serve":
		return runServe(args[1:])
	case "worker":
		return runWorker(args[1:])
	case "mcp":
		return runMCP(args[1:])
	case "watch":
		return runWatch(args[1:])
	case "eval":
		return runEval(args[1:])
	case "convert-glove":
		return runConvertGloVe(args[1:])
	case "help", "-h", "--help":
		fmt.Println(usage + cli.Usage())
		return nil
	default:
		return usageError(fmt.Sprintf("unknown command %q\n%s%s", args[0], usage, cli.Usage()))
	}
}

// runClient runs a client command; SIGINT or SIGTERM stops it.
func runClient(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	return cli.Run(ctx, args, cli.StdEnv())
}
