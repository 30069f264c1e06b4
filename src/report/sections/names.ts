// Short names of functions and sites for the leak tables and bug views: the last path
// component, so a row stays readable ("pkg/x.(*T).run" → "x.(*T).run").

import { MISSING, shortFunction } from "../../core/index.js";

/**
 * Each word of a function or site shortened: a function named by its package as Go names it
 * (shortFunction: "pkg/x.(*T).run" → "x.(*T).run", "github.com/a/ring/v2.(*Ring).send" →
 * "ring.(*Ring).send"), a file path by its base name ("/a/b/x.go:3" → "x.go:3").
 */
export function shortName(text: string | null): string {
  if (text === null) return MISSING;
  return text
    .split(" ")
    .map((part) =>
      /\.go:\d+$/.test(part) || !part.includes(".") ? part.slice(part.lastIndexOf("/") + 1) : shortFunction(part),
    )
    .join(" ");
}

/** "pkg.f /x/y/file.go:12" → "file.go:12": where the function is already named, the line is enough. */
export function siteFile(site: string | null): string {
  if (site === null) return MISSING;
  const token = site.split(" ").pop()!;
  return token.slice(token.lastIndexOf("/") + 1);
}
