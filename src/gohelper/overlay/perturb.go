// Subcommand collect-perturb: seeded schedule perturbation for `schedlab collect --budget`.
// It inserts a call `schedlabPerturb(K)` at every synchronisation point of a package's
// files (channel send and receive, select, Lock/Unlock/RLock/RUnlock, Wait, Signal,
// Broadcast, Done, close, go statements) into overlay copies, and adds the function that
// decides, from a seed read at run time, whether point K yields, sleeps a few µs or does
// nothing. The user's tree is never written to.
//
// Invariants:
//   - line numbers never move: a call goes on the same line as its point, before the
//     statement ("schedlabPerturb(3); ch <- v") or after it ("mu.Lock(); schedlabPerturb(4)"),
//     and the copies contain no new newline, so sites and manifests still match;
//   - points are numbered 0..N-1 in the order of the files given, then of their position;
//   - the decision at a point is a pure function of (seed, point, visit ordinal at that
//     point), so a run is replayable from (strategy, seed) as far as the Go scheduler allows.
//
// Its overlay machinery (pass.go) serves lock recording too (locks.go), which runs after
// it on its copies.

package overlay

import (
	"flag"
	"fmt"
	"go/ast"
	"go/token"
	"path/filepath"
	"sort"

	"schedlab.dev/gohelper/srcedit"
)

// PerturbSeedEnv is the environment variable a perturbed binary reads its seed from;
// unset or unparsable, the binary runs unperturbed. src/collect/perturb.ts mirrors it.
const perturbSeedEnv = "SCHEDLAB_PERTURB_SEED"

// perturbPoint is one inserted call, for the report.
type perturbPoint struct {
	ID   int    `json:"id"`
	File string `json:"file"`
	Line int    `json:"line"`
	Kind string `json:"kind"`
}

type perturbResult struct {
	// Replace maps each original file (and each added file's path in the package
	// directory) to the file to build instead, in go build -overlay form.
	Replace map[string]string `json:"replace"`
	Points  []perturbPoint    `json:"points"`
	// Locks is the overlay with lock recording on top (-locks), else absent.
	Locks *LockResult `json:"locks,omitempty"`
}

// RunPerturb rewrites the files given for schedule perturbation.
//
// Usage: collect-perturb -out DIR [-overlay FILE] [-locks] [-budget N] file.go...
//
// With -overlay (a go build -overlay JSON file, e.g. the tracing harness's), a file that
// the overlay already replaces is read from its replacement, and the result keeps every
// entry of that overlay, so the two rewrites compose. Files importing "C" are left alone.
// With -locks the lock-recording rewrite (collect-locks, -budget as there) runs on the
// perturbed copies in the same call, and the result has both overlays: without lock
// recording (replace) and with it (locks).
func RunPerturb(args []string) int {
	flags := flag.NewFlagSet("collect-perturb", flag.ContinueOnError)
	out := flags.String("out", "", "directory for the rewritten copies")
	overlayFile := flags.String("overlay", "", "existing overlay JSON whose replacements are the sources to rewrite")
	locks := flags.Bool("locks", false, "also rewrite the perturbed copies for lock recording (collect-locks)")
	budget := flags.Int("budget", LockLogBudget, "with -locks: as collect-locks -budget")
	if !parseCommand(flags, args, "-out DIR [-overlay FILE] [-locks] [-budget N] file.go...") {
		return 2
	}
	result, err := perturbFiles(*out, *overlayFile, flags.Args())
	if err == nil && *locks {
		result.Locks, err = lockPerturbed(*out, result, flags.Args(), *budget)
	}
	return reply(flags, result, err)
}

