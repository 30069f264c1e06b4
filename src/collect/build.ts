// Builds a program once: `go build` with the harness overlay for main packages,
// `go test -c` for test packages. A build failure is a result, never an exception.

import { execa } from "execa";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { basename, join, relative, sep } from "node:path";
import type { BuildTarget as ProgramTarget } from "../corpus/index.js";
import { buildEnvironment, goCommandOf, insideModule, moduleRoot, type GoToolchain } from "../go/index.js";
import { leakProfileBuildEnv, writeAgentTestOverlay } from "./agent-overlay.js";
import { writeHarnessOverlay, type Overlay } from "./harness.js";
import { preparePeerBuild, writePeerChecks, type Peer, type PeerBuild } from "./peers.js";
import { writeLockRecordingOverlay, writePerturbOverlay } from "./perturb.js";
import type { Strategy } from "./strategy.js";
import type { BuildResult } from "./types.js";

/** Exit code of `schedlab collect` when no program built: nothing ran, which CI must not take for success. */
export const EVERY_BUILD_FAILED_EXIT_CODE = 6;

/** Compiler output kept per build: the tail, which holds the errors that matter. */
const BUILD_OUTPUT_CAP = 64 * 1024;
/** A build that takes longer is stuck (e.g. a module download hanging). */
const BUILD_TIMEOUT_MS = 10 * 60_000;

/**
 * What to build: a program's package (corpus's BuildTarget, as discovery finds it) as a
 * main program (with harness) or as a test binary, and how collect builds it. testFiles
 * are needed with peers (a test package's TestMain check).
 */
export interface BuildTarget extends ProgramTarget {
  /** Peer leak detectors to build in (collect --peers); such targets are built alone. */
  readonly peers?: readonly Peer[];
  /** "race" builds with -race, "perturb" with seeded perturbation (default "plain"); such targets are built alone. */
  readonly strategy?: Strategy;
  /**
   * Rewrite each Lock/RLock/Unlock/RUnlock statement to log the operation into the run's
   * trace (collect --budget; src/gohelper/overlay/locks.go), on top of any other rewrite. A program
   * that does not compile so is built without it, and its output says why. Such targets are built alone.
   */
  readonly recordLocks?: boolean;
  /**
   * Build with the run agent's goroutine leak profile (collect's leakProfile, default on there):
   * GOEXPERIMENT=goroutineleakprofile on Go 1.26, and the agent's file (with its TestMain) in a
   * test binary. A main program's harness always has the agent beside it; without the profile
   * it does nothing. A test binary with peers gets the agent either way (goleak is its hook).
   */
  readonly leakProfile?: boolean;
}

/** Whether a test build gets the run agent's file: for its profile, or for the peers' end-of-run checks. */
function wantsTestAgent(target: BuildTarget, peers: PeerBuild | null): boolean {
  return target.kind === "test" && (target.leakProfile === true || (peers?.checks.length ?? 0) > 0);
}

/** The overlays of a build: the one it compiles with, and the same without lock recording (its fallback). */
export interface PreparedOverlays {
  readonly overlay: Overlay;
  readonly withoutLocks: Overlay;
}

/** Why a build's overlay copies could not be made (a file that does not parse). */
interface Unprepared {
  readonly problem: string;
}

/**
 * Overlays one build made that another of the same collect reuses: a package's plain and
 * race builds compile the same copies (harness, lock recording, which tells the two by the
 * `race` build constraint), so whichever comes second takes the first's, files and all
 * (they stay in the first build's scratch directory until the collect ends). Builds with
 * peers make their own.
 */
export type OverlayCache = Map<string, Promise<PreparedOverlays | Unprepared>>;

/** The key of `target`'s overlays in an OverlayCache: race shares plain's. */
function overlayKey(target: BuildTarget, strategy: Strategy): string {
  const copies = strategy === "perturb" ? "perturb" : "plain";
  const agent = target.leakProfile === true ? "agent" : "";
  return `${target.kind}\0${target.dir}\0${copies}\0${target.recordLocks === true ? "locks" : ""}\0${agent}`;
}

