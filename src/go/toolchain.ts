// The Go toolchain, read one way: `go env -json` (goEnv) in a directory, which honours
// GOTOOLCHAIN and a go.mod `toolchain` or `go` line. goToolchain is the toolchain a build
// uses, read once per collect or corpus check; every later go command runs that
// toolchain's own go binary with GOTOOLCHAIN=local, so one toolchain's GOROOT is never
// paired with another's binary.

import { execa } from "execa";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ToolchainMissingError } from "../errors.js";

export interface GoToolchain {
  /** e.g. "go1.26.8". */
  readonly version: string;
  readonly goroot: string;
  /** The selected toolchain's go binary ($GOROOT/bin/go): builds run it, with GOTOOLCHAIN=local. */
  readonly goBinary?: string;
  readonly gocache: string;
  readonly gopath: string;
  readonly gomodcache: string;
  /** Build-relevant `go env` values as resolved by Go (GOPROXY, GOFLAGS, CGO_ENABLED, …). */
  readonly env: Readonly<Record<string, string>>;
}

const GO_ENV_KEYS = [
  "GOVERSION",
  "GOROOT",
  "GOCACHE",
  "GOPATH",
  "GOMODCACHE",
  "GOPROXY",
  "GOSUMDB",
  "GONOSUMDB",
  "GOPRIVATE",
  "GONOPROXY",
  "GOINSECURE",
  "GOFLAGS",
  "CGO_ENABLED",
  "GOTOOLCHAIN",
] as const;

/** Minor version below which the execution tracer format is not supported. */
export const MIN_GO_MINOR = 22;

/**
 * Whether a Go version reads and writes the execution trace format schedlab decodes (Go 1.22 or newer); an unnumbered
 * (devel) version is taken as new enough.
 */
export function supportsTraces(version: string): boolean {
  const minor = goMinorVersion(version);
  return minor === null || minor >= MIN_GO_MINOR;
}

/** The minor version of a Go version string ("go1.27.3" → 27, "go1.26rc1" → 26, "devel go1.28-abc …" → 28); null when it names none. */
export function goMinorVersion(version: string): number | null {
  const minor = /go1\.(\d+)/.exec(version);
  return minor === null ? null : Number(minor[1]);
}

/** The go binary to run for the go commands of a build: the selected toolchain's, else the one on PATH. */
export function goCommandOf(go: GoToolchain): string {
  return go.goBinary ?? "go";
}

/**
 * Reads the toolchain the go command selects in `dir` (default: the current directory):
 * GOTOOLCHAIN and the go.mod `toolchain`/`go` lines are honoured by `go env` itself, which
 * switches to (and if needed downloads) that toolchain and reports its GOROOT. Throws
 * ToolchainMissingError without Go, with Go < 1.22, when the selected toolchain cannot be
 * had, or when its GOROOT holds no go binary of that version.
 */
export async function goToolchain(dir?: string): Promise<GoToolchain> {
  const env = await goEnv(GO_ENV_KEYS, dir);
  const version = env.GOVERSION;
  if (!supportsTraces(version)) {
    throw new ToolchainMissingError(
      `${version} is too old: schedlab needs Go 1.22 or newer (the execution trace format it reads)`,
      "Install Go 1.22 or newer and put it first on PATH, or select one with GOTOOLCHAIN=go1.22.0 (or newer).",
    );
  }
  const goroot = env.GOROOT;
  const goBinary = join(goroot, "bin", "go");
  if (goroot === "" || !existsSync(goBinary)) {
    throw new ToolchainMissingError(
      `the selected toolchain ${version} has no go binary in its GOROOT ${goroot || "(empty)"}`,
      "Unset GOROOT (the go command finds its own), or install that Go version; `schedlab doctor` checks the setup.",
    );
  }
  const check = await execa(goBinary, ["env", "GOVERSION"], {
    reject: false,
    env: { ...process.env, GOROOT: goroot, GOTOOLCHAIN: "local" },
  });
  if (check.exitCode !== 0 || check.stdout.trim() !== version) {
    throw new ToolchainMissingError(
      `the selected toolchain's go binary (${goBinary}) reports ${check.stdout.trim() || "nothing"}, not ${version}`,
      "GOROOT points at another Go installation than the go command selects: unset GOROOT, or make the two agree.",
    );
  }
  return {
    version,
    goroot,
    goBinary,
    gocache: env.GOCACHE,
    gopath: env.GOPATH,
    gomodcache: env.GOMODCACHE,
    env,
  };
}

/**
 * `go env -json KEYS` run in `dir` (default: the current directory) with the go command on
 * PATH, which first selects its toolchain there. Throws ToolchainMissingError without Go on
 * PATH, or when the selected toolchain cannot be had.
 */
export async function goEnv<K extends string>(keys: readonly K[], dir?: string): Promise<Record<K, string>> {
  const result = await execa("go", ["env", "-json", ...keys], { cwd: dir, reject: false, all: true });
  if (result.failed && (result.code === "ENOENT" || result.exitCode === undefined)) {
    throw new ToolchainMissingError(
      "the Go toolchain was not found on PATH",
      "Install Go 1.22 or newer and make sure `go version` works in this shell; `schedlab doctor` checks the setup.",
    );
  }
  if (result.exitCode !== 0) {
    const selected =
      process.env.GOTOOLCHAIN === undefined || process.env.GOTOOLCHAIN === ""
        ? ""
        : ` (GOTOOLCHAIN=${process.env.GOTOOLCHAIN})`;
    throw new ToolchainMissingError(
      `the go command cannot select its toolchain${selected}${dir === undefined ? "" : ` in ${dir}`}: ` +
        `${(result.all ?? "").trim().split("\n").slice(-3).join(" ")}`,
      "Run `go version` there to see the error; a toolchain named by GOTOOLCHAIN or a go.mod `toolchain` " +
        "line is downloaded from the module proxy (check GOPROXY and the network), or set GOTOOLCHAIN=local " +
        "to use the Go on PATH.",
    );
  }
  const values = JSON.parse(result.stdout) as Partial<Record<K, string>>;
  return Object.fromEntries(keys.map((key) => [key, values[key] ?? ""])) as Record<K, string>;
}
