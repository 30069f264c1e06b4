// Go symbol names as findings print them: a versioned module's package is named by its
// name, never by its major-version suffix (issue 41: "v2.", "v3.", "v5." instead of names).

import { describe, expect, test } from "vitest";
import { packageName, shortFunction, splitSymbol } from "../../src/core/index.js";
import { goroutineLabel } from "../../src/model/index.js";
import { shortFunctionName } from "../../src/trace/index.js";

describe("Go names", () => {
  test("a package is named by its last element that is not a major-version suffix", () => {
    expect(packageName("github.com/x/yaml/v3")).toBe("yaml");
    expect(packageName("gopkg.in/yaml.v3")).toBe("yaml");
    expect(packageName("gopkg.in/yaml%2ev3")).toBe("yaml");
    expect(packageName("example.com/m/pool")).toBe("pool");
    expect(packageName("sync")).toBe("sync");
  });

  test("a function keeps its package's name and drops the path", () => {
    expect(shortFunction("github.com/x/ratelimit/v5.(*Limiter).Wait")).toBe("ratelimit.(*Limiter).Wait");
    expect(shortFunction("schedlab.dev/words/ringbuf/v2.TestDrain.func1")).toBe("ringbuf.TestDrain.func1");
    expect(shortFunction("example.com/m/pool.(*Pool).Get")).toBe("pool.(*Pool).Get");
    expect(shortFunction("main.main")).toBe("main.main");
    expect(shortFunction("example.com/m/pool.Map[...].Get")).toBe("pool.Map[...].Get");
    expect(splitSymbol("example.com/m/v2.F")).toEqual({ packagePath: "example.com/m/v2", rest: ".F" });
  });

  test("identities and labels name a versioned module's goroutine by its package", () => {
    expect(shortFunctionName("github.com/x/yaml/v3.(*decoder).run")).toBe("yaml.(*decoder).run");
    const entry = shortFunctionName("schedlab.dev/words/ringbuf/v2.TestDrain.func1");
    expect(goroutineLabel(`TestDrain/${entry}@ring_test.go:12#0`)).toBe("ringbuf.TestDrain.func1");
  });
});
