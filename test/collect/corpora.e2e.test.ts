// Program names across corpora: two roots never silently share a name, a test corpus's
// programs are named "<label>/<path>", and a moved tree keeps its runs. Real toolchain and runs.

import Database from "better-sqlite3";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { collect, labelCandidates } from "../../src/collect/index.js";
import { ProgramNameClashError } from "../../src/corpus/index.js";
import { UsageError } from "../../src/errors.js";
import { scratch } from "./helpers.js";

const HELLO = `package main

import "fmt"

func main() {
	done := make(chan int)
	go func() { done <- 1 }()
	fmt.Println(<-done)
}
`;

/** A tree with one main package at `app/hello`, its output line chosen by `variant`. */
function tree(root: string, variant: string): string {
  mkdirSync(join(root, "app", "hello"), { recursive: true });
  writeFileSync(
    join(root, "app", "hello", "main.go"),
    HELLO.replace("fmt.Println(<-done)", `fmt.Println(<-done, ${JSON.stringify(variant)})`),
  );
  return root;
}

describe("corpora and program names", () => {
  it("labels a root by its base name, then by its parent, then by a number", () => {
    expect(labelCandidates("/x/suite/kernels").slice(0, 3)).toEqual(["kernels", "suite-kernels", "kernels-2"]);
  });

  it("refuses a second root whose program would take a name already used, and prefixes a test corpus", async () => {
    const dir = scratch("corpora");
    const db = join(dir, "s.db");
    const common = { runs: 1, timeoutMs: 5_000, procs: [1], db, traces: join(dir, "traces") };
    const first = tree(join(dir, "one", "corpus"), "one");
    const second = tree(join(dir, "two", "corpus"), "two");
    await collect({ ...common, paths: [first] });
    await expect(collect({ ...common, paths: [second] })).rejects.toThrow(ProgramNameClashError);
    const external = await collect({ ...common, paths: [second], testCorpus: true });
    expect(external.programs.map((p) => p.name)).toEqual(["two-corpus/app/hello"]);
    // A root keeps its role: asking for the other one would rename its programs.
    await expect(collect({ ...common, paths: [second] })).rejects.toThrow(UsageError);
    // The same sources under another root are the same tree moved: its runs are kept.
    const moved = join(dir, "moved", "corpus");
    cpSync(first, moved, { recursive: true });
    const again = await collect({ ...common, paths: [moved] });
    expect(again.executed).toBe(0);
    const read = new Database(db, { readonly: true });
    try {
      expect(read.prepare("SELECT root, label, role FROM corpora ORDER BY label").all()).toEqual([
        { root: first, label: "corpus", role: "train" },
        { root: moved, label: "moved-corpus", role: "train" },
        { root: second, label: "two-corpus", role: "test" },
      ]);
      expect(read.prepare("SELECT name, root FROM programs ORDER BY name").all()).toEqual([
        { name: "app/hello", root: moved },
        { name: "two-corpus/app/hello", root: second },
      ]);
    } finally {
      read.close();
    }
  });
});
