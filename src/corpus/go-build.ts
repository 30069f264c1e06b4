// Checks that programs compile, at `go build` / `go vet` (type-check) level, without
// linking or writing binaries. One pass per module covers every package at once; only
// packages whose error cannot be attributed from that pass are rebuilt one by one in a
// small pool so each error lands on its own program.

import { execa } from "execa";
import { relative, sep } from "node:path";
import { goCommandOf, moduleRoot, type GoToolchain } from "../go/index.js";
import type { BuildTarget } from "./types.js";

/** Build problems per program directory; directories that built are absent. */
export type BuildProblems = Map<string, string>;

/** The go command of `go` (its own binary, GOROOT and GOTOOLCHAIN=local, as collect builds), with no GOFLAGS. */
function goRun(go: GoToolchain, args: readonly string[], cwd: string) {
  return execa(goCommandOf(go), args, {
    cwd,
    reject: false,
    all: true,
    env: { GOROOT: go.goroot, GOTOOLCHAIN: "local", GOFLAGS: "" },
  });
}
const MAX_OUTPUT = 2000;

/** Compiles every target and returns the problems of those that do not build. */
export async function buildProblems(
  targets: readonly BuildTarget[],
  go: GoToolchain,
  concurrency: number,
): Promise<BuildProblems> {
  const problems: BuildProblems = new Map();
  const byModule = new Map<string | null, BuildTarget[]>();
  for (const target of targets) {
    const root = moduleRoot(target.dir);
    byModule.set(root, [...(byModule.get(root) ?? []), target]);
  }
  const retry: BuildTarget[] = [];
  for (const [root, members] of byModule) {
    if (root === null) retry.push(...members);
    else retry.push(...(await modulePass(go, root, members, problems)));
  }
  await runPool(retry, concurrency, async (target) => {
    const problem = await packageProblem(go, target, moduleRoot(target.dir) !== null);
    if (problem !== null) problems.set(target.dir, problem);
  });
  return problems;
}

/**
 * Checks a whole module in two passes: `go list -e -export ./...` compiles every
 * package without linking and reports each package's error against its directory;
 * `go vet -buildtag ./...` type-checks test files too (-buildtag is a near-silent
 * analyzer, so vet's style findings do not count as failures). Vet errors whose file
 * lies in a target are recorded directly; returns the targets that must be rebuilt
 * alone to learn their error.
 */
async function modulePass(
  go: GoToolchain,
  root: string,
  members: readonly BuildTarget[],
  problems: BuildProblems,
): Promise<BuildTarget[]> {
  const byDir = new Set(members.map((m) => m.dir));
  const list = await goRun(go, ["list", "-e", "-export", "-json=Dir,Error", "./..."], root);
  if (list.exitCode !== 0) return [...members]; // the module itself is broken: go.mod, GOFLAGS, …
  for (const { dir, error } of listedPackages(list.stdout)) {
    if (error === null || !byDir.has(dir)) continue;
    const prefix = `${relative(root, dir).split(sep).join("/")}/`;
    const message = error
      .split("\n")
      .filter((l) => l !== "" && !l.startsWith("# "))
      .map((l) => l.replace(/^\.\//, "").replace(prefix, ""))
      .join("; ");
    problems.set(dir, `does not build: ${truncate(message)}`);
  }
  const tests = members.filter((m) => m.kind === "test" && !problems.has(m.dir));
  if (tests.length === 0) return [];
  const vet = await goRun(go, ["vet", "-buildtag", "./..."], root);
  if (vet.exitCode === 0) return [];
  const output = vet.all ?? "";
  const attributed = attributeErrors(root, tests, output);
  for (const [dir, message] of attributed) problems.set(dir, message);
  const unexplained = tests.filter((m) => !attributed.has(m.dir));
  // A failing vet whose errors name no target file leaves the remaining test packages in doubt.
  return attributed.size === 0 ? unexplained : unexplained.filter((m) => mentionsPackage(root, m.dir, output));
}

/** Parses `go list -json` output: a stream of top-level objects, each starting with "{" at the start of a line. */
export function listedPackages(stdout: string): { dir: string; error: string | null }[] {
  return stdout
    .split(/\n(?=\{)/)
    .filter((chunk) => chunk.trim() !== "")
    .map((chunk) => {
      const value = JSON.parse(chunk) as { Dir?: string; Error?: { Err?: string } };
      return { dir: value.Dir ?? "", error: value.Error?.Err ?? null };
    });
}

/** Maps compiler lines "path/file.go:L:C: msg" (relative to the module root) to the target owning the file. */
export function attributeErrors(root: string, members: readonly BuildTarget[], output: string): Map<string, string> {
  const byDir = new Map(members.map((m) => [relative(root, m.dir).split(sep).join("/"), m.dir] as const));
  const messages = new Map<string, string[]>();
  for (const raw of output.split("\n")) {
    const line = raw.replace(/^vet: /, "");
    const match = /^(?:\.\/)?((?:[^\s:]+\/)?)([^\s/:]+\.go):\d+(?::\d+)?: (.*)$/.exec(line);
    if (match === null) continue;
    const dir = byDir.get(match[1].replace(/\/$/, "") || ".");
    if (dir === undefined) continue;
    const list = messages.get(dir) ?? [];
    const text = `${match[2]}${line.slice(match[1].length + match[2].length)}`;
    if (!list.includes(text)) list.push(text);
    messages.set(dir, list);
  }
  return new Map([...messages].map(([dir, list]) => [dir, `does not build: ${truncate(list.join("; "))}`] as const));
}

/** True when `output` names the package in `dir` in a "# importpath" header. */
function mentionsPackage(root: string, dir: string, output: string): boolean {
  const rel = relative(root, dir).split(sep).join("/");
  return (
    rel === "" ||
    output.split("\n").some((line) => line.startsWith("# ") && (line.endsWith(`/${rel}`) || line.includes(`/${rel} `)))
  );
}

/** Builds one program on its own; outside a module, by file list. */
async function packageProblem(go: GoToolchain, target: BuildTarget, inModule: boolean): Promise<string | null> {
  const files = inModule
    ? ["."]
    : [...target.goFiles, ...(target.kind === "test" ? (target.testFiles ?? []) : [])].map((f) =>
        relative(target.dir, f),
      );
  const args = target.kind === "main" ? ["build", "-o", "/dev/null", ...files] : ["vet", "-buildtag", ...files];
  const result = await goRun(go, args, target.dir);
  if (result.exitCode === 0) return null;
  const text = (result.all ?? "")
    .split("\n")
    .filter((l) => l !== "" && !l.startsWith("#"))
    .map((l) => l.replace(/^vet: /, ""))
    .join("; ");
  return `does not build: ${truncate(text || `go ${args.join(" ")} exited with ${String(result.exitCode)}`)}`;
}

function truncate(text: string): string {
  return text.length > MAX_OUTPUT ? `${text.slice(0, MAX_OUTPUT)}…` : text;
}

/** Runs `work` over `items` with at most `concurrency` in flight. */
async function runPool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++];
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
}
