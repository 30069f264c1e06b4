// Function names of packages built outside any module: Go names such a package by its
// absolute directory, "_/home/me/kernels/pool.(*Pool).Go". Decoded sites and entries name
// it relative to the root given to collect instead ("pool.(*Pool).Go"), so no machine path
// reaches a finding, a report or a training feature. Pure.

import { basename, posix, relative, resolve } from "node:path";

/** A package path outside a module: "_" and an absolute directory, at the start of a name or after a separator. */
const LOOSE_PACKAGE = /(^|[\s[\](){},*])_(\/[^\s[\](){},*]*)/g;

/**
 * The package directory `abs` as a path relative to `root`, "/"-separated; the root's own
 * base name when it is the root itself (as program names are formed, docs/collect.md).
 */
function relativePackage(abs: string, root: string): string {
  const rel = relative(root, abs);
  return rel === "" ? basename(root) : rel;
}

/**
 * `text` with every outside-a-module package path made relative to `root` (an absolute
 * directory, or resolved against the working directory). In a Go symbol the package path
 * ends at the first "." after its last "/" (dots in the last element are escaped as %2e):
 * "_/r/kernels/pool.(*Pool).Go pool.go:10" with root "/r/kernels" → "pool.(*Pool).Go pool.go:10".
 * Text without such a path is returned as is.
 */
export function relativePackagePaths(text: string, root: string): string {
  if (!text.includes("_/")) return text;
  const base = resolve(root);
  return text.replace(LOOSE_PACKAGE, (_match, before: string, token: string) => {
    const slash = token.lastIndexOf("/");
    const dot = token.indexOf(".", slash);
    const directory = dot < 0 ? token : token.slice(0, dot);
    return `${before}${relativePackage(posix.normalize(directory), base)}${dot < 0 ? "" : token.slice(dot)}`;
  });
}
