// Command gohelper is schedlab's Go helper: trace decoding and go/ast passes that
// are best done in Go. This file is only the table of subcommands; each lives in its
// package. Node builds this binary on first use (src/gohelper/index.ts).
package main

import (
	"fmt"
	"os"
	"sort"

	"schedlab.dev/gohelper/decode"
	"schedlab.dev/gohelper/mutate"
	"schedlab.dev/gohelper/overlay"
	"schedlab.dev/gohelper/scan"
)

// subcommands maps a subcommand name to its entry point, which gets the remaining
// arguments and returns the process exit code.
var subcommands = map[string]func(args []string) int{
	"decode":          decode.Run,
	"record-kinds":    decode.RunRecordKinds,
	"collect-scan":    scan.RunPackages,
	"staticfeatures":  scan.RunStaticFeatures,
	"wait-sites":      scan.RunWaitSites,
	"collect-overlay": overlay.RunHarness,
	"collect-perturb": overlay.RunPerturb,
	"collect-locks":   overlay.RunLocks,
	"mutate":          mutate.Run,
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
