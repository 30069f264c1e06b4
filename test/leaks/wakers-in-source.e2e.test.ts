// wakersInSource on a package read by the real Go helper: who could complete a wait that no
// run showed completed — a ring of closures, a ring of one worker function, a select, the
// corpus's compactionring kernel — with stacks and creation sites at the lines the tracer
// reports for goroutines parked there (checked on a real trace of the kernel), parameters
// resolved through them, and the merged answer where they cannot be.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { goHelperPath } from "../../src/gohelper/index.js";
import { parseStack } from "../../src/model/waits.js";
import {
  waitSites,
  wakersInSource,
  type BlockedAt,
  type WaitSiteIndex,
  type WakerCandidate,
} from "../../src/model/wait-sites.js";
import { collectFixtures, type Collected } from "./collected.js";

// Each "// at: NAME" marks the line of a goroutine's frame named NAME.
const SOURCE = `// A three-goroutine ring and its variants.
package ring

import "time"

// Ring: A receives from B, B from C, C from A, each sending only after it received.
func Ring() {
	ba := make(chan int)
	cb := make(chan int)
	ac := make(chan int)
	go func() {
		v := <-ba // at: A
		ac <- v
	}()
	go func() {
		v := <-cb // at: B
		ba <- v
	}()
	go func() {
		v := <-ac // at: C
		cb <- v
	}()
	select { // at: Ring
	case <-ba:
	case <-time.After(time.Hour):
	}
	close(ac)
}

func worker(in <-chan int, out chan<- int) {
	v := <-in // at: worker
	out <- v
}

// WorkerRing: the same ring, one function started three times on different channels.
func WorkerRing() {
	x, y, z := make(chan int), make(chan int), make(chan int)
	go worker(x, y) // at: go-xy
	go worker(y, z) // at: go-yz
	go worker(z, x) // at: go-zx
	<-time.After(time.Hour) // at: timer
}

// ValueRing: a ring of workers again, one started through a function value.
func ValueRing() {
	p, q, r := make(chan int), make(chan int), make(chan int)
	go worker(p, q) // at: go-pq
	go worker(q, r) // at: go-qr
	start := worker
	go start(r, p) // at: go-rp
}

func await(c chan int) {
	<-c // at: await
}

func waiter(c chan int) {
	await(c) // at: waiter
}

func sender(c chan int) {
	c <- 1 // at: sender
}

func deferWait(c chan int) {
	defer func(d chan int) {
		<-d // at: deferred
	}(c)
} // at: deferExit

// Chain: waits two calls deep on a parameter of a parameter; one sender.
func Chain() {
	c1, c2, d1, d2 := make(chan int), make(chan int), make(chan int), make(chan int)
	go waiter(c1) // at: go-waiter1
	go waiter(c2) // at: go-waiter2
	go sender(c1) // at: go-sender1
	go deferWait(d1) // at: go-defer1
	go sender(d2) // at: go-sender2
	go sender(d1) // at: go-sender3
}

func pingPong(c chan int) {
	for {
		select { // at: pingPong
		case v := <-c:
			_ = v
		case c <- 1:
		}
	}
}

func feed(c chan int) {
	c <- 1 // at: feed
}

func receive(in chan int) int {
	return <-in // at: receive
}

func relay(in, c chan int) {
	v := receive(in) // at: relay
	c <- v
}

// Twins: two ping-pongs on channels of one class, a relay that sends on that class after
// it received, and a feeder parked at a send on it.
func Twins() {
	c1, c2 := make(chan int), make(chan int)
	go pingPong(c1)
	go pingPong(c2)
	go relay(make(chan int), c1)
	go feed(c2)
}
`;

function lineOf(name: string): number {
  const index = SOURCE.split("\n").findIndex((l) => l.endsWith(`// at: ${name}`));
  if (index < 0) throw new Error(`no marker ${name}`);
  return index + 1;
}

/** A frame at the marked line of ring.go. */
const at = (name: string) => ({ file: "ring.go", line: lineOf(name) });
/** A candidate goroutine whose stack is the marked frames, innermost first. */
const goroutine = (id: string, ...names: string[]) => ({ id, frames: names.map(at) });
/** The same, created by the `go` statement at the marked line. */
const started = (id: string, creation: string, ...names: string[]): WakerCandidate => ({
  ...goroutine(id, ...names),
  creationSite: at(creation),
});
/** Every goroutine of `all` but `one`. */
const others = (all: readonly WakerCandidate[], one: WakerCandidate) => all.filter((g) => g !== one);
/** A candidate as the blocked goroutine: parked at its innermost frame. */
const blocked = (c: WakerCandidate): BlockedAt => ({ ...c.frames[0], frames: c.frames, creationSite: c.creationSite });

