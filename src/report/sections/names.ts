// Short names of functions and sites for the leak tables and bug views: the last path
// component, so a row stays readable ("pkg/x.(*T).run" → "x.(*T).run").

import { MISSING } from "../../core/index.js";

/** The last path component of each word of a function or site: "pkg/x.(*T).run /a/b/x.go:3" → "x.(*T).run x.go:3". */
export function shortName(text: string | null): string {
  if (text === null) return MISSING;
  return text
    .split(" ")
    .map((part) => part.slice(part.lastIndexOf("/") + 1))
    .join(" ");
}

/** "pkg.f /x/y/file.go:12" → "file.go:12": where the function is already named, the line is enough. */
export function siteFile(site: string | null): string {
  if (site === null) return MISSING;
  const token = site.split(" ").pop()!;
  return token.slice(token.lastIndexOf("/") + 1);
}
