// schedlab's own version, read once from package.json (one directory above src/ and dist/).

import { readFileSync } from "node:fs";

/** The version in package.json; part of every pipeline stage's input hash. */
export const SCHEDLAB_VERSION: string = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
).version;
