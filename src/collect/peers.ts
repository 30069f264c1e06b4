// Peer leak detectors in the same runs (collect --peers goleak,leakprofile): the extra
// overlay file, build flags and environment each needs, and the report files a run
// writes beside its trace (read by src/leaks/peers.ts). The user's tree is never
// touched: a main package gets a file that hooks the harness's finish, a test package a
// TestMain file, both through -overlay; goleak's module requirement goes into a copy of
// go.mod passed with -modfile, or, for a package outside any module, into a temporary
// go.mod (and go.sum) that the overlay places in the package directory, with the module
// path GOPATH mode would give the package ("_/abs/dir"), so function names do not change.
// The goroutine leak profile is read the way the selected toolchain offers it: a
// GOEXPERIMENT build on Go 1.26, the standard profile from Go 1.27 (leakProfileSupport).
// docs/leaks.md describes what each peer can and cannot see.

import { execa } from "execa";
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { BuildTarget, ProgramKind } from "../corpus/index.js";
import { UsageError } from "../errors.js";
import { buildEnvironment, goCommandOf, goMinorVersion, moduleRoot, type GoToolchain } from "../go/index.js";

export const PEERS = ["goleak", "leakprofile"] as const;
export type Peer = (typeof PEERS)[number];

export const GOLEAK_MODULE = "go.uber.org/goleak@v1.3.0";

/** Environment variable → report file suffix (beside the trace), per peer. */
export const PEER_FILES: Readonly<Record<Peer, { readonly env: string; readonly suffix: string }>> = {
  goleak: { env: "SCHEDLAB_GOLEAK", suffix: ".goleak.txt" },
  leakprofile: { env: "SCHEDLAB_LEAKPROFILE", suffix: ".goroutineleak.txt" },
};

/** Parses "goleak,leakprofile" (the goroutine dump is always kept and needs no option). */
export function parsePeers(text: string): Peer[] {
  const names = text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "" && s !== "dump");
  for (const name of names) {
    if (!(PEERS as readonly string[]).includes(name))
      throw new UsageError(
        `unknown peer detector ${JSON.stringify(name)}`,
        `Use --peers with any of dump, ${PEERS.join(", ")}, comma-separated.`,
      );
  }
  return [...new Set(names)] as Peer[];
}

/** The experiment that enables the goroutine leak profile in Go 1.26. */
export const LEAK_PROFILE_EXPERIMENT = "goroutineleakprofile";

/**
 * How a Go version offers the goroutine leak profile (runtime/pprof "goroutineleak"): Go
 * 1.26 only in a build with GOEXPERIMENT=goroutineleakprofile; Go 1.27 made it a standard
 * profile and removed that experiment, which its go command rejects ("unknown
 * GOEXPERIMENT"), so the build gets no GOEXPERIMENT; Go before 1.26 has no such profile. A
 * version that names no minor (a development build) is taken as new.
 */
export type LeakProfileSupport =
  | { readonly kind: "experiment"; readonly goexperiment: string }
  | { readonly kind: "standard" }
  | { readonly kind: "none"; readonly why: string };

export function leakProfileSupport(version: string): LeakProfileSupport {
  const minor = goMinorVersion(version);
  if (minor === null || minor >= 27) return { kind: "standard" };
  if (minor === 26) return { kind: "experiment", goexperiment: LEAK_PROFILE_EXPERIMENT };
  return {
    kind: "none",
    why:
      `${version} has no goroutine leak profile (Go 1.26 has it as ` +
      `GOEXPERIMENT=${LEAK_PROFILE_EXPERIMENT}, Go 1.27 as a standard profile): select Go 1.26 or newer ` +
      `with GOTOOLCHAIN to run this peer`,
  };
}

