// Corpus files (`--corpus-file`): modules of the Go module proxy pinned by version, in TSV
// (a header naming the columns module, version and optionally exclude_packages; "#" lines are
// comments) or JSON ([{ "module", "version", "exclude"? }]). Pure: text in, module sources out.

import { readFileSync } from "node:fs";
import { UsageError } from "../errors.js";
import type { ModuleSource } from "./module-source.js";

/**
 * The module sources a corpus file lists, each with all its packages ("/...") but the
 * excluded ones. A row without a module path or a "v" version is a UsageError naming it.
 *
 * @example parseCorpusFile("module\tversion\ngithub.com/oklog/run\tv1.2.0\n", "c.tsv")[0]?.arg // => "github.com/oklog/run@v1.2.0/..."
 */
export function parseCorpusFile(text: string, name: string): ModuleSource[] {
  const rows = text.trimStart().startsWith("[") ? jsonRows(text, name) : tsvRows(text, name);
  return rows.map((row, i) => {
    if (!/^[^@\s]+$/.test(row.module) || !/^v\S+$/.test(row.version))
      throw new UsageError(
        `${name}: entry ${i + 1} (${row.module} ${row.version}) is not a module path and version`,
        "List each module by its path and a version the module proxy serves, e.g. github.com/oklog/run v1.2.0.",
      );
    return {
      arg: `${row.module}@${row.version}/...`,
      module: row.module,
      version: row.version,
      subdir: "",
      exclude: row.exclude,
    };
  });
}

/** Reads and parses a corpus file. */
export function readCorpusFile(path: string): ModuleSource[] {
  return parseCorpusFile(readFileSync(path, "utf8"), path);
}

interface Row {
  readonly module: string;
  readonly version: string;
  readonly exclude: readonly string[];
}

function tsvRows(text: string, name: string): Row[] {
  const lines = text.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("#"));
  const header = (lines.shift() ?? "").split("\t").map((c) => c.trim());
  const column = (c: string): number => header.indexOf(c);
  if (column("module") < 0 || column("version") < 0)
    throw new UsageError(
      `${name}: the header names no module and version columns`,
      "Begin a TSV corpus file with a header line such as: module<TAB>version<TAB>exclude_packages.",
    );
  return lines.map((line) => {
    const cells = line.split("\t").map((c) => c.trim());
    const exclude = column("exclude_packages") < 0 ? "-" : (cells[column("exclude_packages")] ?? "-");
    return {
      module: cells[column("module")] ?? "",
      version: cells[column("version")] ?? "",
      exclude: exclude === "-" || exclude === "" ? [] : exclude.split(",").map((e) => e.trim()),
    };
  });
}

function jsonRows(text: string, name: string): Row[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `${name} is not valid JSON: ${(error as Error).message}`,
      "Write a JSON array of { module, version }.",
    );
  }
  if (!Array.isArray(parsed))
    throw new UsageError(`${name} is not a JSON array`, "Write a JSON array of { module, version }.");
  return parsed.map((entry: unknown) => {
    const e = (typeof entry === "object" && entry !== null ? entry : {}) as Record<string, unknown>;
    return {
      module: typeof e.module === "string" ? e.module : "",
      version: typeof e.version === "string" ? e.version : "",
      exclude: Array.isArray(e.exclude) ? e.exclude.filter((x): x is string => typeof x === "string") : [],
    };
  });
}
