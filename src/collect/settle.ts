// The settle the tracing harness and the run agent share: Go source that lets a program's
// other goroutines run briefly before its trace stops or its leak profile is taken.

/**
 * The default bound of the settle: after the user's main returns normally (or a test
 * binary's tests end), the other goroutines run until runtime.NumGoroutine() stays the same
 * for 3 polls in a row, or this long at most. Small, because a run whose goroutine count
 * never stops moving pays all of it.
 */
export const DEFAULT_SETTLE_MS = 100;

/**
 * The Go body of a settle (the harness's, the run agent's): lets the other goroutines run
 * until runtime.NumGoroutine() stays the same for 3 polls in a row (sleeps of 100 µs, 200 µs,
 * … doubling), or for at most the bound in ms the environment variable `settleEnv` gives
 * (DEFAULT_SETTLE_MS without one). `prefix` is the aliases' prefix of the file it goes into
 * ("schedlabHarness": schedlabHarnessTime, schedlabHarnessOS, …). No min builtin: it
 * compiles at the user module's language version.
 */
export function settleLoopGo(prefix: string, settleEnv: string): string {
  return `\tbound := ${DEFAULT_SETTLE_MS} * ${prefix}Time.Millisecond
\tif ms, err := ${prefix}Strconv.Atoi(${prefix}OS.Getenv("${settleEnv}")); err == nil && ms >= 0 {
\t\tbound = ${prefix}Time.Duration(ms) * ${prefix}Time.Millisecond
\t}
\tend := ${prefix}Time.Now().Add(bound)
\tsleep := 100 * ${prefix}Time.Microsecond
\tlast, same := ${prefix}Runtime.NumGoroutine(), 0
\tfor same < 3 {
\t\tleft := ${prefix}Time.Until(end)
\t\tif left <= 0 {
\t\t\treturn
\t\t}
\t\tif sleep > left {
\t\t\tsleep = left
\t\t}
\t\t${prefix}Time.Sleep(sleep)
\t\tsleep *= 2
\t\tif n := ${prefix}Runtime.NumGoroutine(); n == last {
\t\t\tsame++
\t\t} else {
\t\t\tlast, same = n, 0
\t\t}
\t}`;
}