/** What a build needs for the peers: overlay entries, extra go flags and environment, and why a peer was left out. */
export interface PeerBuild {
  readonly overlay: Record<string, string>;
  readonly args: string[];
  readonly env: Record<string, string>;
  readonly skipped: string[];
  /** The build must run in module mode: the overlay gives a package outside any module a temporary go.mod. */
  readonly inModule?: boolean;
}

/**
 * Each peer's end-of-run check; Go that compiles at any language version from go 1.12 (no
 * `any`, no 0o literals). The leak profile's check is the same source on Go 1.26 and 1.27:
 * only the build's GOEXPERIMENT differs (leakProfileSupport).
 */
const CHECKS: Record<Peer, { imports: string[]; body: string }> = {
  goleak: {
    imports: ['schedlabPeerGoleak "go.uber.org/goleak"'],
    // The harness's SIGTERM goroutine is the toolkit's, not the program's; goleak skips the caller itself.
    body: `	if path := schedlabPeerOS.Getenv("${PEER_FILES.goleak.env}"); path != "" {
		report := ""
		if err := schedlabPeerGoleak.Find(schedlabPeerGoleak.IgnoreTopFunction("main.schedlabHarnessOnSigterm")); err != nil {
			report = err.Error()
		}
		schedlabPeerOS.WriteFile(path, []byte(report), 0644)
	}
`,
  },
  leakprofile: {
    imports: ['schedlabPeerPprof "runtime/pprof"'],
    body: `	if path := schedlabPeerOS.Getenv("${PEER_FILES.leakprofile.env}"); path != "" {
		if profile := schedlabPeerPprof.Lookup("goroutineleak"); profile != nil {
			if f, err := schedlabPeerOS.Create(path); err == nil {
				profile.WriteTo(f, 2)
				f.Close()
			}
		}
	}
`,
  },
};

/** The Go source that runs the peers' end-of-run checks: a harness hook (main) or a TestMain (test). */
export function peerSource(kind: ProgramKind, packageName: string, peers: readonly Peer[]): string {
  const imports = [
    'schedlabPeerOS "os"',
    ...peers.flatMap((p) => CHECKS[p].imports),
    ...(kind === "test" ? ['schedlabPeerTesting "testing"'] : []),
  ];
  const body = peers.map((p) => CHECKS[p].body).join("");
  const head =
    `// Code generated by schedlab collect --peers. DO NOT EDIT.\n\npackage ${packageName}\n\nimport (\n` +
    `${imports.map((i) => `\t${i}\n`).join("")})\n\n`;
  if (kind === "main") {
    return (
      `${head}func init() {\n` +
      `\tschedlabHarnessAtFinish = append(schedlabHarnessAtFinish, schedlabHarnessPeers)\n}\n\n` +
      `// schedlabHarnessPeers runs after the trace has stopped.\nfunc schedlabHarnessPeers() {\n${body}}\n`
    );
  }
  // Runs only when the tests return: a test that hangs until -test.timeout never gets here.
  return `${head}func TestMain(m *schedlabPeerTesting.M) {\n\tcode := m.Run()\n${body}\tschedlabPeerOS.Exit(code)\n}\n`;
}

function packageClause(file: string): string | null {
  const match = /^package\s+(\w+)/m.exec(readFileSync(file, "utf8"));
  return match === null ? null : match[1];
}

/**
 * Prepares a build of the package in `dir` for `peers`, writing into `scratch`. A peer
 * that cannot work for this package is listed in `skipped` with the reason, and the
 * build goes on without it.
 */
