// Checks that programs compile, at `go build` / `go vet` (type-check) level, without
// writing binaries. One pass per module covers every package at once; only the
// packages that pass names as broken (or, when its output cannot be attributed, all)
// are rebuilt one by one in a small pool so each error lands on its own program.

import { execa } from "execa";
import { existsSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import type { ProgramKind } from "./discover.js";

/** A program to compile: its directory, kind and Go files. */
export interface BuildTarget {
  readonly dir: string;
  readonly kind: ProgramKind;
  readonly goFiles: readonly string[];
}

/** Build problems per program directory; directories that built are absent. */
export type BuildProblems = Map<string, string>;

// GOTOOLCHAIN=local: never download another toolchain to satisfy a go.mod line.
const GO_ENV = { GOTOOLCHAIN: "local", GOFLAGS: "" };
const MAX_OUTPUT = 2000;

/** The nearest directory at or above `dir` holding a go.mod, or null (outside any module). */
export function moduleRoot(dir: string): string | null {
  let current = dir;
  for (;;) {
    if (existsSync(join(current, "go.mod"))) return current;
    const parent = dirname(current);
    if (parent === current) return null;
    current = parent;
  }
}

/** Compiles every target and returns the problems of those that do not build. */
export async function buildProblems(targets: readonly BuildTarget[], concurrency: number): Promise<BuildProblems> {
  const problems: BuildProblems = new Map();
  const byModule = new Map<string | null, BuildTarget[]>();
  for (const target of targets) {
    const root = moduleRoot(target.dir);
    byModule.set(root, [...(byModule.get(root) ?? []), target]);
  }
  const retry: BuildTarget[] = [];
  for (const [root, members] of byModule) {
    if (root === null) retry.push(...members);
    else retry.push(...(await modulePass(root, members, problems)));
  }
  await runPool(retry, concurrency, async (target) => {
    const problem = await packageProblem(target, moduleRoot(target.dir) !== null);
    if (problem !== null) problems.set(target.dir, problem);
  });
  return problems;
}

/**
 * Runs `go build ./...` and `go vet -buildtag ./...` (the latter type-checks test files;
 * -buildtag is a near-silent analyzer, so vet's style checks do not count as failures)
 * over a module. Errors whose file lies in a target are recorded directly; returns the
 * targets that must be rebuilt alone to learn their error.
 */
async function modulePass(root: string, members: readonly BuildTarget[], problems: BuildProblems): Promise<BuildTarget[]> {
  const outputs: string[] = [];
  for (const args of [["build", "./..."], ["vet", "-buildtag", "./..."]]) {
    const result = await execa("go", args, { cwd: root, reject: false, all: true, env: GO_ENV });
    if (result.exitCode !== 0) outputs.push(result.all ?? "");
  }
  if (outputs.length === 0) return [];
  const attributed = attributeErrors(root, members, outputs.join("\n"));
  for (const [dir, message] of attributed) problems.set(dir, message);
  const unexplained = members.filter((m) => !attributed.has(m.dir));
  // A failing pass whose errors name no file (a bad go.mod, a missing import) leaves
  // every package in doubt.
  return attributed.size === 0 ? unexplained : unexplained.filter((m) => mentionsPackage(root, m.dir, outputs.join("\n")));
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
  return rel === "" || output.split("\n").some((line) => line.startsWith("# ") && (line.endsWith(`/${rel}`) || line.includes(`/${rel} `)));
}

/** Builds one program on its own; outside a module, by file list. */
async function packageProblem(target: BuildTarget, inModule: boolean): Promise<string | null> {
  const files = inModule ? ["."] : target.goFiles.filter((f) => target.kind === "test" || !f.endsWith("_test.go"));
  const args = target.kind === "main" ? ["build", "-o", "/dev/null", ...files] : ["vet", "-buildtag", ...files];
  const result = await execa("go", args, { cwd: target.dir, reject: false, all: true, env: GO_ENV });
  if (result.exitCode === 0) return null;
  const text = (result.all ?? "").split("\n").filter((l) => l !== "" && !l.startsWith("#")).map((l) => l.replace(/^vet: /, "")).join("; ");
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
