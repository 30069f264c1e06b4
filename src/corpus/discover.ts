// Finds the Go programs under a directory: every package directory that is either a
// `main` package (kind "main") or has `_test.go` files with `TestXxx` functions ("test").

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { MANIFEST_FILE } from "./manifest.js";

export type ProgramKind = "main" | "test";

/** A program directory found on disk; `manifestPath` is null for unlabelled programs. */
export interface DiscoveredProgram {
  /** Path relative to the scanned root, with "/" separators ("." for the root itself). */
  readonly name: string;
  readonly dir: string;
  /** null when the directory has a manifest but no runnable Go package. */
  readonly kind: ProgramKind | null;
  readonly goFiles: readonly string[];
  readonly manifestPath: string | null;
}

/** Directories Go itself ignores, plus hidden ones and node_modules. */
function isSkippedDir(name: string): boolean {
  return name === "testdata" || name === "vendor" || name === "node_modules" || name.startsWith(".") || name.startsWith("_");
}

/** Classifies a package from its sources: a main package wins over its tests. */
export function programKind(sources: ReadonlyMap<string, string>): ProgramKind | null {
  let hasTests = false;
  for (const [file, text] of sources) {
    if (file.endsWith("_test.go")) {
      if (/^func\s+Test[A-Z0-9_]\w*\s*\(\s*\w+\s+\*testing\.T\s*\)/m.test(text)) hasTests = true;
    } else if (/^package\s+main\b/m.test(text) && /^func\s+main\s*\(\s*\)/m.test(text)) {
      return "main";
    }
  }
  return hasTests ? "test" : null;
}

/** Walks `root` and returns its programs sorted by name; directories with neither a program nor a manifest are skipped. */
export function discoverPrograms(root: string): DiscoveredProgram[] {
  const found: DiscoveredProgram[] = [];
  const visit = (dir: string): void => {
    const entries = readdirSync(dir, { withFileTypes: true });
    const goFiles = entries.filter((e) => e.isFile() && e.name.endsWith(".go")).map((e) => e.name).sort();
    const hasManifest = entries.some((e) => e.isFile() && e.name === MANIFEST_FILE);
    const sources = new Map(goFiles.map((file) => [file, readFileSync(join(dir, file), "utf8")] as const));
    const kind = programKind(sources);
    if (kind !== null || hasManifest) {
      const name = relative(root, dir).split(sep).join("/") || ".";
      found.push({ name, dir, kind, goFiles, manifestPath: hasManifest ? join(dir, MANIFEST_FILE) : null });
    }
    for (const entry of entries) {
      if (entry.isDirectory() && !isSkippedDir(entry.name)) visit(join(dir, entry.name));
    }
  };
  if (!statSync(root).isDirectory()) return [];
  visit(root);
  return found.sort((a, b) => a.name.localeCompare(b.name));
}
