// Command gohelper is schedlab's Go helper: trace decoding and go/ast passes that
// are best done in Go. Each subcommand lives in its own file and registers itself
// in init(); Node builds this binary on first use (src/gohelper/index.ts).
package main

import (
	"fmt"
	"os"
	"sort"
)

// subcommands maps a subcommand name to its entry point, which gets the remaining
// arguments and returns the process exit code.
var subcommands = map[string]func(args []string) int{}

func register(name string, run func(args []string) int) {
	subcommands[name] = run
}

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	run, ok := subcommands[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "gohelper: unknown subcommand %q\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	os.Exit(run(os.Args[2:]))
}

func usage() {
	names := make([]string, 0, len(subcommands))
	for name := range subcommands {
		names = append(names, name)
	}
	sort.Strings(names)
	fmt.Fprintf(os.Stderr, "usage: gohelper <subcommand> [args]\nsubcommands: %v\n", names)
}