let dir: string;
let index: WaitSiteIndex;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "schedlab-wakers-"));
  writeFileSync(join(dir, "ring.go"), SOURCE);
  index = waitSites(dir, ["ring.go"], await goHelperPath());
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("a ring of closures over local channels", () => {
  const ring = [goroutine("A", "A"), goroutine("B", "B"), goroutine("C", "C"), goroutine("main", "Ring")];

  test("the helper gives each ring channel its own class, shared by its send and its receive", () => {
    expect(index.errors).toEqual([]);
    const ba = index.opsByChannel.get(`ba@ring.go:${String(lineOf("A") - 4)}`) ?? [];
    expect(ba.map((o) => `${o.op}@${String(o.line)} ${String(o.funcStart)}-${String(o.funcEnd)}`)).toEqual([
      `recv@${String(lineOf("A"))} ${String(lineOf("A") - 1)}-${String(lineOf("A") + 2)}`,
      `send@${String(lineOf("B") + 1)} ${String(lineOf("B") - 1)}-${String(lineOf("B") + 2)}`,
      `recv@${String(lineOf("Ring"))} ${String(lineOf("A") - 5)}-${String(lineOf("Ring") + 5)}`,
    ]);
  });

  test("each one waits for the goroutine whose function later sends on its channel", () => {
    expect(wakersInSource(index, at("A"), ring)).toEqual(["B"]);
    expect(wakersInSource(index, at("B"), ring)).toEqual(["C"]);
    // Ring closes ac once its select returns: main, parked there, could wake C too.
    expect(wakersInSource(index, at("C"), ring)).toEqual(["A", "main"]);
  });

  test("a select with one case on a ring channel waits for that channel's sender; its timer case adds no one", () => {
    expect(wakersInSource(index, { ...at("Ring"), function: "ring.Ring", reason: "select" }, ring)).toEqual(["B"]);
  });

  test("a closure's frame is not in its enclosing function: B does not run Ring's close(ac)", () => {
    expect(wakersInSource(index, at("C"), [goroutine("B", "B")])).toEqual([]);
  });
});

describe("a ring of one worker function", () => {
  const workers = [
    goroutine("w1", "worker"),
    goroutine("w2", "worker"),
    goroutine("w3", "worker"),
    goroutine("main", "timer"),
  ];

  test("the helper names its parameters and gives each go statement's arguments their own classes", () => {
    const worker = index.functions.find((f) => f.start === lineOf("worker") - 1);
    expect(worker?.id).toBe(`worker@ring.go:${String(lineOf("worker") - 1)}:1`);
    expect(
      index.ops
        .filter((o) => o.line === lineOf("worker") || o.line === lineOf("worker") + 1)
        .map((o) => [o.op, o.param?.index, o.merged === o.channel]),
    ).toEqual([
      ["recv", 0, true],
      ["send", 1, false],
    ]);
    const calls = index.calls.filter(
      (c) => c.callee === worker?.id && c.line >= lineOf("go-xy") && c.line <= lineOf("go-zx"),
    );
    expect(calls.map((c) => [c.kind, c.line, ...c.args.map((a) => a.channels.join(","))])).toEqual([
      ["go", lineOf("go-xy"), `x@ring.go:${String(lineOf("go-xy") - 1)}`, `y@ring.go:${String(lineOf("go-xy") - 1)}`],
      ["go", lineOf("go-yz"), `y@ring.go:${String(lineOf("go-xy") - 1)}`, `z@ring.go:${String(lineOf("go-xy") - 1)}`],
      ["go", lineOf("go-zx"), `z@ring.go:${String(lineOf("go-xy") - 1)}`, `x@ring.go:${String(lineOf("go-xy") - 1)}`],
    ]);
  });

  test("with their creation sites, each worker's parameters are its own channels: one waker each", () => {
    const xy = started("xy", "go-xy", "worker");
    const yz = started("yz", "go-yz", "worker");
    const zx = started("zx", "go-zx", "worker");
    const ring = [xy, yz, zx, goroutine("main", "timer")];
    expect(wakersInSource(index, blocked(xy), others(ring, xy))).toEqual(["zx"]);
    expect(wakersInSource(index, blocked(yz), others(ring, yz))).toEqual(["xy"]);
    expect(wakersInSource(index, blocked(zx), others(ring, zx))).toEqual(["yz"]);
  });

  test("without creation sites the parameters keep their merged class: every other worker could be the waker", () => {
    expect(wakersInSource(index, at("worker"), workers.slice(1))).toEqual(["w2", "w3"]);
    // Only the blocked goroutine's creation site known: the candidates' operations stay merged.
    expect(wakersInSource(index, blocked(started("xy", "go-xy", "worker")), workers.slice(1))).toEqual(["w2", "w3"]);
  });

  test("a worker started through a function value cannot be resolved: its operations keep the merged answer", () => {
    const pq = started("pq", "go-pq", "worker");
    const qr = started("qr", "go-qr", "worker");
    const rp = started("rp", "go-rp", "worker");
    const ring = [pq, qr, rp];
    // pq waits on p: only rp sends there, and rp, unresolved, could send on any channel of the class.
    expect(wakersInSource(index, blocked(pq), others(ring, pq))).toEqual(["rp"]);
    // qr waits on q: pq sends there; rp still could.
    expect(wakersInSource(index, blocked(qr), others(ring, qr))).toEqual(["pq", "rp"]);
    // rp's own wait is unresolved: every worker that sends on the class could wake it, as before.
    expect(wakersInSource(index, blocked(rp), others(ring, rp))).toEqual(["pq", "qr"]);
  });

  test("a wait on time.After has no class, so no candidates", () => {
    expect(wakersInSource(index, at("timer"), workers)).toEqual([]);
  });
});

