// Go symbol names as a reader scans them: a function's package path cut at the right place
// and its package named as Go names it, never by a module's major-version suffix. Pure.

/** A Go symbol ("example.com/m/pool.(*Pool).Get") split into its package path and the rest (".(*Pool).Get"). */
export function splitSymbol(fn: string): { readonly packagePath: string; readonly rest: string } {
  // A receiver or type argument may hold a "/" of its own ("pkg.F[example.com/x.T]"): the
  // package path ends at the first "." after the last "/" before them.
  const open = fn.search(/[([]/);
  const slash = fn.lastIndexOf("/", open < 0 ? fn.length : open);
  const dot = fn.indexOf(".", slash + 1);
  return dot < 0 ? { packagePath: fn, rest: "" } : { packagePath: fn.slice(0, dot), rest: fn.slice(dot) };
}

/** A major-version suffix of a module path element: "v2", "v3", … (Go modules reference, "Major version suffixes"). */
const MAJOR_VERSION = /^v\d+$/;
/** A gopkg.in version on the last element ("yaml.v3", escaped in symbols as "yaml%2ev3"). */
const GOPKG_VERSION = /(?:\.|%2e)v\d+$/i;

/**
 * The name Go gives the package at `path` when its clause is not known: the last element
 * that is not a major-version suffix, without a gopkg.in version — as `go` and goimports
 * name an import: "github.com/x/yaml/v3" → "yaml", "gopkg.in/yaml.v3" → "yaml",
 * "example.com/m/pool" → "pool".
 */
export function packageName(path: string): string {
  const elements = path.split("/");
  let last = elements.pop() ?? path;
  if (MAJOR_VERSION.test(last) && elements.length > 0) last = elements.pop() ?? last;
  return last.replace(GOPKG_VERSION, "");
}

/**
 * A function name without its package path, the package named by packageName:
 * "example.com/m/pool.(*Pool).Get" → "pool.(*Pool).Get", "github.com/x/yaml/v3.Unmarshal"
 * → "yaml.Unmarshal". A name without a package path is returned as is.
 */
export function shortFunction(fn: string): string {
  const { packagePath, rest } = splitSymbol(fn);
  if (rest === "") return fn;
  return `${packageName(packagePath)}${rest}`;
}
