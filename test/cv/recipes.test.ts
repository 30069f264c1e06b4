// The student recipes cross-validation trains in every fold: objective and flags, also inside
// cal:, and the refusal of adapter paths.

import { describe, expect, it } from "vitest";
import { parseStudentRecipe, studentRecipesOf } from "../../src/cv/recipes.js";
import { UsageError } from "../../src/errors.js";

describe("student recipes", () => {
  it("reads the objective and flags, also inside cal:", () => {
    expect(parseStudentRecipe("kl-tags")).toEqual({
      name: "kl-tags",
      objective: "kl",
      tags: true,
      balance: false,
      expertSkip: false,
      contextExpert: true,
      familyBalance: false,
    });
    expect(parseStudentRecipe("kl-skip").expertSkip).toBe(true);
    expect(parseStudentRecipe("kl-tags-noctxmix")).toMatchObject({ tags: true, contextExpert: false });
    expect(parseStudentRecipe("kl-calfolds4")).toEqual({
      name: "kl-calfolds4",
      objective: "kl",
      tags: false,
      balance: false,
      expertSkip: false,
      contextExpert: true,
      familyBalance: false,
      calibrationFolds: 4,
    });
    expect(
      studentRecipesOf(["ngram:3", "student:kl", "cal:student:ce-balance", "student:kl"]).map((r) => r.name),
    ).toEqual(["kl", "ce-balance"]);
  });

  it("reads the calibration variants -memcal and -ctxcal, one at a time and not with -calfoldsN", () => {
    expect(parseStudentRecipe("kl-memcal")).toEqual({
      name: "kl-memcal",
      objective: "kl",
      tags: false,
      balance: false,
      expertSkip: false,
      contextExpert: true,
      familyBalance: false,
      calibrationMode: "per-member",
    });
    expect(parseStudentRecipe("kl-tags-ctxcal")).toEqual({
      name: "kl-tags-ctxcal",
      objective: "kl",
      tags: true,
      balance: false,
      expertSkip: false,
      contextExpert: true,
      familyBalance: false,
      calibrationMode: "in-context",
    });
    expect(() => parseStudentRecipe("kl-memcal-ctxcal")).toThrow(UsageError);
    expect(() => parseStudentRecipe("kl-ctxcal-calfolds4")).toThrow(UsageError);
  });

  it("refuses an adapter path: a saved student may have seen the test fold", () => {
    expect(() => studentRecipesOf(["student:adapters/kl"])).toThrow(UsageError);
    expect(() => parseStudentRecipe("kl-tags-tags")).toThrow(UsageError);
    expect(() => parseStudentRecipe("kl-calfolds1")).toThrow(UsageError);
    expect(() => parseStudentRecipe("kl-calfolds2-calfolds3")).toThrow(UsageError);
  });
});
