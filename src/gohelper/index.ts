// Builds and caches the Go helper binary (the Go module in src/gohelper and its packages).
// The binary is cached outside the repository tree, keyed by a hash of the helper's sources
// and the Go version, so it is rebuilt exactly when either changes. Concurrent builders are safe:
// each builds to a temporary name and renames into place.

import { execa } from "execa";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SchedlabError } from "../errors.js";
import { goEnv } from "../go/index.js";

/** The helper's Go sources; the same relative path from src/gohelper and dist/gohelper. */
export const GOHELPER_SOURCE_DIR = fileURLToPath(new URL("../../src/gohelper/", import.meta.url));

export class GoHelperBuildError extends SchedlabError {}

/** Where built helpers are cached: $SCHEDLAB_CACHE, else $XDG_CACHE_HOME/schedlab, else ~/.cache/schedlab. */
export function schedlabCacheDir(): string {
  const explicit = process.env.SCHEDLAB_CACHE;
  if (explicit) return explicit;
  const xdg = process.env.XDG_CACHE_HOME;
  return join(xdg && xdg !== "" ? xdg : join(homedir(), ".cache"), "schedlab");
}

let building: Promise<string> | undefined;

/** Returns the path of an up-to-date helper binary, building it if needed. */
export function goHelperPath(): Promise<string> {
  building ??= buildGoHelper().catch((error: unknown) => {
    building = undefined;
    throw error;
  });
  return building;
}

async function buildGoHelper(): Promise<string> {
  // Keyed as `go version` prints it ("go version go1.26.8 linux/amd64"), so caches built before stay valid.
  const go = await goEnv(["GOVERSION", "GOOS", "GOARCH"]);
  const hash = sourceHash(`go version ${go.GOVERSION} ${go.GOOS}/${go.GOARCH}`);
  const dir = join(schedlabCacheDir(), "gohelper");
  const binary = join(dir, `gohelper-${hash}`);
  if (existsSync(binary)) return binary;
  mkdirSync(dir, { recursive: true });
  const temporary = `${binary}.tmp-${process.pid}-${Date.now()}`;
  const result = await execa("go", ["build", "-trimpath", "-o", temporary, "."], {
    cwd: GOHELPER_SOURCE_DIR,
    reject: false,
    all: true,
  });
  if (result.exitCode !== 0) {
    rmSync(temporary, { force: true });
    throw new GoHelperBuildError(
      `the Go helper in ${GOHELPER_SOURCE_DIR} did not build:\n${result.all ?? ""}`,
      "Check that Go ≥ 1.22 is on PATH and the Go module proxy is reachable (the helper needs golang.org/x/exp); `schedlab doctor` shows what is missing.",
    );
  }
  renameSync(temporary, binary);
  return binary;
}

function sourceHash(goVersion: string): string {
  const hash = createHash("sha256").update(goVersion);
  for (const name of binarySources(GOHELPER_SOURCE_DIR, "")) {
    hash
      .update(name)
      .update("\0")
      .update(readFileSync(join(GOHELPER_SOURCE_DIR, name)))
      .update("\0");
  }
  return hash.digest("hex").slice(0, 16);
}

/**
 * The files the binary is built from, as sorted paths relative to the module root: go.mod,
 * go.sum and the non-test .go files of every package below it. testdata directories (the
 * decoder's test traces and programs) and _test.go files do not go into the binary.
 */
function binarySources(root: string, relative: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(join(root, relative), { withFileTypes: true })) {
    const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name !== "testdata" && !entry.name.startsWith(".") && !entry.name.startsWith("_")) {
        files.push(...binarySources(root, path));
      }
    } else if (
      entry.name.endsWith(".go") ? !entry.name.endsWith("_test.go") : relative === "" && isModuleFile(entry.name)
    ) {
      files.push(path);
    }
  }
  return files.sort();
}

function isModuleFile(name: string): boolean {
  return name === "go.mod" || name === "go.sum";
}
