// Where traces and dumps go: <traces>/<program>/<config>/run-<i>.trace and .dump.
// Program names keep their "/" as directories; other characters that are awkward in
// paths ("#" of split tests, spaces, "..") are replaced, so every name maps to a path
// inside the traces directory.

import { join } from "node:path";

/** "patterns/chan#TestLeak" → "patterns/chan@TestLeak"; never escapes its parent. */
export function programPath(name: string): string {
  return name
    .split("/")
    .map((segment) => {
      const safe = segment.replace(/#/g, "@").replace(/[^A-Za-z0-9._@+=-]/g, "_");
      return safe === "" || safe === "." || safe === ".." ? "_" : safe;
    })
    .join("/");
}

export interface RunFiles {
  readonly dir: string;
  readonly trace: string;
  readonly dump: string;
}

export function runFiles(traces: string, program: string, config: string, index: number): RunFiles {
  const dir = join(traces, programPath(program), config);
  return { dir, trace: join(dir, `run-${index}.trace`), dump: join(dir, `run-${index}.dump`) };
}

/** The race reports of a run (-race builds), kept beside its trace: stderr tails are capped, this file is not. */
export function raceLogPath(tracePath: string): string {
  return `${tracePath}.races.txt`;
}
