// Checks that a manifest's expected creation sites ("file.go:LINE") point at `go` statements.

/** Strips a trailing `//` comment and the contents of string literals, so only code is matched. */
function codeOf(line: string): string {
  return line.replace(/"(?:[^"\\]|\\.)*"|`[^`]*`|'(?:[^'\\]|\\.)*'/g, '""').replace(/\/\/.*$/, "");
}

/** True when the source line contains a `go` statement (`go f(x)`, `go func() {`, `go s.run()`). */
export function hasGoStatement(line: string): boolean {
  return /(^|[\s;{}])go\s+(func\b|[A-Za-z_(])/.test(codeOf(line));
}

/**
 * Returns the problem with `site` in a program whose files are given by `readFile`
 * (which returns null for a missing file), or null when the site is a `go` statement.
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
  if (!hasGoStatement(lines[line - 1]))
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