describe("parameters resolved through several frames", () => {
  const waiter1 = started("waiter1", "go-waiter1", "await", "waiter");
  const waiter2 = started("waiter2", "go-waiter2", "await", "waiter");
  const sender1 = started("sender1", "go-sender1", "sender");
  const sender2 = started("sender2", "go-sender2", "sender");
  const sender3 = started("sender3", "go-sender3", "sender");
  const deferred = started("deferred", "go-defer1", "deferred", "deferExit");

  test("a wait two calls deep on its caller's parameter is the channel of the go statement", () => {
    expect(wakersInSource(index, blocked(waiter1), [waiter2, sender1, sender2, sender3])).toEqual(["sender1"]);
    expect(wakersInSource(index, blocked(waiter2), [waiter1, sender1, sender2, sender3])).toEqual([]);
    // Without the outer frame the chain stops at await's parameter: the merged answer.
    expect(
      wakersInSource(index, { ...at("await"), creationSite: at("go-waiter2") }, [sender1, sender2, sender3]),
    ).toEqual(["sender1", "sender2", "sender3"]);
  });

  test("a deferred literal's caller frame is at the function's exit: its defer statement is the call site", () => {
    expect(wakersInSource(index, blocked(deferred), [sender1, sender2, sender3])).toEqual(["sender3"]);
  });
});

describe("what does not count", () => {
  const twins = [
    goroutine("p2", "pingPong"),
    goroutine("relay", "receive", "relay"),
    goroutine("feed", "feed"),
    goroutine("other", "A"),
  ];

  test("a goroutine parked in the same select waits like it; a relay's outer frame holds a later send", () => {
    // feed is parked at a send on the class, the direction of pingPong's own send case: not a waker.
    expect(wakersInSource(index, at("pingPong"), twins)).toEqual(["relay"]);
  });

  test("a nil channel, an unknown line or file, or frames in other files give no one", () => {
    expect(wakersInSource(index, { ...at("A"), reason: "nil chan receive" }, [goroutine("B", "B")])).toEqual([]);
    expect(wakersInSource(index, { file: "ring.go", line: 1 }, [goroutine("B", "B")])).toEqual([]);
    expect(wakersInSource(index, { file: "other.go", line: lineOf("A") }, [goroutine("B", "B")])).toEqual([]);
    expect(wakersInSource(index, at("A"), [{ id: "B", frames: [{ file: "other.go", line: lineOf("B") }] }])).toEqual(
      [],
    );
  });

  test("frames given with directories match by base name", () => {
    expect(
      wakersInSource(index, { file: join(dir, "ring.go"), line: lineOf("A") }, [
        { id: "B", frames: [{ file: "/elsewhere/ring.go", line: lineOf("B") }] },
      ]),
    ).toEqual(["B"]);
  });
});

/** The line of the kernel's source whose text contains `text`. */
function kernelLine(source: string, text: string): number {
  const index = source.split("\n").findIndex((l) => l.includes(text));
  if (index < 0) throw new Error(`no line with ${text}`);
  return index + 1;
}

