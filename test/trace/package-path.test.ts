// Function names of packages outside any module, made relative to the root given to collect.

import { describe, expect, test } from "vitest";
import { relativePackagePaths } from "../../src/trace/index.js";

describe("relativePackagePaths", () => {
  test("sites, entries and methods of a package below the root lose the machine path", () => {
    expect(relativePackagePaths("_/home/me/kernels/pool.(*Pool).Go pool.go:10", "/home/me/kernels")).toBe(
      "pool.(*Pool).Go pool.go:10",
    );
    expect(relativePackagePaths("_/home/me/kernels/a/b.TestX.func1.2", "/home/me/kernels")).toBe("a/b.TestX.func1.2");
    expect(relativePackagePaths("_/home/me/kernels/pool.Map[...] x.go:3", "/home/me/kernels/")).toBe(
      "pool.Map[...] x.go:3",
    );
  });

  test("the root itself is named by its base name, a sibling by a relative path, and dots stay where Go puts them", () => {
    expect(relativePackagePaths("_/home/me/kernels.TestX", "/home/me/kernels")).toBe("kernels.TestX");
    expect(relativePackagePaths("_/home/me/other/pkg.F", "/home/me/kernels")).toBe("../other/pkg.F");
    expect(relativePackagePaths("_/home/me/v1.2/pkg%2ev3.F", "/home/me")).toBe("v1.2/pkg%2ev3.F");
  });

  test("every occurrence in a text is rewritten; names inside a module and plain text are left alone", () => {
    expect(relativePackagePaths("pool.F[_/r/k/pool.T] (_/r/k/pool.G)", "/r/k")).toBe("pool.F[pool.T] (pool.G)");
    expect(relativePackagePaths("example.com/m/pool.(*Pool).Go pool.go:10", "/r/k")).toBe(
      "example.com/m/pool.(*Pool).Go pool.go:10",
    );
    expect(relativePackagePaths("chan receive", "/r/k")).toBe("chan receive");
    expect(relativePackagePaths("main.worker main.go:12", "/r/k")).toBe("main.worker main.go:12");
  });
});
