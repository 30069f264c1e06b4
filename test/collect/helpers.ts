// Shared helpers of the collect tests: fixture paths, scratch dirs, and the
// `go tool trace -d=parsed` cross-check every produced trace must pass.

import { execa } from "execa";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const FIXTURES = fileURLToPath(new URL("../fixtures/collect/", import.meta.url));
export const PROGRAMS = join(FIXTURES, "programs");
export const SPECIAL = join(FIXTURES, "special");

export function scratch(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `schedlab-collect-${prefix}-`));
}

/** Runs `go tool trace -d=parsed` on `file`; returns its exit code and output. */
export async function parsedTrace(file: string): Promise<{ exitCode: number; output: string }> {
  const result = await execa("go", ["tool", "trace", "-d=parsed", file], {
    reject: false,
    all: true,
    maxBuffer: 512 * 1024 * 1024,
  });
  return { exitCode: result.exitCode ?? -1, output: result.all ?? "" };
}