func perturbFiles(out, overlayFile string, files []string) (*perturbResult, error) {
	replace, sources, err := overlaySources(overlayFile, files)
	if err != nil {
		return nil, err
	}
	result := &perturbResult{Replace: replace, Points: []perturbPoint{}}
	// Points are numbered across the files in order; the runtime of each package is sized
	// for all of them, so it is written once every file has been rewritten.
	pass := overlayPass{
		copyPrefix:  "p",
		runtimeFile: "zz_schedlab_perturb",
		rewrite: func(file string, src []byte) ([]byte, string, bool, error) {
			rewritten, name, points, err := perturbSource(file, src, len(result.Points))
			result.Points = append(result.Points, points...)
			return rewritten, name, len(points) > 0, err
		},
		runtime: func(pkg string) []addedFile {
			return []addedFile{{source: perturbRuntime(pkg, len(result.Points))}}
		},
	}
	if err := writeOverlayCopies(out, replace, files, sources, pass); err != nil {
		return nil, err
	}
	return result, nil
}

// lockPerturbed rewrites the perturbed copies of files for lock recording, into out beside
// them (the passes' copies and runtime files have names of their own), over a copy of
// perturbed's overlay.
func lockPerturbed(out string, perturbed *perturbResult, files []string, budget int) (*LockResult, error) {
	replace := make(map[string]string, len(perturbed.Replace))
	for k, v := range perturbed.Replace {
		replace[k] = v
	}
	sources, err := replacedSources(replace, files)
	if err != nil {
		return nil, err
	}
	return lockSources(out, replace, files, sources, budget)
}

// perturbSource returns the rewritten source, the package name and the points, numbered
// from first. A file importing "C" is returned as nil (cgo copies cannot move directories).
func perturbSource(name string, src []byte, first int) ([]byte, string, []perturbPoint, error) {
	fset, f, cgo, err := parseForRewrite(name, src)
	if err != nil {
		return nil, "", nil, err
	}
	if cgo {
		return nil, f.Name.Name, nil, nil
	}
	type found struct {
		pos   token.Pos
		after bool
		kind  string
	}
	var sites []found
	add := func(pos token.Pos, after bool, kind string) { sites = append(sites, found{pos, after, kind}) }
	ast.Inspect(f, func(n ast.Node) bool {
		if clause, ok := n.(*ast.CommClause); ok {
			// The case that a select chose: a point at the start of its body.
			add(clause.Colon+1, false, "select-case")
		}
		for _, stmt := range statementList(n) {
			kind, after := syncPoint(unlabeled(stmt))
			if kind == "" {
				continue
			}
			if after {
				add(stmt.End(), true, kind)
			} else {
				add(stmt.Pos(), false, kind)
			}
		}
		return true
	})
	if len(sites) == 0 {
		return src, f.Name.Name, []perturbPoint{}, nil
	}
	sort.SliceStable(sites, func(i, j int) bool { return sites[i].pos < sites[j].pos })
	inserts := make([]srcedit.Edit, 0, len(sites))
	points := make([]perturbPoint, 0, len(sites))
	for i, site := range sites {
		id := first + i
		p := fset.Position(site.pos)
		points = append(points, perturbPoint{ID: id, File: filepath.Base(name), Line: p.Line, Kind: site.kind})
		if site.after {
			inserts = append(inserts, srcedit.Insert(p.Offset, fmt.Sprintf("; schedlabPerturb(%d)", id)))
		} else {
			inserts = append(inserts, srcedit.Insert(p.Offset, fmt.Sprintf("schedlabPerturb(%d); ", id)))
		}
	}
	return srcedit.Apply(src, inserts), f.Name.Name, points, nil
}

// syncPoint classifies a statement of a statement list: the kind of synchronisation
// point it is ("" for none) and whether the call goes after it (else before it).
func syncPoint(stmt ast.Stmt) (string, bool) {
	switch s := stmt.(type) {
	case *ast.SendStmt:
		return "send", false
	case *ast.SelectStmt:
		return "select", false
	case *ast.GoStmt:
		return "go", true
	case *ast.ExprStmt:
		if call, ok := s.X.(*ast.CallExpr); ok && len(call.Args) == 0 {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
				switch sel.Sel.Name {
				case "Lock", "RLock":
					return "lock", true
				case "Unlock", "RUnlock":
					return "unlock", true
				case "Wait":
					return "wait", false
				case "Signal", "Broadcast":
					return "signal", true
				case "Done":
					return "done", true
				}
			}
		}
		if call, ok := s.X.(*ast.CallExpr); ok && len(call.Args) == 1 {
			if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "close" {
				return "close", true
			}
		}
	}
	if receives(stmt) {
		return "recv", false
	}
	return "", false
}

