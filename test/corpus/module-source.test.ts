import { describe, expect, it } from "vitest";
import { excludedByModule, parseCorpusFile, parseModuleSource } from "../../src/corpus/index.js";

describe("parseModuleSource", () => {
  it("reads module, version and the package path after it; /... is the whole tree below", () => {
    expect(parseModuleSource("github.com/oklog/run@v1.2.0")).toMatchObject({
      module: "github.com/oklog/run",
      version: "v1.2.0",
      subdir: "",
    });
    expect(parseModuleSource("github.com/oklog/run@v1.2.0/...")).toMatchObject({ subdir: "" });
    expect(parseModuleSource("go.uber.org/zap@v1.28.0/zapcore")).toMatchObject({
      module: "go.uber.org/zap",
      subdir: "zapcore",
    });
    expect(parseModuleSource("go.uber.org/zap@v1.28.0/internal/...")).toMatchObject({ subdir: "internal" });
    expect(parseModuleSource("github.com/asaskevich/EventBus@v0.0.0-20200907212545-49d423059eef")?.version).toBe(
      "v0.0.0-20200907212545-49d423059eef",
    );
    expect(parseModuleSource("github.com/patrickmn/go-cache@v2.1.0+incompatible")?.version).toBe("v2.1.0+incompatible");
  });

  it("is null for directories, patterns and module paths without a version", () => {
    for (const arg of ["./...", "go-programs", "/tmp/x@v1", "github.com/oklog/run", "run@v1.2.0", "./a@v1"])
      expect(parseModuleSource(arg)).toBeNull();
  });
});

describe("parseCorpusFile", () => {
  it("reads the realcode TSV layout: comments, a header, exclude_packages with - for none", () => {
    const text =
      "# a comment\nmodule\tversion\tpackages\texclude_packages\tnotes\n" +
      "github.com/oklog/run\tv1.2.0\t1\t-\tfast\ngithub.com/rs/zerolog\tv1.35.1\t13\tjournald\tneeds journald\n";
    const sources = parseCorpusFile(text, "c.tsv");
    expect(sources.map((s) => [s.arg, s.exclude])).toEqual([
      ["github.com/oklog/run@v1.2.0/...", []],
      ["github.com/rs/zerolog@v1.35.1/...", ["journald"]],
    ]);
  });

  it("reads JSON and refuses an entry without a version", () => {
    expect(
      parseCorpusFile('[{"module":"github.com/oklog/run","version":"v1.2.0","exclude":["x"]}]', "c.json")[0],
    ).toMatchObject({ module: "github.com/oklog/run", version: "v1.2.0", exclude: ["x"] });
    expect(() => parseCorpusFile('[{"module":"github.com/oklog/run"}]', "c.json")).toThrow(
      /c.json: entry 1 \(github.com\/oklog\/run \) is not a module path and version/,
    );
  });
});

describe("excludedByModule", () => {
  it("leaves out an excluded package directory and those below it, not a sibling sharing its prefix", () => {
    const module = {
      ...parseModuleSource("github.com/rs/zerolog@v1.35.1")!,
      exclude: ["journald", "internal/cbor"],
      root: "/c/zerolog@v1.35.1",
      copy: "/c/zerolog@v1.35.1",
      label: "github.com/rs/zerolog@v1.35.1",
      notes: [],
    };
    expect(excludedByModule(module, "/c/zerolog@v1.35.1/journald")).toBe(true);
    expect(excludedByModule(module, "/c/zerolog@v1.35.1/internal/cbor")).toBe(true);
    expect(excludedByModule(module, "/c/zerolog@v1.35.1/internal/cbor/x")).toBe(true);
    expect(excludedByModule(module, "/c/zerolog@v1.35.1/journaldx")).toBe(false);
    expect(excludedByModule(module, "/c/zerolog@v1.35.1/internal")).toBe(false);
    expect(excludedByModule(module, "/c/zerolog@v1.35.1")).toBe(false);
  });
});
