// Stacks as the records need them: the top user frame (a site), the standard-library
// call a goroutine blocked in, the stack strings of docs/events.md, and which frames are
// standard library, injected by schedlab, or the user's.

package decode

import (
	"path"
	"strconv"
	"strings"

	"golang.org/x/exp/trace"
)

// stackSummary is what decoding needs from a stack, computed once per stack per generation.
type stackSummary struct {
	topUser    string // "function file:line" of the top user frame (or the top frame)
	topUserKey string // "base-file:line" of the same frame
	bottom     string // the outermost frame's function
	aboveStd   string // lowest user frame above a standard-library bottom frame
	isTest     bool   // contains testing.(*M).Run or _testmain.go
	hasUser    bool   // some frame is the user's (topUser is then the top user frame, not the top frame)
	namedRoot  string // innermost user TestMain or ExampleXxx frame's function base name, if any
	inSettle   bool   // the harness's settle loop (main.schedlabHarnessSettle) is on the stack
	blockStack string // the stack string of a GoBlock with this stack (stackStrings)
	logStack   string // the stack string of a lock op logged with this stack (API part empty)
}

// maxStackUserFrames bounds the user frames of a stack string.
const maxStackUserFrames = 12

func (d *decoder) summary(stack trace.Stack) stackSummary {
	if stack == trace.NoStack {
		return stackSummary{}
	}
	if s, ok := d.frameCache[stack]; ok {
		return s
	}
	var s stackSummary
	var top trace.StackFrame
	haveTop, haveUser := false, false
	var frames []trace.StackFrame
	for f := range stack.Frames() {
		f.Func = mapFunc(f.Func)
		frames = append(frames, f)
		if !haveTop {
			top, haveTop = f, true
		}
		// Injected functions (perturbation, lock recording) are not the user's: the site is their caller's line.
		if !haveUser && d.isUserFrame(f) {
			s.topUser, s.topUserKey = frameSite(f), frameKey(f)
			haveUser = true
		}
		if s.namedRoot == "" && d.isUserFrame(f) {
			s.namedRoot = namedRootOf(f)
		}
		if f.Func == "testing.(*M).Run" || strings.HasSuffix(f.File, "_testmain.go") {
			s.isTest = true
		}
		if f.Func == "main.schedlabHarnessSettle" {
			s.inSettle = true
		}
	}
	s.hasUser = haveUser
	if !haveUser && haveTop {
		s.topUser, s.topUserKey = frameSite(top), frameKey(top)
	}
	if n := len(frames); n > 0 {
		s.bottom = frames[n-1].Func
		if wrapperEntries[s.bottom] {
			for i := n - 2; i >= 0; i-- {
				if !d.isStdFrame(frames[i]) {
					s.aboveStd = frames[i].Func
					break
				}
			}
		}
	}
	s.blockStack, s.logStack = d.stackStrings(frames)
	d.frameCache[stack] = s
	return s
}

// stackStrings formats frames (innermost first, functions mapped) as the stack strings of
// docs/events.md: "API;FUNC FILE:LINE;…" for a GoBlock, ";FUNC FILE:LINE;…" for a lock op.
// API is the standard-library function the top user (or injected) frame called: walking
// from the innermost frame, the last standard-library frame before the first frame that is
// not; "" when the top frame is not standard library, the outermost frame when none is.
// Then up to maxStackUserFrames user frames, injected frames skipped, so the first one is
// the site. A lock op's stack has no user frame only when the instrumentation ran outside
// user code: it is "" (none) then.
func (d *decoder) stackStrings(frames []trace.StackFrame) (block, log string) {
	api := ""
	i := 0
	for ; i < len(frames) && d.isStdFrame(frames[i]) && !isInjectedFrame(frames[i]); i++ {
		api = frames[i].Func
	}
	var b strings.Builder
	n := 0
	for ; i < len(frames) && n < maxStackUserFrames; i++ {
		if f := frames[i]; d.isUserFrame(f) {
			b.WriteByte(';')
			b.WriteString(frameSite(f))
			n++
		}
	}
	users := b.String()
	return api + users, users
}

