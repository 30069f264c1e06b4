// Synthetic collections for the benchmarks: random but state-machine-valid record streams
// (main creates workers that block, wake and end) written straight into a schedlab database.

/** Deterministic PRNG (mulberry32). */
export function prng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random but state-machine-valid record stream: main creates workers that block, wake and end. */
export function simulate(program, run, events = 1000) {
  const rand = prng(program * 7919 + run * 104729 + 1);
  const workers = 2 + (program % 9);
  const reasons = ["chan receive", "chan send", "select", "sync", "sleep"];
  const state = new Map([[1, "running"]]);
  const records = [{ kind: "Initial", g: 1, reason: "Running", site: null }];
  let next = 2;
  let produced = 0;
  const pick = (status) => [...state].filter(([, s]) => s === status).map(([g]) => g);
  while (produced < events) {
    const running = pick("running");
    const runnable = pick("runnable");
    const waiting = pick("waiting");
    const r = rand();
    let rec;
    if (running.includes(1) && next <= workers + 1 && r < 0.3) {
      rec = { kind: "GoCreate", g: next, reason: "", site: `main.main main.go:${10 + next}` };
      state.set(next++, "runnable");
    } else if (runnable.length > 0 && r < 0.55) {
      const g = runnable[Math.floor(rand() * runnable.length)];
      rec = { kind: "GoStart", g, reason: "", site: null };
      state.set(g, "running");
    } else if (running.length > 0 && r < 0.8) {
      const g = running[Math.floor(rand() * running.length)];
      const end = g !== 1 && rand() < 0.05;
      rec = end
        ? { kind: "GoEnd", g, reason: "", site: null }
        : {
            kind: "GoBlock",
            g,
            reason: reasons[Math.floor(rand() * reasons.length)],
            site: `main.worker main.go:${30 + (g % 5)}`,
          };
      state.set(g, end ? "ended" : "waiting");
    } else if (waiting.length > 0 && r < 0.95) {
      const g = waiting[Math.floor(rand() * waiting.length)];
      rec = { kind: "GoUnblock", g, reason: "", site: null };
      state.set(g, "runnable");
    } else if (running.length > 0) {
      const g = running[Math.floor(rand() * running.length)];
      rec = { kind: "GoSched", g, reason: rand() < 0.5 ? "preempted" : "runtime.Gosched", site: null };
      state.set(g, "runnable");
    } else if (runnable.length > 0) {
      const g = runnable[0];
      rec = { kind: "GoStart", g, reason: "", site: null };
      state.set(g, "running");
    } else if (waiting.length > 0) {
      const g = waiting[0];
      rec = { kind: "GoUnblock", g, reason: "", site: null };
      state.set(g, "runnable");
    } else {
      break;
    }
    records.push(rec);
    produced++;
  }
  return { records, goroutines: next - 1 };
}

/**
 * Writes `programs` synthetic programs × `runs` runs of `events` events each into `db` (the tables
 * the trace stage fills). With `families`, program p is named bench/fN/pP with N = p mod families,
 * so the programs fall into that many families (cross-validation needs several); else bench/pP.
 */
export function seed(db, inTransaction, { programs, runs, events, families }) {
  const insertProgram = db.prepare(
    "INSERT INTO programs (name, root, dir, kind, source_hash) VALUES (?, '/bench', ?, 'main', 'x')",
  );
  const insertRun = db.prepare(
    "INSERT INTO runs (program_id, config, procs, run_index, outcome, ingest_status, created_at) VALUES (?, 'procs-2', 2, ?, 'ok', 'ok', 'now')",
  );
  const insertEvent = db.prepare(
    "INSERT INTO events (run_id, seq, time_ns, kind, gid, actor_gid, reason, site) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)",
  );
  const insertGoroutine = db.prepare("INSERT INTO goroutines (run_id, gid, canonical_id, is_root) VALUES (?, ?, ?, ?)");
  for (let p = 0; p < programs; p++) {
    inTransaction(db, () => {
      const programId = Number(
        insertProgram.run(
          `bench/${families === undefined ? "" : `f${p % families}/`}p${String(p).padStart(3, "0")}`,
          `/bench/p${p}`,
        ).lastInsertRowid,
      );
      for (let r = 0; r < runs; r++) {
        const runId = Number(insertRun.run(programId, r).lastInsertRowid);
        const { records, goroutines } = simulate(p, r, events);
        records.forEach((rec, seq) => insertEvent.run(runId, seq, seq * 100, rec.kind, rec.g, rec.reason, rec.site));
        for (let g = 1; g <= goroutines; g++)
          insertGoroutine.run(
            runId,
            g,
            g === 1 ? "main.main" : `main.main/main.worker@main.go:${10 + g}#0`,
            g === 1 ? 1 : 0,
          );
      }
    });
  }
}
