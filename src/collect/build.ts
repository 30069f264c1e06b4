// Builds a program once: `go build` with the harness overlay for main packages,
// `go test -c` for test packages. A build failure is a result, never an exception.

import { execa } from "execa";
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { buildEnvironment } from "./env.js";
import { writeHarnessOverlay, type Overlay } from "./harness.js";
import type { GoToolchain } from "./toolchain.js";
import type { BuildResult, ProgramKind } from "./types.js";

/** Compiler output kept per build: the tail, which holds the errors that matter. */
const BUILD_OUTPUT_CAP = 64 * 1024;
/** A build that takes longer is stuck (e.g. a module download hanging). */
const BUILD_TIMEOUT_MS = 10 * 60_000;

/** What to build: a package directory as a main program (with harness) or as a test binary. */
export interface BuildTarget {
  readonly dir: string;
  readonly kind: ProgramKind;
  readonly goFiles: readonly string[];
}

/** Whether `dir` is inside a Go module (a go.mod in it or an ancestor). */
export function insideModule(dir: string): boolean {
  for (let current = dir; ; current = dirname(current)) {
    if (existsSync(join(current, "go.mod"))) return true;
    if (dirname(current) === current) return false;
  }
}

/**
 * Builds `target` into `scratch`/bin. `scratch` must be a fresh directory owned by the
 * caller; it also holds the overlay files. Aborting `signal` kills the build.
 */
export async function buildProgram(target: BuildTarget, go: GoToolchain, scratch: string, signal?: AbortSignal): Promise<BuildResult> {
  mkdirSync(scratch, { recursive: true });
  const binary = join(scratch, "bin");
  const args = target.kind === "main" ? ["build"] : ["test", "-c"];
  let overlay: Overlay = { Replace: {} };
  if (target.kind === "main") {
    try {
      const written = await writeHarnessOverlay(target.dir, target.goFiles, scratch);
      overlay = written.overlay;
      args.push("-overlay", written.overlayFile);
    } catch (error) {
      return { status: "error", binary: null, output: `cannot prepare the tracing harness: ${(error as Error).message}` };
    }
  }
  // -s -w drop the symbol table and DWARF, which makes linking faster; stack traces and
  // the trace's stacks come from the runtime's own tables and keep names and lines.
  args.push("-ldflags=-s -w", "-o", binary, ".");
  const result = await execa("go", args, {
    cwd: target.dir,
    env: buildEnvironment(go, { inModule: insideModule(target.dir), tmpdir: scratch }),
    extendEnv: false,
    reject: false,
    all: true,
    timeout: BUILD_TIMEOUT_MS,
    cancelSignal: signal,
    stdin: "ignore",
  });
  const output = tail(originalPaths(result.all ?? "", overlay), BUILD_OUTPUT_CAP);
  if (result.exitCode === 0 && existsSync(binary)) return { status: "ok", binary, output };
  const why = result.timedOut ? `go ${args[0]} did not finish within ${BUILD_TIMEOUT_MS / 60_000} minutes\n` : "";
  return { status: "error", binary: null, output: why + (output === "" ? (result.message ?? "build failed") : output) };
}

/**
 * Compiler messages name the overlay copies; the copies keep every line where it was,
 * so naming the user's files instead gives correct file:line positions.
 */
export function originalPaths(output: string, overlay: Overlay): string {
  let text = output;
  for (const [original, copy] of Object.entries(overlay.Replace)) text = text.split(copy).join(original);
  return text;
}

function tail(text: string, cap: number): string {
  return text.length <= cap ? text : text.slice(text.length - cap);
}
