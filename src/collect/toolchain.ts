// The Go toolchain as collect sees it: version and the directories builds need,
// read once per collect from `go env -json` (so defaults are resolved by Go itself).

import { execa } from "execa";
import { ToolchainMissingError } from "../errors.js";

export interface GoToolchain {
  /** e.g. "go1.26.8". */
  readonly version: string;
  readonly goroot: string;
  readonly gocache: string;
  readonly gopath: string;
  readonly gomodcache: string;
  /** Build-relevant `go env` values as resolved by Go (GOPROXY, GOFLAGS, CGO_ENABLED, …). */
  readonly env: Readonly<Record<string, string>>;
}

const GO_ENV_KEYS = [
  "GOVERSION", "GOROOT", "GOCACHE", "GOPATH", "GOMODCACHE", "GOPROXY", "GOSUMDB", "GONOSUMDB",
  "GOPRIVATE", "GONOPROXY", "GOINSECURE", "GOFLAGS", "CGO_ENABLED", "GOTOOLCHAIN",
] as const;

/** Minor version below which the execution tracer format is not supported. */
export const MIN_GO_MINOR = 22;

/** Reads the toolchain; throws ToolchainMissingError without Go or with Go < 1.22. */
export async function goToolchain(): Promise<GoToolchain> {
  let stdout: string;
  try {
    ({ stdout } = await execa("go", ["env", "-json", ...GO_ENV_KEYS]));
  } catch {
    throw new ToolchainMissingError(
      "the Go toolchain was not found on PATH",
      "Install Go 1.22 or newer and make sure `go version` works in this shell; `schedlab doctor` checks the setup.",
    );
  }
  const env = JSON.parse(stdout) as Record<string, string>;
  const version = env.GOVERSION ?? "";
  const minor = /^go1\.(\d+)/.exec(version);
  if (minor !== null && Number(minor[1]) < MIN_GO_MINOR) {
    throw new ToolchainMissingError(
      `${version} is too old: schedlab needs Go 1.22 or newer (the execution trace format it reads)`,
      "Install Go 1.22 or newer and put it first on PATH.",
    );
  }
  return {
    version,
    goroot: env.GOROOT ?? "",
    gocache: env.GOCACHE ?? "",
    gopath: env.GOPATH ?? "",
    gomodcache: env.GOMODCACHE ?? "",
    env,
  };
}