/**
 * Builds `target` into `scratch`/bin. `scratch` must be a fresh directory owned by the
 * caller; it also holds the overlay files, unless `overlays` already has them. Aborting
 * `signal` kills the build.
 */
export async function buildProgram(
  target: BuildTarget,
  go: GoToolchain,
  scratch: string,
  signal?: AbortSignal,
  overlays?: OverlayCache,
): Promise<BuildResult> {
  mkdirSync(scratch, { recursive: true });
  const binary = join(scratch, "bin");
  const strategy = target.strategy ?? "plain";
  const args = target.kind === "main" ? ["build"] : ["test", "-c"];
  // -s -w drop the symbol table and DWARF, which makes linking faster; stack traces and
  // the trace's stacks come from the runtime's own tables and keep names and lines.
  const peers =
    (target.peers ?? []).length === 0 ? null : await preparePeerBuild(target, target.peers ?? [], go, scratch);
  if (peers !== null) args.push(...peers.args);
  const files = target.kind === "main" ? target.goFiles : [...target.goFiles, ...(target.testFiles ?? [])];
  let pending: Promise<PreparedOverlays | Unprepared>;
  const key = overlayKey(target, strategy);
  const shared = peers === null ? overlays?.get(key) : undefined;
  if (shared !== undefined) pending = shared;
  else {
    pending = prepareOverlays(target, strategy, files, scratch, peers);
    if (peers === null) overlays?.set(key, pending);
  }
  const prepared = await pending;
  if ("problem" in prepared) return await unpreparedBuild(target, go, scratch, signal, prepared.problem);
  const { overlay, withoutLocks } = prepared;
  if (strategy === "race") args.push("-race");
  const env = {
    ...buildEnvironment(go, { inModule: peers?.inModule ?? insideModule(target.dir), tmpdir: scratch }),
    ...(target.leakProfile === true ? leakProfileBuildEnv(go) : {}),
  };
  const peerNotes =
    peers === null || peers.skipped.length === 0 ? "" : peers.skipped.map((s) => `schedlab --peers: ${s}\n`).join("");
  const compile = async (using: Overlay, overlayName: string): Promise<{ build: BuildResult; timedOut: boolean }> => {
    const command = [...args];
    if (Object.keys(using.Replace).length > 0) {
      const overlayFile = join(scratch, overlayName);
      writeFileSync(overlayFile, JSON.stringify(using));
      command.push("-overlay", overlayFile);
    }
    command.push("-ldflags=-s -w", "-o", binary, ".");
    const result = await goCommand(go, command, target.dir, env, signal);
    const output = peerNotes + tail(originalPaths(result.all ?? "", using, target.dir), BUILD_OUTPUT_CAP);
    if (result.exitCode === 0 && existsSync(binary))
      return { build: { status: "ok", binary, output }, timedOut: false };
    const why = result.timedOut ? `go ${args[0]} did not finish within ${BUILD_TIMEOUT_MS / 60_000} minutes\n` : "";
    return {
      build: {
        status: "error",
        binary: null,
        output: why + (output === "" ? (result.message ?? "build failed") : output),
      },
      timedOut: result.timedOut,
    };
  };
  const built = await compile(overlay, "overlay.json");
  if (built.build.status === "ok" || built.timedOut || overlay === withoutLocks || signal?.aborted === true)
    return built.build;
  // Lock recording must never cost a program its build: without it, the result (and a
  // compiler error) is the program's own; a success says what lock recording broke.
  const without = (await compile(withoutLocks, "overlay-without-locks.json")).build;
  if (without.status === "error") return without;
  const broke = built.build.output.slice(peerNotes.length).trim().split("\n").slice(0, 5).join("\n");
  return {
    ...without,
    output: `schedlab: built without lock recording, which did not compile:\n${broke}\n${without.output}`,
  };
}

/**
 * The overlays of `target` built with `strategy`: the tracing harness and its run agent (main
 * packages) or the run agent (test packages), the peers' files, then perturbation, then lock
 * recording, which goes last so perturbation points stay those of the sources it always sees
 * (a perturbed build makes both in one helper call). A race build's are a plain build's.
 */
