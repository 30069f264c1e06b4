// Checks that a manifest's expected creation sites ("file.go:LINE") point at `go` statements.

/** Strips a trailing `//` comment and the contents of string literals, so only code is matched. */
function codeOf(line: string): string {
  return line
    .replace(/"(?:[^"\\]|\\.)*"|`[^`]*`|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\/\/.*$/, "");
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
  if (!hasGoStatement(lines[line - 1])) return `site ${site} is not a go statement: ${JSON.stringify(lines[line - 1].trim())}`;
  return null;
}
