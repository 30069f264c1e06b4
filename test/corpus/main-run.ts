// Test helper: builds generated `main` programs in a scratch module (copies, never the
// tree), with main rewritten on its own line to dump every goroutine when it returns,
// runs each once and reports its blocked user goroutines.

import { execa } from "execa";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { blockedUserGoroutines, type BlockedGoroutine } from "./goroutine-dump.js";

export interface MainObservation {
  readonly exitCode: number | undefined;
  readonly stdout: string;
  readonly blocked: BlockedGoroutine[];
}

const dumpFile = `package main

import (
	"os"
	"runtime"
)

func schedlabDumpGoroutines() {
	buf := make([]byte, 1<<20)
	n := runtime.Stack(buf, true)
	os.Stderr.Write(buf[:n])
}
`;

/** Builds and runs every program directory once (GOMAXPROCS=2); keyed by directory name. */
export async function observeMains(programDirs: readonly string[]): Promise<Map<string, MainObservation>> {
  const scratch = mkdtempSync(join(tmpdir(), "schedlab-mains-"));
  writeFileSync(join(scratch, "go.mod"), "module schedlab.dev/scratch\n\ngo 1.22\n");
  for (const dir of programDirs) {
    const copy = join(scratch, "p", basename(dir));
    cpSync(dir, copy, { recursive: true });
    const main = readFileSync(join(copy, "main.go"), "utf8");
    // Same line, so every `go` statement keeps its line number.
    writeFileSync(
      join(copy, "main.go"),
      main.replace(/^func main\(\) \{$/m, "func main() { defer schedlabDumpGoroutines()"),
    );
    writeFileSync(join(copy, "zz_dump.go"), dumpFile);
  }
  const build = await execa("go", ["build", "-o", join(scratch, "bin") + "/", "./p/..."], {
    cwd: scratch,
    reject: false,
    all: true,
  });
  if (build.exitCode !== 0) throw new Error(`generated programs do not build:\n${build.all ?? ""}`);
  const result = new Map<string, MainObservation>();
  for (const dir of programDirs) {
    const name = basename(dir);
    const run = await execa(join(scratch, "bin", name), [], {
      reject: false,
      timeout: 10_000,
      env: { GOMAXPROCS: "2" },
    });
    result.set(name, {
      exitCode: run.exitCode,
      stdout: run.stdout,
      blocked: blockedUserGoroutines(run.stderr, "main"),
    });
  }
  return result;
}