export async function preparePeerBuild(
  target: BuildTarget,
  peers: readonly Peer[],
  go: GoToolchain,
  scratch: string,
): Promise<PeerBuild> {
  const skipped: string[] = [];
  let active = [...peers];
  const env: Record<string, string> = {};
  const args: string[] = [];
  if (active.includes("leakprofile")) {
    const support = leakProfileSupport(go.version);
    if (support.kind === "experiment") env.GOEXPERIMENT = support.goexperiment;
    if (support.kind === "none") {
      skipped.push(`leakprofile: ${support.why}`);
      active = active.filter((p) => p !== "leakprofile");
    }
  }
  const testFiles = target.testFiles ?? [];
  if (target.kind === "test" && testFiles.some((f) => /^func TestMain\(/m.test(readFileSync(f, "utf8")))) {
    return {
      overlay: {},
      args: [],
      env,
      skipped: [...skipped, ...active.map((p) => `${p}: the package defines its own TestMain`)],
    };
  }
  const root = moduleRoot(target.dir);
  const overlay: Record<string, string> = {};
  let inModule = root !== null;
  if (active.includes("goleak")) {
    // Outside a module: a temporary module made in scratch, overlaid as the package's go.mod.
    const moduleDir = root ?? join(scratch, "peers-module");
    if (root === null) {
      mkdirSync(moduleDir, { recursive: true });
      writeFileSync(join(moduleDir, "go.mod"), `module _${target.dir}\n\ngo 1.${goMinorVersion(go.version) ?? 22}\n`);
    }
    const modfile = join(scratch, "peers.mod");
    copyFileSync(join(moduleDir, "go.mod"), modfile);
    if (existsSync(join(moduleDir, "go.sum"))) copyFileSync(join(moduleDir, "go.sum"), join(scratch, "peers.sum"));
    const got = await execa(goCommandOf(go), ["get", `-modfile=${modfile}`, GOLEAK_MODULE], {
      cwd: moduleDir,
      env: buildEnvironment(go, { inModule: true, tmpdir: scratch }),
      extendEnv: false,
      reject: false,
      all: true,
      stdin: "ignore",
      timeout: 5 * 60_000,
    });
    if (got.exitCode !== 0) {
      skipped.push(
        `goleak: cannot add ${GOLEAK_MODULE} to a copy of go.mod: ${(got.all ?? "").trim().split("\n").slice(-2).join(" ")}`,
      );
      active = active.filter((p) => p !== "goleak");
    } else if (root !== null) {
      args.push(`-modfile=${modfile}`);
    } else {
      overlay[join(target.dir, "go.mod")] = modfile;
      if (existsSync(join(scratch, "peers.sum"))) overlay[join(target.dir, "go.sum")] = join(scratch, "peers.sum");
      inModule = true;
    }
  }
  if (active.length === 0) return { overlay: {}, args, env, skipped, inModule: root !== null };
  const sample = target.kind === "main" ? target.goFiles[0] : testFiles[0];
  const packageName = sample === undefined ? null : packageClause(sample);
  if (packageName === null)
    return {
      overlay: {},
      args,
      env,
      skipped: [...skipped, ...active.map((p) => `${p}: no package clause found`)],
      inModule: root !== null,
    };
  const file = join(scratch, target.kind === "main" ? "zz_schedlab_peers.go" : "zz_schedlab_peers_test.go");
  writeFileSync(file, peerSource(target.kind, packageName, active));
  overlay[join(target.dir, target.kind === "main" ? "zz_schedlab_peers.go" : "zz_schedlab_peers_test.go")] = file;
  return { overlay, args, env, skipped, inModule };
}

/** Environment for a run: each peer's report path (the partial name, renamed by `keepPeerReports`). */
export function peerRunEnv(tracePath: string, peers: readonly Peer[]): Record<string, string> {
  return Object.fromEntries(peers.map((p) => [PEER_FILES[p].env, `${tracePath}${PEER_FILES[p].suffix}.partial`]));
}

/** Moves the reports a run wrote into place beside its trace; removes stale ones. */
export function keepPeerReports(tracePath: string, peers: readonly Peer[]): void {
  for (const peer of PEERS) {
    const final = `${tracePath}${PEER_FILES[peer].suffix}`;
    rmSync(final, { force: true });
    const partial = `${final}.partial`;
    if (peers.includes(peer) && existsSync(partial)) renameSync(partial, final);
    else rmSync(partial, { force: true });
  }
}
