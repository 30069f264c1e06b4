// Creation sites that are not `go` statements (src/corpus/sites.ts): a goroutine started
// inside the standard library has the user's call into it as its site, so a call to a
// function of an imported standard-library package is a site; other lines are not.

import { describe, expect, it } from "vitest";
import { callsStandardLibrary, siteProblem, standardLibraryImports } from "../../src/corpus/index.js";

const SERVER_TEST = [
  "package server", // 1
  "", // 2
  "import (", // 3
  '\t"net"', // 4
  '\t"net/http"', // 5
  '\tht "net/http/httptest"', // 6
  '\t"example.com/realsuites/server/internal/echo"', // 7
  '\trand "math/rand/v2"', // 8
  '\t_ "embed"', // 9
  ")", // 10
  "", // 11
  "func TestLeft(t *testing.T) {", // 12
  "\tsrv := ht.NewServer(http.HandlerFunc(greet))", // 13
  "\tgo echo.Serve(ln)", // 14
  "\techo.Start(ln)", // 15
  "\tsrv.Start()", // 16
  '\tt.Log("net.Listen(tcp)") // net.Listen("tcp", addr)', // 17
  "}", // 18
].join("\n");

describe("standard-library imports", () => {
  it("names each by its alias or last path element, leaving out modules, C, _ and dot imports", () => {
    expect([...standardLibraryImports(SERVER_TEST)].sort()).toEqual(["ht", "http", "net", "rand"]);
    expect([...standardLibraryImports('package main\n\nimport "C"\nimport "fmt"\nimport . "strings"\n')]).toEqual([
      "fmt",
    ]);
    expect([...standardLibraryImports('package main\n\nimport "math/rand/v2"\n')]).toEqual(["rand"]);
  });

  it("are called by a package-qualified call in code, not in strings or comments", () => {
    const imports = standardLibraryImports(SERVER_TEST);
    expect(callsStandardLibrary("\tsrv := ht.NewServer(http.HandlerFunc(greet))", imports)).toBe(true);
    expect(callsStandardLibrary("\techo.Start(ln)", imports)).toBe(false);
    expect(callsStandardLibrary("\tsrv.Start()", imports)).toBe(false);
    expect(callsStandardLibrary('\tt.Log("net.Listen(tcp)") // net.Listen("tcp", addr)', imports)).toBe(false);
  });
});

describe("sites that are calls into the standard library", () => {
  const read = (file: string): string | null => (file === "server_test.go" ? SERVER_TEST : null);

  it("accepts the call that starts a goroutine inside the standard library, and go statements", () => {
    expect(siteProblem("server_test.go:13", read)).toBeNull();
    expect(siteProblem("server_test.go:14", read)).toBeNull();
  });

  it("refuses calls into the module's own packages and methods", () => {
    expect(siteProblem("server_test.go:15", read)).toBe(
      'site server_test.go:15 is not a go statement: "echo.Start(ln)"',
    );
    expect(siteProblem("server_test.go:16", read)).toBe('site server_test.go:16 is not a go statement: "srv.Start()"');
  });
});
