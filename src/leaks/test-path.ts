// Which test and subtest a goroutine belongs to, as `go test -run` names it
// ("TestPool/go_without_wait/before_wait"), from its canonical id: a subtest runs in a
// goroutine that t.Run creates, so its segment's creation site is the user's `t.Run(…)`
// line, whose first argument names it. Pure: the source lines come from a lookup.

/** One `parent/entry@file:line#ordinal` step of a canonical id below its root. */
export interface IdSegment {
  readonly entry: string;
  /** "file.go:LINE" of the `go` statement (for a subtest: the t.Run call). */
  readonly siteKey: string;
  readonly ordinal: number;
}

/** A canonical id split into its root and the segments below it. */
export interface SplitId {
  readonly root: string;
  readonly segments: readonly IdSegment[];
}

const SEGMENT = /^(.+?)@([^@#/]+:\d+)#(\d+)(?:\/|$)/;
/** The middle of a chain too deep to write out: "…{<count> steps:<hash>}" (docs/identity.md). */
const ELIDED = /^(…\{\d+ steps:[0-9a-f]+\})(?:\/|$)/;

/**
 * Splits a canonical id (docs/identity.md); the roots "(pre-trace)/entry#k" and "(orphan)"
 * are kept whole. The elided middle of a deep chain is one segment whose entry is the
 * marker, with no site ("") and ordinal 0.
 */
export function splitCanonicalId(id: string): SplitId {
  const special = /^\((?:pre-trace|orphan)\)(?:\/[^/@]*#\d+(?=\/|$))?/.exec(id);
  const slash = id.indexOf("/");
  const root = special !== null ? special[0] : slash < 0 ? id : id.slice(0, slash);
  let rest = id.slice(root.length).replace(/^\//, "");
  const segments: IdSegment[] = [];
  for (;;) {
    const elided = ELIDED.exec(rest);
    if (elided !== null) {
      segments.push({ entry: elided[1], siteKey: "", ordinal: 0 });
      rest = rest.slice(elided[0].length);
      continue;
    }
    const m = SEGMENT.exec(rest);
    if (m === null) break;
    segments.push({ entry: m[1], siteKey: m[2], ordinal: Number(m[3]) });
    rest = rest.slice(m[0].length);
  }
  return { root, segments };
}

/**
 * A test root's name: "TestPool", "TestPool#1" (a -test.count repetition) → "TestPool";
 * "ExampleCache" likewise (`go test -run` selects examples too); null for other roots,
 * TestMain among them (what it starts belongs to no test).
 */
export function testOfRoot(root: string): string | null {
  const m = /^(Test\w*|Example\w*|\(test\))(?:#\d+)?$/.exec(root);
  return m === null || m[1] === "TestMain" ? null : m[1];
}

/**
 * The name `t.Run` gives a subtest from the source at its call: a string literal is
 * rewritten as the testing package does (spaces become "_"); any other expression is shown
 * in braces ("{tc.name}"). `source` is the call line and the few after it (a call may
 * span lines). Null when the text is not a `.Run(` call.
 */
export function subtestNameInSource(source: string): string | null {
  const m = /\.Run\(\s*("(?:[^"\\\n]|\\.)*"|`[^`]*`|[^,()]+(?:\([^()]*\))?[^,()]*)\s*,/.exec(source);
  if (m === null) return null;
  const arg = m[1].trim();
  if (arg.startsWith('"')) return rewriteSubtestName(JSON.parse(arg) as string);
  if (arg.startsWith("`")) return rewriteSubtestName(arg.slice(1, -1));
  return `{${arg}}`;
}

/** testing's rewrite of a subtest name: spaces to underscores, other non-printing characters escaped. */
export function rewriteSubtestName(name: string): string {
  let out = "";
  for (const c of name) {
    if (/\s/.test(c)) out += "_";
    else if (/[\p{L}\p{N}\p{P}\p{S}]/u.test(c)) out += c;
    else out += JSON.stringify(c).slice(1, -1);
  }
  return out;
}

/** Where a goroutine sits in its test: the test path and the goroutines below the last subtest. */
export interface TestPlacement {
  /** "TestPool/go_without_wait/before_wait". */
  readonly test: string;
  /** The id's segments after the last subtest: the goroutine chain inside it ([] for the (sub)test's own goroutine). */
  readonly below: readonly IdSegment[];
}

/**
 * Places a canonical id in its test. Segments from the root down are subtests as long as
 * `subtestAt(siteKey)` names one (the site is a t.Run call); a repeated subtest (a second
 * t.Run of the same name from one line) gets testing's "#01" suffix from its ordinal.
 * Null for a goroutine that is not under a test root.
 */
export function placeInTest(canonicalId: string, subtestAt: (siteKey: string) => string | null): TestPlacement | null {
  const { root, segments } = splitCanonicalId(canonicalId);
  const test = testOfRoot(root);
  if (test === null) return null;
  const names = [test];
  let i = 0;
  for (; i < segments.length; i++) {
    const name = subtestAt(segments[i].siteKey);
    if (name === null) break;
    const ordinal = segments[i].ordinal;
    names.push(ordinal === 0 ? name : `${name}#${String(ordinal).padStart(2, "0")}`);
  }
  return { test: names.join("/"), below: segments.slice(i) };
}
