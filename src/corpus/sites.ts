// Checks that a manifest's expected creation sites ("file.go:LINE") point at `go` statements,
// or at the user's call into the standard library that started the goroutine there.

/** Strips a trailing `//` comment and the contents of string literals, so only code is matched. */
function codeOf(line: string): string {
  return line.replace(/"(?:[^"\\]|\\.)*"|`[^`]*`|'(?:[^'\\]|\\.)*'/g, '""').replace(/\/\/.*$/, "");
}

/** True when the source line contains a `go` statement (`go f(x)`, `go func() {`, `go s.run()`). */
export function hasGoStatement(line: string): boolean {
  return /(^|[\s;{}])go\s+(func\b|[A-Za-z_(])/.test(codeOf(line));
}

/**
 * The names a Go file's standard-library imports are used by: the alias, else the path's
 * last element ("httptest" for "net/http/httptest", "rand" for "math/rand/v2"). A path is
 * the standard library's when its first element has no dot (docs/identity.md), "C" excepted.
 */
export function standardLibraryImports(text: string): Set<string> {
  const names = new Set<string>();
  const specs: string[] = [];
  for (const block of text.matchAll(/^import\s*\(([^)]*)\)/gm)) specs.push(...block[1].split("\n"));
  for (const single of text.matchAll(/^import\s+((?:[\w.]+\s+)?"[^"]*")/gm)) specs.push(single[1]);
  for (const spec of specs) {
    const match = /^\s*([\w.]+\s+)?"([^"]+)"/.exec(spec);
    if (match === null) continue;
    const [, alias, path] = match;
    if (path === "C" || path.split("/")[0].includes(".")) continue;
    const name =
      alias?.trim() ??
      path
        .split("/")
        .filter((part) => !/^v\d+$/.test(part))
        .pop();
    if (name !== undefined && name !== "_" && name !== ".") names.add(name);
  }
  return names;
}

/**
 * True when the line calls a function of a standard-library package the file imports
 * (`httptest.NewServer(h)`): a goroutine started inside the standard library has that call,
 * the top user frame of its creator's stack, as its creation site.
 */
export function callsStandardLibrary(line: string, imports: ReadonlySet<string>): boolean {
  return [...codeOf(line).matchAll(/(?:^|[^\w.])(\w+)\.[A-Z]\w*\s*\(/g)].some((m) => imports.has(m[1]));
}

/**
 * Returns the problem with `site` in a program whose files are given by `readFile`
 * (which returns null for a missing file), or null when the site is a `go` statement or a
 * call into the standard library (which may start the goroutine, e.g. `httptest.NewServer`).
 */
export function siteProblem(site: string, readFile: (file: string) => string | null): string | null {
  const match = /^(.+\.go):(\d+)$/.exec(site);
  if (match === null) return `site ${JSON.stringify(site)} is not "file.go:LINE"`;
  const [, file, lineText] = match;
  const text = readFile(file);
  if (text === null) return `site ${site}: ${file} does not exist in the program directory`;
  const lines = text.split("\n");
  const line = Number(lineText);
  if (line < 1 || line > lines.length) return `site ${site}: ${file} has only ${lines.length} lines`;
  const code = lines[line - 1];
  if (!hasGoStatement(code) && !callsStandardLibrary(code, standardLibraryImports(text)))
    return `site ${site} is not a go statement: ${JSON.stringify(lines[line - 1].trim())}`;
  return null;
}

/**
 * The name of the top-level function declaration enclosing 1-based `line`, as the Go
 * runtime prints it without the package: "main", "fetchQuote", "(*Pool).Start",
 * "Pool.Size", "Set[...].Each". Null when the line is not inside a function declaration.
 */
export function enclosingFunction(text: string, line: number): string | null {
  const lines = text.split("\n");
  for (let i = Math.min(line, lines.length) - 1; i >= 0; i--) {
    const decl = /^func\s+(?:\(\s*(?:\w+\s+)?(\*?)\s*(\w+)(\[[^\]]*\])?\s*\)\s*)?(\w+)/.exec(lines[i]);
    if (decl !== null) {
      const [, pointer, receiver, typeParams, name] = decl;
      if (receiver === undefined) return name;
      // The runtime prints a generic receiver's type arguments as "[...]".
      const type = typeParams === undefined ? receiver : `${receiver}[...]`;
      return pointer === "*" ? `(*${type}).${name}` : `${type}.${name}`;
    }
    // A closing brace in column 0 ends the previous top-level declaration.
    if (i < line - 1 && /^\}/.test(lines[i])) return null;
  }
  return null;
}

/**
 * True when `creator` (e.g. "main.(*Pool).Start", "main.main.func2",
 * "example.com/x/y.TestZ.func1.1") names function `declared` or a closure inside it.
 */
export function creatorMatches(creator: string, declared: string): boolean {
  const escaped = declared.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(^|[./])${escaped}(\\[[^\\]]*\\])?(\\.func\\d+(\\.\\d+)*)?$`).test(creator);
}
