// Command evalsuite runs ragd's retrieval evaluation over several corpora:
//
//	evalsuite build  --out DIR                  write every corpus into DIR/<name>
//	evalsuite sample --dir DIR/<name> [--n 60] [--seed 17]
//	                                            print the passages questions are written from
//	evalsuite index  --url URL --dir DIR --prefix P
//	                                            index DIR/<name> into kb_name P-<name>
//	evalsuite run    --url URL --prefix P --label L [--sets DIR] [--expand none|neighbours|section]
//	                                            ask every corpus's questions, print and append the scores
//	evalsuite table  --results FILE             the comparison tables and the rule's decisions
//	evalsuite modules                           the module@versions the corpora read, for go mod download
//
// make eval (scripts/eval.sh) runs it against a throwaway stack.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"ragd/internal/eval"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "evalsuite:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return errors.New("usage: evalsuite build|sample|index|run|table|modules [flags]")
	}
	cmds := map[string]func([]string) error{
		"build": cmdBuild, "sample": cmdSample, "index": cmdIndex, "run": cmdRun, "table": cmdTable,
		"modules": cmdModules,
	}
	f, ok := cmds[args[0]]
	if !ok {
		return fmt.Errorf("unknown command %q", args[0])
	}
	return f(args[1:])
}

// cmdModules prints eval.Modules one per line.
func cmdModules(args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("modules takes no arguments, got %q", args)
	}
	for _, m := range eval.Modules() {
		fmt.Println(m)
	}
	return nil
}
