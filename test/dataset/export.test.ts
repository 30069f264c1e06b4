import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { programSource } from "../../src/dataset/export.js";
import { runCli } from "../helpers/cli.js";
import { cleanManifest, insertProgram, insertRun, leakManifest, scratchDatabase } from "./db-fixture.js";
import { records } from "./records.js";
import type { RecordSpec } from "./records.js";

const blockFirst: RecordSpec[] = [
  ["Initial", 1, "Running"],
  ["GoCreate", 2],
  ["GoBlock", 1, "chan receive"],
  ["GoStart", 2],
  ["GoEnd", 2],
];
const startFirst: RecordSpec[] = [
  ["Initial", 1, "Running"],
  ["GoCreate", 2],
  ["GoStart", 2],
  ["GoBlock", 1, "chan receive"],
  ["GoEnd", 2],
];

function fixture(): { db: string; dir: string } {
  const { db, file, dir } = scratchDatabase();
  const src = join(dir, "src", "a");
  mkdirSync(src, { recursive: true });
  writeFileSync(
    join(src, "main.go"),
    "package main\n\nfunc main() {\n\tch := make(chan int)\n\tgo func() { ch <- 1 }()\n\t<-ch\n}\n",
  );
  writeFileSync(join(src, "README"), "not go");
  const a = insertProgram(db, "patterns/a", cleanManifest, src);
  const b = insertProgram(db, "kernels/b", leakManifest);
  insertRun(db, a, 0, records(blockFirst));
  insertRun(db, a, 1, records(blockFirst));
  insertRun(db, a, 2, records(startFirst));
  insertRun(db, b, 0, records(startFirst));
  db.close();
  return { db: file, dir };
}

const lines = (text: string) =>
  text
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("schedlab export", () => {
  it("kl: one record per state with the soft target, source and rendering", async () => {
    const { db } = fixture();
    const r = await runCli([
      "export",
      "--format",
      "jsonl",
      "--objective",
      "kl",
      "--holdout",
      "dir:patterns",
      "--split",
      "test",
      "--db",
      db,
    ]);
    expect(r.code).toBe(0);
    const recs = lines(r.stdout);
    expect(recs).toHaveLength(3);
    const s25 = recs.find((x) => x.key === "split=25")!;
    expect(Object.keys(s25)).toEqual([
      "id",
      "prefixHash",
      "abstraction",
      "program",
      "key",
      "split",
      "source",
      "prompt",
      "target",
      "counts",
      "runs",
    ]);
    expect(s25.prefixHash).toMatch(/^[0-9a-f]{16}$/);
    expect(s25.program).toBe("patterns/a");
    expect(s25.split).toBe("test");
    expect(s25.target).toEqual({ GoCreate: 0, GoStart: 1 / 3, GoBlock: 2 / 3, GoUnblock: 0, GoSched: 0, GoEnd: 0 });
    expect(s25.runs).toBe(3);
    expect(s25.id).toMatch(/^[0-9a-f]{16}$/);
    expect(String(s25.source)).toContain("// file: main.go\npackage main");
    expect(String(s25.source)).not.toContain("not go");
    expect(String(s25.prompt)).toContain("GoCreate g2");
    expect(String(s25.prompt)).toMatch(/Which event happens next\?/);
  });

  it("ce: one record per observed run, ids shared with kl; chat variant; missing source reported", async () => {
    const { db, dir } = fixture();
    const kl = lines(
      (await runCli(["export", "--objective", "kl", "--holdout", "dir:patterns", "--split", "all", "--db", db])).stdout,
    );
    // The default is the training side only: a model fine-tuned on it can be scored on the test side.
    const trainOnly = lines(
      (await runCli(["export", "--objective", "kl", "--holdout", "dir:patterns", "--db", db])).stdout,
    );
    expect(new Set(trainOnly.map((x) => x.split))).toEqual(new Set(["train"]));
    const out = join(dir, "ce.jsonl");
    const r = await runCli([
      "export",
      "--objective",
      "ce",
      "--holdout",
      "dir:patterns",
      "--split",
      "all",
      "--chat",
      "--out",
      out,
      "--db",
      db,
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("exported 12 ce records (6 states, 2 programs, abstraction split)");
    expect(r.stderr).toContain("no readable source for kernels/b");
    expect(existsSync(`${out}.partial`)).toBe(false);
    const ce = lines(readFileSync(out, "utf8"));
    // Train side (kernels/b, 1 run × 3 split points) first, then test (patterns/a, 3 × 3).
    expect(ce.map((x) => x.split)).toEqual([...Array(3).fill("train"), ...Array(9).fill("test")]);
    expect(new Set(ce.map((x) => x.id))).toEqual(new Set(kl.map((x) => x.id)));
    const s25 = ce.filter((x) => x.program === "patterns/a" && x.key === "split=25");
    expect(s25.map((x) => x.target)).toEqual(["GoBlock", "GoBlock", "GoStart"]);
    const msgs = s25[0].messages as { role: string; content: string }[];
    expect(msgs.map((m) => m.role)).toEqual(["system", "user", "assistant"]);
    expect(msgs[1].content).toContain("```go\n// file: main.go");
    expect(msgs[2].content).toBe("GoBlock");
  });

  it("rejects bad options with hints", async () => {
    const { db } = fixture();
    expect((await runCli(["export", "--objective", "mse", "--db", db])).stderr).toContain("--objective ce | kl");
    expect((await runCli(["export", "--objective", "ce", "--format", "csv", "--db", db])).stderr).toContain(
      "--format jsonl",
    );
    expect((await runCli(["export", "--objective", "ce", "--max-tokens", "0", "--db", db])).code).toBe(2);
  });

  it("caps the program source", () => {
    const { dir } = fixture();
    const text = programSource({ root: "/", dir: join(dir, "src", "a") }, 40)!;
    expect(text.length).toBeLessThanOrEqual(40);
    expect(text).toContain("source truncated");
    expect(programSource({ root: "/", dir: join(dir, "nothing") }, 40)).toBeUndefined();
  });
});
