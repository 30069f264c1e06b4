// The Go helper numbers the records it streams with its recordKind constants; Node decodes
// them by index into RECORD_KINDS. The two lists must agree name for name.

import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { goHelperPath } from "../../src/gohelper/index.js";
import { RECORD_KINDS } from "../../src/trace/types.js";

describe("record kinds", () => {
  it("are numbered the same by the Go helper and by RECORD_KINDS", async () => {
    const { stdout } = await execa(await goHelperPath(), ["record-kinds"]);
    expect(JSON.parse(stdout)).toEqual([...RECORD_KINDS]);
  });
});