// mapFunc maps the collect harness's renamed user main back to main.main, and the run
// agent's renamed TestMain of a package that has its own back to TestMain, in any package
// (see docs/identity.md).
func mapFunc(name string) string {
	if rest, ok := strings.CutPrefix(name, "main.schedlabUserMain"); ok {
		return "main.main" + rest
	}
	slash := strings.LastIndexByte(name, '/') + 1
	if dot := strings.IndexByte(name[slash:], '.'); dot >= 0 {
		at := slash + dot + 1
		if rest, ok := strings.CutPrefix(name[at:], "schedlabUserTestMain"); ok {
			return name[:at] + "TestMain" + rest
		}
	}
	return name
}

// namedRootOf returns "TestMain" or "ExampleXxx" for a frame of that function in a
// _test.go file ("example.com/m/pkg_test.ExampleCache" → "ExampleCache"), else "". A
// closure inside it ("….ExampleCache.func1") is not the function itself.
func namedRootOf(f trace.StackFrame) string {
	if !strings.HasSuffix(f.File, "_test.go") {
		return ""
	}
	name := f.Func[strings.LastIndexByte(f.Func, '/')+1:]
	_, name, ok := strings.Cut(name, ".")
	if !ok || strings.ContainsAny(name, ".()") {
		return ""
	}
	if name == "TestMain" || name == "Example" || strings.HasPrefix(name, "Example") && isExampleSuffix(name[len("Example"):]) {
		return name
	}
	return ""
}

// isExampleSuffix: what may follow "Example" in an example's name (ExampleT, ExampleT_M, Example_suffix).
func isExampleSuffix(rest string) bool {
	if rest == "" {
		return true
	}
	r := rest[0]
	return r == '_' || r >= 'A' && r <= 'Z'
}

func frameSite(f trace.StackFrame) string {
	return f.Func + " " + frameKey(f)
}

func frameKey(f trace.StackFrame) string {
	return path.Base(f.File) + ":" + strconv.FormatUint(f.Line, 10)
}

// isHarnessFrame reports whether a frame is the collect harness's (docs/collect.md): its
// functions are main.schedlabHarness…, and its own main.main lives in zz_schedlab_harness.go;
// or the run agent's (src/collect/agent.ts), whose TestMain lives in zz_schedlab_agent_test.go.
// Never a user site: a goroutine that blocks inside the harness (e.g. main waiting for the
// trace to stop while another goroutine crashes) gets no harness site, like one with no user frame.
func isHarnessFrame(f trace.StackFrame) bool {
	if strings.HasPrefix(f.Func, "main.schedlabHarness") {
		return true
	}
	switch path.Base(f.File) {
	case "zz_schedlab_harness.go", "zz_schedlab_agent.go", "zz_schedlab_agent_test.go":
		return true
	}
	return false
}

// isInjectedFrame reports whether a frame is code schedlab put into the program: the
// harness, and every function whose name (after the package path) contains ".schedlab" —
// the perturbation (pkg.schedlabPerturb), the lock recording (pkg.schedlabLock…) and their
// closures. Never a user frame: a site is the user line that called it.
func isInjectedFrame(f trace.StackFrame) bool {
	return isHarnessFrame(f) || strings.Contains(f.Func[strings.LastIndexByte(f.Func, '/')+1:], ".schedlab")
}

// isUserFrame: neither standard library nor injected.
func (d *decoder) isUserFrame(f trace.StackFrame) bool {
	return !d.isStdFrame(f) && !isInjectedFrame(f)
}

// isStdFrame reports whether a frame is Go standard library code: its file is under the
// given GOROOT, or (without a GOROOT match) its function's package path looks standard.
func (d *decoder) isStdFrame(f trace.StackFrame) bool {
	if d.goroot != "" && strings.HasPrefix(f.File, d.goroot+"/src/") {
		return true
	}
	if strings.HasPrefix(f.File, "/") && d.goroot != "" {
		return false
	}
	return d.isStdFunc(f.Func)
}

// isStdFunc: the package path's first element has no dot and the package is not main.
func (d *decoder) isStdFunc(fn string) bool {
	pkg := fn
	slash := strings.LastIndexByte(pkg, '/')
	if dot := strings.IndexByte(pkg[slash+1:], '.'); dot >= 0 {
		pkg = pkg[:slash+1+dot]
	}
	if pkg == "main" || strings.HasPrefix(fn, "main.") {
		return false
	}
	first, _, _ := strings.Cut(pkg, "/")
	return !strings.Contains(first, ".")
}
