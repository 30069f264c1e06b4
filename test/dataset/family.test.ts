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

  it("groups families by their first path component", () => {
    expect(familyGroup("generated/pipeline")).toBe("generated");
    expect(familyGroup("kernels")).toBe("kernels");
  });
});
