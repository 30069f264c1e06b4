// Puts the run agent (src/collect/agent.ts) into a test package's build through -overlay: its
// file in the package of the test files (of the package's own TestMain when it has one, which
// the Go helper renames schedlabUserTestMain on its line, routing that file's exits through the
// agent), and the GOEXPERIMENT the goroutine leak profile needs on the selected toolchain.

import { execa } from "execa";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { goHelperPath } from "../gohelper/index.js";
import type { GoToolchain } from "../go/index.js";
import { AGENT_TEST_FILE, agentSource, leakProfileSupport } from "./agent.js";

/** A declaration of TestMain at the start of a line: only then is the Go helper asked to find it. */
const DECLARES_TEST_MAIN = /^func\s+TestMain\s*\(/m;

/** The overlay entries of the agent in a test package, and the package it joined (peers' hooks go there too). */
export interface AgentTestOverlay {
  readonly replace: Record<string, string>;
  readonly packageName: string;
}

/**
 * Writes the agent's file for the test package in `dir` (and, when the package has its own
 * TestMain, the rewritten copy of that file) into `scratch`; returns the overlay entries. Throws
 * when a file that may declare TestMain does not parse, or no test file names its package.
 */
export async function writeAgentTestOverlay(
  dir: string,
  testFiles: readonly string[],
  scratch: string,
): Promise<AgentTestOverlay> {
  mkdirSync(scratch, { recursive: true });
  const replace: Record<string, string> = {};
  let packageName: string | null = null;
  let userTestMain = false;
  const candidates = testFiles.filter((f) => DECLARES_TEST_MAIN.test(readFileSync(f, "utf8")));
  if (candidates.length > 0) {
    const helper = await goHelperPath();
    const { stdout } = await execa(helper, ["collect-overlay", "-testmain", "-out", scratch, ...candidates]);
    const rewritten = JSON.parse(stdout) as { replace: Record<string, string>; mainFile: string; package?: string };
    if (rewritten.mainFile !== "" && rewritten.package !== undefined) {
      Object.assign(replace, rewritten.replace);
      packageName = rewritten.package;
      userTestMain = true;
    }
  }
  packageName ??= testFiles.map(packageClause).find((name) => name !== null) ?? null;
  if (packageName === null) throw new Error(`no test file of ${dir} has a package clause`);
  const agent = join(scratch, AGENT_TEST_FILE);
  writeFileSync(agent, agentSource("test", packageName, userTestMain));
  replace[join(dir, AGENT_TEST_FILE)] = agent;
  return { replace, packageName };
}

function packageClause(file: string): string | null {
  const match = /^package\s+(\w+)/m.exec(readFileSync(file, "utf8"));
  return match === null ? null : match[1];
}

/**
 * The build environment the goroutine leak profile needs on `go`: GOEXPERIMENT on Go 1.26
 * (leakProfileSupport), nothing from Go 1.27 or before Go 1.26 (which has none: the agent then
 * takes no profile and proves no hang).
 */
export function leakProfileBuildEnv(go: GoToolchain): Record<string, string> {
  const support = leakProfileSupport(go.version);
  return support.kind === "experiment" ? { GOEXPERIMENT: support.goexperiment } : {};
}