// receives reports whether a simple statement, or the header (init, condition, tag,
// post) of a compound one, receives from a channel outside a function literal.
func receives(stmt ast.Stmt) bool {
	var nodes []ast.Node
	switch s := stmt.(type) {
	case *ast.ExprStmt, *ast.AssignStmt, *ast.DeclStmt, *ast.ReturnStmt, *ast.IncDecStmt:
		nodes = append(nodes, s)
	case *ast.IfStmt:
		nodes = append(nodes, s.Init, s.Cond)
	case *ast.SwitchStmt:
		nodes = append(nodes, s.Init, s.Tag)
	case *ast.TypeSwitchStmt:
		nodes = append(nodes, s.Init, s.Assign)
	case *ast.ForStmt:
		nodes = append(nodes, s.Init, s.Cond)
	}
	found := false
	for _, node := range nodes {
		if node == nil { // an absent Init or Cond: a nil interface stays nil as an ast.Node
			continue
		}
		ast.Inspect(node, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.UnaryExpr:
				if n.Op == token.ARROW {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

// perturbRuntime is the decision function added to each package. Per run, each point
// gets a mode from (seed, point): quiet, always yield, always sleep, or a coin per
// visit; a visit's sleep length and coin come from (seed, point, visit ordinal). After
// 1000 visits a point acts on 1 visit in 16, so hot loops are not slowed without end.
func perturbRuntime(pkg string, points int) string {
	if points == 0 {
		points = 1
	}
	return fmt.Sprintf(`// Code generated by schedlab collect (schedule perturbation). DO NOT EDIT.

package %s

import (
	schedlabPerturbOS "os"
	schedlabPerturbRuntime "runtime"
	schedlabPerturbStrconv "strconv"
	schedlabPerturbAtomic "sync/atomic"
	schedlabPerturbTime "time"
)

var schedlabPerturbSeed, schedlabPerturbOn = schedlabPerturbSeedOf(schedlabPerturbOS.Getenv(%q))

// schedlabPerturbVisits counts the visits of each point.
var schedlabPerturbVisits [%d]uint32

func schedlabPerturbSeedOf(text string) (uint64, bool) {
	seed, err := schedlabPerturbStrconv.ParseUint(text, 10, 64)
	return seed, err == nil
}

// schedlabPerturbMix is splitmix64's finaliser.
func schedlabPerturbMix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func schedlabPerturb(point int) {
	if !schedlabPerturbOn {
		return
	}
	visit := schedlabPerturbAtomic.AddUint32(&schedlabPerturbVisits[point], 1)
	mode := schedlabPerturbMix(schedlabPerturbSeed ^ (uint64(point)+1)*0x9e3779b97f4a7c15)
	coin := schedlabPerturbMix(mode ^ uint64(visit)*0xd1b54a32d192ed03)
	if visit > 1000 && coin%%16 != 0 {
		return
	}
	sleep := schedlabPerturbTime.Duration(1+(coin>>8)%%20) * schedlabPerturbTime.Microsecond
	switch mode %% 4 {
	case 1:
		schedlabPerturbRuntime.Gosched()
	case 2:
		schedlabPerturbTime.Sleep(sleep)
	case 3:
		switch coin %% 4 {
		case 0:
			schedlabPerturbRuntime.Gosched()
		case 1:
			schedlabPerturbTime.Sleep(sleep)
		}
	}
}
`, pkg, perturbSeedEnv, points)
}
