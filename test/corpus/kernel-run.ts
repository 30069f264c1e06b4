// Test helper: runs corpus kernels once under `go test` with an overlaid TestMain that
// dumps every goroutine when the tests return (hanging tests dump on -test.timeout),
// and reports each package's blocked user goroutines. The tree is never modified.

import { execa } from "execa";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { blockedUserGoroutines, type BlockedGoroutine } from "./goroutine-dump.js";

export interface KernelObservation {
  readonly output: string;
  readonly blocked: BlockedGoroutine[];
}

const dumpMain = (pkgName: string): string => `package ${pkgName}

import (
	"os"
	"runtime"
	"testing"
)

func TestMain(m *testing.M) {
	code := m.Run()
	buf := make([]byte, 1<<20)
	n := runtime.Stack(buf, true)
	os.Stdout.Write(buf[:n])
	os.Exit(code)
}
`;

function packageName(dir: string): string {
  for (const f of readdirSync(dir).filter((f) => f.endsWith("_test.go"))) {
    const m = /^package (\w+)$/m.exec(readFileSync(join(dir, f), "utf8"));
    if (m) return m[1];
  }
  throw new Error(`no _test.go file with a package clause in ${dir}`);
}

/** Runs every package in `pkgDirs` (relative to the module at `moduleDir`) once. */
export async function observeKernels(
  moduleDir: string,
  modulePath: string,
  pkgDirs: readonly string[],
  testTimeout = "2s",
): Promise<Map<string, KernelObservation>> {
  const scratch = mkdtempSync(join(tmpdir(), "schedlab-kernels-"));
  const replace: Record<string, string> = {};
  pkgDirs.forEach((dir, i) => {
    const file = join(scratch, `dump${i}_test.go`);
    writeFileSync(file, dumpMain(packageName(join(moduleDir, dir))));
    replace[join(moduleDir, dir, "zz_schedlab_dump_test.go")] = file;
  });
  const overlay = join(scratch, "overlay.json");
  writeFileSync(overlay, JSON.stringify({ Replace: replace }));
  const run = await execa(
    "go",
    ["test", "-json", "-count=1", `-timeout=${testTimeout}`, `-overlay=${overlay}`, ...pkgDirs.map((d) => `./${d}`)],
    { cwd: moduleDir, reject: false, env: { GOFLAGS: "", GOMAXPROCS: "2" } },
  );
  const outputs = new Map<string, string>();
  for (const line of run.stdout.split("\n")) {
    if (!line.startsWith("{")) continue;
    const ev = JSON.parse(line) as { Action?: string; Package?: string; Output?: string };
    if (ev.Action === "output" && ev.Package && ev.Output)
      outputs.set(ev.Package, (outputs.get(ev.Package) ?? "") + ev.Output);
  }
  const result = new Map<string, KernelObservation>();
  for (const dir of pkgDirs) {
    const pkg = `${modulePath}/${dir}`;
    const output = outputs.get(pkg) ?? "";
    result.set(dir, { output, blocked: blockedUserGoroutines(output, pkg) });
  }
  return result;
}