async function prepareOverlays(
  target: BuildTarget,
  strategy: Strategy,
  files: readonly string[],
  scratch: string,
  peers: PeerBuild | null,
): Promise<PreparedOverlays | Unprepared> {
  let overlay: Overlay = { Replace: {} };
  let packageName = "main";
  if (target.kind === "main") {
    try {
      overlay = (await writeHarnessOverlay(target.dir, target.goFiles, scratch)).overlay;
    } catch (error) {
      return { problem: `cannot prepare the tracing harness: ${(error as Error).message}` };
    }
  } else if (wantsTestAgent(target, peers)) {
    try {
      const agent = await writeAgentTestOverlay(target.dir, target.testFiles ?? [], join(scratch, "agent"));
      overlay = { Replace: { ...agent.replace } };
      packageName = agent.packageName;
    } catch (error) {
      return { problem: `cannot prepare the run agent: ${(error as Error).message}` };
    }
  }
  if (peers !== null) {
    Object.assign(overlay.Replace, peers.overlay);
    Object.assign(overlay.Replace, writePeerChecks(target.kind, target.dir, packageName, peers.checks, scratch));
  }
  const recordLocks = target.recordLocks === true;
  if (strategy === "perturb") {
    try {
      const perturbed = await writePerturbOverlay(files, overlay, scratch, recordLocks);
      return { overlay: perturbed.locked ?? perturbed.overlay, withoutLocks: perturbed.overlay };
    } catch (error) {
      return { problem: `cannot prepare the perturbed copies: ${(error as Error).message}` };
    }
  }
  if (!recordLocks) return { overlay, withoutLocks: overlay };
  try {
    return { overlay: (await writeLockRecordingOverlay(files, overlay, scratch)).overlay, withoutLocks: overlay };
  } catch (error) {
    return { problem: `cannot prepare the lock-recording copies: ${(error as Error).message}` };
  }
}

/**
 * A package whose overlay copies cannot be made (a file that does not parse) is built as
 * it is, without overlay, so the error recorded is the compiler's own (`syntax error: …`
 * with the user's file:line), not the helper's. `why` is kept when that build succeeds.
 */
async function unpreparedBuild(
  target: BuildTarget,
  go: GoToolchain,
  scratch: string,
  signal: AbortSignal | undefined,
  why: string,
): Promise<BuildResult> {
  const args = target.kind === "main" ? ["build"] : ["test", "-c"];
  const result = await goCommand(
    go,
    [...args, "-o", join(scratch, "unprepared"), "."],
    target.dir,
    buildEnvironment(go, { inModule: insideModule(target.dir), tmpdir: scratch }),
    signal,
  );
  const output = tail(result.all ?? "", BUILD_OUTPUT_CAP);
  return { status: "error", binary: null, output: result.exitCode !== 0 && output !== "" ? output : why };
}

/** Runs the selected toolchain's `go ARGS` in `dir` with exactly `env`, output interleaved, killed at BUILD_TIMEOUT_MS or on `signal`. */
function goCommand(
  go: GoToolchain,
  args: readonly string[],
  dir: string,
  env: Record<string, string | undefined>,
  signal: AbortSignal | undefined,
) {
  return execa(goCommandOf(go), args, {
    cwd: dir,
    env,
    extendEnv: false,
    reject: false,
    all: true,
    timeout: BUILD_TIMEOUT_MS,
    cancelSignal: signal,
    stdin: "ignore",
  });
}

/**
 * Compiler messages name the overlay copies, by absolute path or, when shorter, relative to
 * the build's directory `cwd`; the copies keep every line where it was, so naming the
 * user's files instead gives correct file:line positions.
 */
export function originalPaths(output: string, overlay: Overlay, cwd: string): string {
  let text = output;
  for (const [original, copy] of Object.entries(overlay.Replace))
    text = text.split(copy).join(original).split(relative(cwd, copy)).join(original);
  return text;
}

/** The name `go build -o DIR/` or `go test -c -o DIR/` gives the binary of `target` (last import path element). */
function batchBinaryName(target: BuildTarget): string {
  return target.kind === "main" ? basename(target.dir) : `${basename(target.dir)}.test`;
}

/**
 * Splits targets into groups that one `go` command can build together: same module,
 * same kind, distinct binary names, at most `size` each. Targets outside a module, and
 * those recording locks, are built one by one.
 */
