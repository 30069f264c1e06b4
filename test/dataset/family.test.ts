import { describe, expect, it } from "vitest";
import { familyGroup, programFamily } from "../../src/dataset/family.js";

describe("programFamily", () => {
  it("is the manifest's family, else the generator template, else the enclosing directory", () => {
    expect(programFamily("patterns/channels/fanout", { family: "fan-out" })).toBe("fan-out");
    expect(programFamily("generated/pipeline-1001", { generated: { template: "pipeline" } })).toBe(
      "generated/pipeline",
    );
    expect(programFamily("kernels/abba/transfer", null)).toBe("kernels/abba");
    expect(programFamily("ext/blocking/etcdlike/7", {})).toBe("ext/blocking/etcdlike");
  });

  it("puts every program of one package directory in one family and a top-level program in its own", () => {
    expect(programFamily("app#test", null)).toBe("app");
    expect(programFamily("srv/api#TestLogin", null)).toBe(programFamily("srv/api#TestLogout", null));
    expect(programFamily("srv/api#test", null)).toBe("srv");
    expect(programFamily("solo", { family: "  " })).toBe("solo");
  });

  it("is the module path for a module's programs, whatever the package, version or test", () => {
    expect(programFamily("github.com/oklog/run@v1.2.0", null)).toBe("github.com/oklog/run");
    expect(programFamily("github.com/grafana/pyroscope-go@v1.5.0/internal/pprof", null)).toBe(
      "github.com/grafana/pyroscope-go",
    );
    expect(programFamily("go.uber.org/zap@v1.28.0/zapcore#TestLevel", null)).toBe("go.uber.org/zap");
    expect(programFamily("github.com/x/y/v2@v2.0.0-20200907212545-49d423059eef/a/b", null)).toBe("github.com/x/y/v2");
    // A directory with "@" but no module path before it is an ordinary directory.
    expect(programFamily("tmp@v1/app", null)).toBe("tmp@v1");
  });

  it("groups families by their first path component", () => {
    expect(familyGroup("generated/pipeline")).toBe("generated");
    expect(familyGroup("kernels")).toBe("kernels");
  });
});