const KERNEL = fileURLToPath(new URL("../../go-programs/kernels/chancycle/compactionring/", import.meta.url));
const KERNEL_PACKAGE = "schedlab.dev/corpus/kernels/chancycle/compactionring";

describe("the compactionring kernel: three shards run take(turn, next) on a ring of channels", () => {
  let kernel: WaitSiteIndex;
  let source: string;

  beforeAll(async () => {
    source = readFileSync(join(KERNEL, "ring_test.go"), "utf8");
    kernel = waitSites(KERNEL, ["ring_test.go"], await goHelperPath());
  });

  /** Shard `name`, parked in take: the stack the tracer records, take's receive then the closure's call, created at the closure's go statement. */
  const shard = (name: string, call: string): WakerCandidate => {
    const callLine = kernelLine(source, call);
    return {
      id: name,
      frames: [
        { file: "ring_test.go", line: kernelLine(source, "round := <-turn") },
        { file: "ring_test.go", line: callLine },
      ],
      creationSite: { file: "ring_test.go", line: callLine - 1 },
    };
  };
  const asBlocked = (c: WakerCandidate): BlockedAt => ({
    ...blocked(c),
    function: `${KERNEL_PACKAGE}.(*shard).take`,
    reason: "chan receive",
  });

  test("each shard waits for exactly the shard that sends on its turn channel: a ← b ← c ← a", () => {
    expect(kernel.errors).toEqual([]);
    const a = shard("a", "a.take(bToA, aToC)");
    const b = shard("b", "b.take(cToB, bToA)");
    const c = shard("c", "c.take(aToC, cToB)");
    const test = { id: "test", frames: [{ file: "ring_test.go", line: kernelLine(source, "select {") }] };
    const all = [a, b, c, test];
    expect(wakersInSource(kernel, asBlocked(a), others(all, a))).toEqual(["b"]);
    expect(wakersInSource(kernel, asBlocked(b), others(all, b))).toEqual(["c"]);
    expect(wakersInSource(kernel, asBlocked(c), others(all, c))).toEqual(["a"]);
  });

  test("without stacks take's parameters keep the merged class: every other shard could be the waker", () => {
    const a = shard("a", "a.take(bToA, aToC)");
    const others = [shard("b", "b.take(cToB, bToA)"), shard("c", "c.take(aToC, cToB)")].map((g) => ({
      id: g.id,
      frames: g.frames.slice(0, 1),
    }));
    expect(wakersInSource(kernel, { ...a.frames[0], reason: "chan receive" }, others)).toEqual(["b", "c"]);
  });

  describe("on a real trace", () => {
    let collected: Collected;

    beforeAll(async () => {
      collected = await collectFixtures([KERNEL], { runs: 1, timeoutMs: 20_000 });
    }, 300_000);

    afterAll(() => {
      collected?.db.close();
      if (collected !== undefined) rmSync(collected.dir, { recursive: true, force: true });
    });

    test("the shards' last blocks and creation sites, as recorded, give one waker each: the ring", () => {
      const rows = collected.db
        .prepare(
          `SELECT e.gid AS gid, e.stack AS stack, g.creation_site AS creation FROM events e JOIN goroutines g ON g.run_id = e.run_id AND g.gid = e.gid
           WHERE e.kind = 'GoBlock' AND e.reason = 'chan receive' AND e.site LIKE '%(*shard).take %' ORDER BY e.run_id, e.seq`,
        )
        .all() as { gid: number; stack: string; creation: string }[];
      const shards = new Map<number, WakerCandidate>();
      for (const row of rows) {
        const creation = parseStack(`;${row.creation}`).frames[0];
        shards.set(row.gid, {
          id: String(creation.line),
          frames: parseStack(row.stack).frames,
          creationSite: creation,
        });
      }
      const byLine = (call: string): string => String(kernelLine(source, call) - 1);
      const [a, b, c] = ["a.take(bToA, aToC)", "b.take(cToB, bToA)", "c.take(aToC, cToB)"].map(byLine);
      const candidates = [...shards.values()];
      expect(candidates.map((s) => s.id).sort()).toEqual([a, b, c].sort());
      const wakers = Object.fromEntries(
        candidates.map((s) => [s.id, wakersInSource(kernel, asBlocked(s), others(candidates, s))]),
      );
      expect(wakers).toEqual({ [a]: [b], [b]: [c], [c]: [a] });
    });
  });
});