export function buildBatches(targets: readonly BuildTarget[], size: number): BuildTarget[][] {
  const batches: BuildTarget[][] = [];
  const open = new Map<string, { names: Set<string>; batch: BuildTarget[] }[]>();
  for (const target of targets) {
    const root = moduleRoot(target.dir);
    if (root === null || root === target.dir || target.recordLocks === true) {
      // Outside a module (GOPATH mode), the module root itself (binary named after the module
      // path), or with lock-recording copies, which are per package.
      batches.push([target]);
      continue;
    }
    const key = `${target.kind}\0${target.strategy ?? "plain"}\0${root}`;
    const candidates = open.get(key) ?? [];
    open.set(key, candidates);
    const name = batchBinaryName(target);
    let slot = candidates.find((c) => !c.names.has(name) && c.batch.length < size);
    if (slot === undefined) {
      slot = { names: new Set(), batch: [] };
      candidates.push(slot);
      batches.push(slot.batch);
    }
    slot.names.add(name);
    slot.batch.push(target);
  }
  return batches;
}

/**
 * Builds a batch from buildBatches with one `go build` / `go test -c` command, which
 * loads the module once and links in parallel. A target whose binary is missing
 * afterwards (it failed, or Go named it differently) is rebuilt alone, so its result
 * and compiler output are its own. Results are in the order of `targets`.
 */
export async function buildBatch(
  targets: readonly BuildTarget[],
  go: GoToolchain,
  scratch: string,
  signal?: AbortSignal,
): Promise<BuildResult[]> {
  if (targets.length === 1) return [await buildProgram(targets[0], go, scratch, signal)];
  const root = moduleRoot(targets[0].dir)!;
  const out = join(scratch, "out");
  mkdirSync(out, { recursive: true });
  const args = targets[0].kind === "main" ? ["build"] : ["test", "-c"];
  // One overlay carries every package's harness (main) or run agent (test) files.
  const overlay: Overlay = { Replace: {} };
  const usable: BuildTarget[] = [];
  for (const [i, target] of targets.entries()) {
    try {
      if (target.kind === "main") {
        const written = await writeHarnessOverlay(target.dir, target.goFiles, join(scratch, `overlay-${i}`, ""));
        Object.assign(overlay.Replace, written.overlay.Replace);
      } else if (wantsTestAgent(target, null)) {
        const agent = await writeAgentTestOverlay(target.dir, target.testFiles ?? [], join(scratch, `agent-${i}`));
        Object.assign(overlay.Replace, agent.replace);
      }
      usable.push(target);
    } catch {
      // Built alone below, where the problem is reported for this target only.
    }
  }
  // collect --race builds every target with -race; buildBatches never mixes strategies.
  if (targets[0].strategy === "race") args.push("-race");
  if (Object.keys(overlay.Replace).length > 0) {
    writeFileSync(join(scratch, "overlay.json"), JSON.stringify(overlay));
    args.push("-overlay", join(scratch, "overlay.json"));
  }
  args.push("-ldflags=-s -w", "-o", `${out}/`, ...usable.map((t) => `./${relative(root, t.dir).split(sep).join("/")}`));
  await execa(goCommandOf(go), args, {
    cwd: root,
    env: {
      ...buildEnvironment(go, { inModule: true, tmpdir: scratch }),
      ...(targets[0].leakProfile === true ? leakProfileBuildEnv(go) : {}),
    },
    extendEnv: false,
    reject: false,
    timeout: BUILD_TIMEOUT_MS,
    cancelSignal: signal,
    stdin: "ignore",
  });
  const results: BuildResult[] = [];
  for (const [i, target] of targets.entries()) {
    if (signal?.aborted) return results;
    const binary = join(out, batchBinaryName(target));
    results.push(
      usable.includes(target) && existsSync(binary)
        ? { status: "ok", binary, output: "" }
        : await buildProgram(target, go, join(scratch, `alone-${i}`), signal),
    );
  }
  return results;
}

function tail(text: string, cap: number): string {
  return text.length <= cap ? text : text.slice(text.length - cap);
}
