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

/**
 * What one t.Run call names its subtests: one name for every call (a literal, or an
 * expression shown in braces), or, for `t.Run(tt.name, …)` in a loop over a table written in
 * the source, the name of each row in order (tableSubtestNames).
 */
export type SubtestNaming = string | readonly string[];

/**
 * The name the testing package gives the subtest of the `ordinal`-th goroutine a t.Run call
 * started under one parent: its row's name (or the one name), with testing's "#01", "#02", …
 * for a name already taken by an earlier call. A name from an expression the source does not
 * resolve is no name `-run` can select, so it says which call it was inside its braces
 * ("{tt.name #2}") rather than borrow testing's suffix.
 */
export function subtestName(naming: SubtestNaming, ordinal: number): string {
  const rows = typeof naming === "string" ? null : naming;
  const base = rows === null ? (naming as string) : rows[ordinal];
  if (base === undefined || base.startsWith("{")) {
    const shown = base ?? "{?}";
    return ordinal === 0 ? shown : `${shown.slice(0, -1)} #${ordinal + 1}}`;
  }
  const taken = rows === null ? ordinal : rows.slice(0, ordinal).filter((r) => r === base).length;
  return taken === 0 ? base : `${base}#${String(taken).padStart(2, "0")}`;
}

/** A Go string literal ("…" or `…`) at the start of `text`, as its value; null when none. */
function stringLiteral(text: string): string | null {
  const m = /^\s*("(?:[^"\\\n]|\\.)*"|`[^`]*`)/.exec(text);
  if (m === null) return null;
  return m[1].startsWith("`") ? m[1].slice(1, -1) : (JSON.parse(m[1]) as string);
}

/**
 * The brace groups of Go text at its top level, strings, runes and line comments skipped:
 * the inside of each group opened at depth 0 (`groups`), and the text at depth 0 with every
 * group removed (`flat`). Stops at a "}" that closes more than it opened.
 */
function braceGroups(text: string): { groups: string[]; flat: string } {
  const groups: string[] = [];
  let flat = "";
  let depth = 0;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'" || c === "`") {
      const end = c === "`" ? text.indexOf("`", i + 1) : skipQuoted(text, i, c);
      if (depth === 0) flat += text.slice(i, end + 1);
      i = end < 0 ? text.length : end;
      continue;
    }
    if (c === "/" && text[i + 1] === "/") {
      const end = text.indexOf("\n", i);
      i = end < 0 ? text.length : end - 1;
      continue;
    }
    if (c === "{") {
      if (depth === 0) start = i + 1;
      depth++;
    } else if (c === "}") {
      depth--;
      if (depth === 0) groups.push(text.slice(start, i));
      if (depth < 0) break;
    } else if (depth === 0) flat += c;
  }
  return { groups, flat };
}

function skipQuoted(text: string, at: number, quote: string): number {
  for (let i = at + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === quote || text[i] === "\n") return i;
  }
  return text.length;
}

/** The literal `field` of one table row (`{name: "burst", n: 3}`, or `{"burst", 3}` with the struct's field order); null when not a literal. */
function rowField(row: string, field: string, fields: readonly string[] | null): string | null {
  const { flat } = braceGroups(row);
  const keyed = new RegExp(`(?:^|[,\\s])${field}\\s*:`).exec(flat);
  if (keyed !== null) return stringLiteral(flat.slice(keyed.index + keyed[0].length));
  if (/^\s*\w+\s*:/.test(flat) || fields === null) return null;
  const index = fields.indexOf(field);
  const parts = flat.split(",");
  return index < 0 || index >= parts.length ? null : stringLiteral(parts[index]);
}

/** How far above a t.Run call its range loop is looked for. */
const LOOP_LINES = 40;

/**
 * The subtest names of `t.Run(ROW.FIELD, …)` at line `callLine` (1-based) of a _test.go file
 * (`lines`), when the call sits in `for _, ROW := range TABLE` and TABLE is a slice literal in
 * the same file whose rows give FIELD as a string literal: one name per row in order, as the
 * testing package rewrites them ("burst of 3" → "burst_of_3"). Null when any step is not so
 * (a map, whose order is random; a row built by a call; a table from elsewhere).
 */
export function tableSubtestNames(lines: readonly string[], callLine: number, expr: string): string[] | null {
  const m = /^(\w+)\.(\w+)$/.exec(expr.trim());
  if (m === null) return null;
  const [, row, field] = m;
  let table: string | null = null;
  let loopLine = -1;
  for (let i = callLine - 1; i >= Math.max(0, callLine - 1 - LOOP_LINES) && table === null; i--) {
    const loop = new RegExp(`\\bfor\\s+\\w+\\s*,\\s*${row}\\s*:=\\s*range\\s+(\\w+)\\s*\\{`).exec(lines[i] ?? "");
    if (loop !== null) [table, loopLine] = [loop[1], i];
  }
  if (table === null) return null;
  const definition = new RegExp(`\\b${table}\\s*(?::=|=)\\s*`);
  let at = -1;
  for (let i = loopLine; i >= 0 && at < 0; i--) if (definition.test(lines[i])) at = i;
  if (at < 0) at = lines.findIndex((l) => definition.test(l));
  if (at < 0) return null;
  const text = lines.slice(at).join("\n");
  let rest = text.slice((definition.exec(text)?.index ?? 0) + (definition.exec(text)?.[0].length ?? 0));
  if (!rest.startsWith("[]")) return null;
  rest = rest.slice(2).replace(/^\*/, "");
  let fields: string[] | null = null;
  if (/^struct\s*\{/.test(rest)) {
    const { groups } = braceGroups(rest);
    const body = groups[0] ?? "";
    fields = body
      .split(/[;\n]/)
      .map((l) => l.trim())
      .filter((l) => l !== "" && !l.startsWith("//"))
      .flatMap((l) => {
        const names = /^([\w\s,]+?)\s+\S+$/.exec(l);
        return names === null ? [] : names[1].split(",").map((n) => n.trim());
      });
    rest = rest.slice(rest.indexOf("{") + body.length + 2);
  }
  const open = rest.indexOf("{");
  if (open < 0 || !/^[\w.]*\s*$/.test(rest.slice(0, open))) return null;
  const literal = braceGroups(rest.slice(open)).groups[0];
  if (literal === undefined) return null;
  const names: string[] = [];
  for (const element of braceGroups(literal).groups) {
    const name = rowField(element, field, fields);
    if (name === null) return null;
    names.push(rewriteSubtestName(name));
  }
  return names.length > 0 ? names : null;
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
 * `subtestAt(siteKey)` names them (the site is a t.Run call); the segment's ordinal picks
 * its name (subtestName): a table's row, or testing's "#01" suffix for a repeated name.
 * Null for a goroutine that is not under a test root.
 */
export function placeInTest(
  canonicalId: string,
  subtestAt: (siteKey: string) => SubtestNaming | null,
): TestPlacement | null {
  const { root, segments } = splitCanonicalId(canonicalId);
  const test = testOfRoot(root);
  if (test === null) return null;
  const names = [test];
  let i = 0;
  for (; i < segments.length; i++) {
    const naming = subtestAt(segments[i].siteKey);
    if (naming === null) break;
    names.push(subtestName(naming, segments[i].ordinal));
  }
  return { test: names.join("/"), below: segments.slice(i) };
}
