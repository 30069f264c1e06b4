// The state machine against real traces with syscalls, sleeps, mutexes and GOMAXPROCS 1 and 4:
// a Go program written here is built, traced three times per setting, ingested, replayed.

import { execa } from "execa";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadProgramRuns, selectPrograms } from "../../src/dataset/index.js";
import type { RunRecords } from "../../src/dataset/types.js";
import { applyTransition, newGoroutineMachine, replayRecords } from "../../src/rollout/index.js";
import { openDatabase } from "../../src/store/index.js";
import { ingestRuns } from "../../src/trace/index.js";

const SOURCE = `package main

import (
	"os"
	"path/filepath"
	"runtime/trace"
	"sync"
	"time"
)

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	defer f.Close()
	if err := trace.Start(f); err != nil {
		panic(err)
	}
	defer trace.Stop()
	dir, _ := os.MkdirTemp("", "syscalls")
	defer os.RemoveAll(dir)
	var mu sync.Mutex
	var wg sync.WaitGroup
	total := 0
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				name := filepath.Join(dir, string(rune('a'+w)))
				_ = os.WriteFile(name, []byte("payload"), 0o600)
				b, _ := os.ReadFile(name)
				mu.Lock()
				total += len(b)
				mu.Unlock()
				if i%7 == 0 {
					time.Sleep(time.Millisecond)
				}
			}
		}(w)
	}
	wg.Wait()
	if total != 6*20*7 {
		panic(total)
	}
}
`;

let runs: RunRecords[] = [];

beforeAll(async () => {
  const scratch = mkdtempSync(join(tmpdir(), "schedlab-rollout-"));
  writeFileSync(join(scratch, "go.mod"), "module example.com/syscalls\n\ngo 1.22\n");
  writeFileSync(join(scratch, "main.go"), SOURCE);
  const binary = join(scratch, "syscalls");
  await execa("go", ["build", "-o", binary, "."], { cwd: scratch, env: { GOTOOLCHAIN: "local" } });
  const db = openDatabase(join(scratch, "schedlab.db"));
  try {
    const programId = Number(
      db
        .prepare("INSERT INTO programs (name, root, dir, kind, source_hash) VALUES ('syscalls', ?, ?, 'main', 'x')")
        .run(scratch, scratch).lastInsertRowid,
    );
    let index = 0;
    for (const procs of [1, 4]) {
      for (let i = 0; i < 3; i++, index++) {
        const trace = join(scratch, `run${index}.trace`);
        await execa(binary, [trace], { env: { GOMAXPROCS: String(procs) }, timeout: 30_000 });
        db.prepare(
          "INSERT INTO runs (program_id, config, procs, run_index, outcome, exit_code, trace_path, created_at) VALUES (?, ?, ?, ?, 'ok', 0, ?, '2026-01-01')",
        ).run(programId, `procs-${procs}`, procs, index, trace);
      }
    }
    const summary = await ingestRuns(db, { concurrency: 1 });
    expect(summary.ok).toBe(6);
    runs = selectPrograms(db).flatMap((p) => loadProgramRuns(db, p));
  } finally {
    db.close();
  }
}, 180_000);

describe("state machine on real traces with syscalls", () => {
  it("every recorded transition validates at GOMAXPROCS 1 and 4, syscalls included", () => {
    const kinds: Record<string, number> = {};
    for (const run of runs) {
      const { violations } = replayRecords(run.records, run.records.length, run.procs);
      expect(violations.map((v) => `#${run.runId}@${v.index} ${v.verdict.valid ? "" : v.verdict.message}`)).toEqual([]);
      for (const r of run.records) kinds[r.kind] = (kinds[r.kind] ?? 0) + 1;
    }
    expect(runs.map((r) => r.procs).sort()).toEqual([1, 1, 1, 4, 4, 4]);
    expect(kinds.SyscallEnter ?? 0).toBeGreaterThan(100);
    expect(kinds.SyscallExit ?? 0).toBeGreaterThan(0);
    expect(kinds.GoBlock ?? 0).toBeGreaterThan(0);
  });

  it("at GOMAXPROCS 1 the replay never has more than one user goroutine running", () => {
    for (const run of runs.filter((r) => r.procs === 1)) {
      let maxRunning = 0;
      const partial = newGoroutineMachine(1);
      for (const r of run.records) {
        applyTransition(partial, r);
        maxRunning = Math.max(maxRunning, partial.running.size);
      }
      expect(maxRunning).toBe(1);
    }
  });
});
