// `schedlab doctor`: checks the machine can collect and decode traces — Node, the Go
// toolchain and its version, GOROOT, the Go helper build, `go tool trace` — and says
// how to fix each problem.

import { execa } from "execa";
import { goEnv, MIN_GO_MINOR, supportsTraces } from "../go/index.js";
import { goHelperPath } from "../gohelper/index.js";

export interface DoctorCheck {
  readonly name: string;
  readonly ok: boolean;
  /** What was found, e.g. "go1.26.8" or the error. */
  readonly detail: string;
  /** What to do when the check failed. */
  readonly fix?: string;
}

export interface Diagnosis {
  readonly ok: boolean;
  readonly checks: DoctorCheck[];
}

const MIN_NODE_MAJOR = 20;

function check(name: string, ok: boolean, detail: string, fix: string): DoctorCheck {
  return ok ? { name, ok, detail } : { name, ok, detail, fix };
}

async function goVersionCheck(): Promise<{ check: DoctorCheck; goroot: string | null }> {
  try {
    const { GOVERSION: version, GOROOT: goroot } = await goEnv(["GOVERSION", "GOROOT"]);
    return {
      check: check(
        "go",
        supportsTraces(version),
        version,
        `Install Go 1.${MIN_GO_MINOR} or newer (the trace format schedlab reads) and put it first on PATH.`,
      ),
      goroot,
    };
  } catch (error) {
    return {
      check: check(
        "go",
        false,
        (error as Error).message.split("\n")[0],
        `Install Go 1.${MIN_GO_MINOR} or newer and make sure \`go version\` works in this shell.`,
      ),
      goroot: null,
    };
  }
}

/** Runs every check; never throws. */
export async function diagnose(): Promise<Diagnosis> {
  const checks: DoctorCheck[] = [];
  const nodeMajor = Number(process.versions.node.split(".")[0]);
  checks.push(
    check(
      "node",
      nodeMajor >= MIN_NODE_MAJOR,
      `v${process.versions.node}`,
      `Install Node.js ${MIN_NODE_MAJOR} or newer.`,
    ),
  );
  const go = await goVersionCheck();
  checks.push(go.check);
  if (go.goroot !== null) {
    checks.push(
      check(
        "GOROOT",
        go.goroot !== "",
        go.goroot === "" ? "empty" : go.goroot,
        "Reinstall Go, or unset a wrong GOROOT so Go finds its own.",
      ),
    );
    try {
      const helper = await goHelperPath();
      checks.push({ name: "go helper (trace decoder)", ok: true, detail: helper });
    } catch (error) {
      const message = (error as Error).message;
      const hint = (error as { hint?: string }).hint;
      checks.push(
        check(
          "go helper (trace decoder)",
          false,
          message.slice(0, 2000),
          hint ?? "Check that the Go module proxy is reachable (the helper needs golang.org/x/exp).",
        ),
      );
    }
    const tool = await execa("go", ["tool", "-n", "trace"], { reject: false });
    checks.push(
      check(
        "go tool trace",
        tool.exitCode === 0,
        tool.exitCode === 0 ? String(tool.stdout).trim() : String(tool.stderr || tool.message || "failed").trim(),
        "Your Go installation lacks the trace tool; reinstall Go from https://go.dev/dl (only needed to inspect traces by hand and by the tests).",
      ),
    );
  }
  return { ok: checks.every((c) => c.ok), checks };
}
