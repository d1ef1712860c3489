// Command ragd runs the ragd knowledge-base server, its ingest worker and its
// MCP stdio server. It only wires the packages together.
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "ragd:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: ragd serve [--worker] | worker | convert-glove")
	}
	switch args[0] {
	case "convert-glove":
		return runConvertGloVe(args[1:])
	default:
		return fmt.Errorf("unknown command %q", args[0])
	}
}
