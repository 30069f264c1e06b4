// Scrubbed environments for builds and runs. Nothing is inherited but what Go needs:
// no tokens, keys or user settings reach the programs under study.

import type { GoToolchain } from "./toolchain.js";

/** Proxy settings are passed to builds only, which may need the module proxy. */
const BUILD_PASSTHROUGH = [
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "CC",
  "CXX",
  "PKG_CONFIG_PATH",
];

function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ""),
  );
}

/**
 * The environment of `go build` / `go test -c`, run with the selected toolchain's own go
 * binary (goCommandOf): GOROOT is that toolchain's, and GOTOOLCHAIN=local keeps the binary
 * from switching again (it is already the toolchain GOTOOLCHAIN or go.mod selected), so
 * compiler, GOROOT and go binary are always one version. GO111MODULE=off builds a
 * directory that is not inside any module (a loose program) in GOPATH mode.
 */
export function buildEnvironment(
  go: GoToolchain,
  options: { inModule: boolean; tmpdir: string },
): Record<string, string> {
  const passthrough = Object.fromEntries(BUILD_PASSTHROUGH.map((key) => [key, process.env[key]]));
  return definedOnly({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TMPDIR: options.tmpdir,
    GOROOT: go.goroot,
    GOCACHE: go.gocache,
    GOPATH: go.gopath,
    GOMODCACHE: go.gomodcache,
    GOPROXY: go.env.GOPROXY,
    GOSUMDB: go.env.GOSUMDB,
    GONOSUMDB: go.env.GONOSUMDB,
    GOPRIVATE: go.env.GOPRIVATE,
    GONOPROXY: go.env.GONOPROXY,
    GOINSECURE: go.env.GOINSECURE,
    GOFLAGS: go.env.GOFLAGS,
    CGO_ENABLED: go.env.CGO_ENABLED,
    GOTOOLCHAIN: "local",
    GO111MODULE: options.inModule ? undefined : "off",
    ...passthrough,
  });
}

/**
 * The environment of one traced run. HOME and TMPDIR point into the run's own
 * temporary directory; GOTRACEBACK=all makes every crash print all goroutines.
 * `extra` carries the harness variables (SCHEDLAB_TRACE, …).
 */
export function runEnvironment(
  go: GoToolchain,
  options: { procs: number; workdir: string; extra: Record<string, string> },
): Record<string, string> {
  return definedOnly({
    PATH: process.env.PATH,
    HOME: options.workdir,
    TMPDIR: options.workdir,
    GOROOT: go.goroot,
    GOCACHE: go.gocache,
    GOPATH: go.gopath,
    GOMAXPROCS: String(options.procs),
    GOTRACEBACK: "all",
    ...options.extra,
  });
}
