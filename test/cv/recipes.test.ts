// The student recipes cross-validation trains in every fold: objective and flags, also inside
// cal:, and the refusal of adapter paths.

import { describe, expect, it } from "vitest";
import { parseStudentRecipe, studentRecipesOf } from "../../src/cv/recipes.js";
import { UsageError } from "../../src/errors.js";

/** A kl recipe with the defaults of every flag, and `flags` on top. */
const klRecipe = (name: string, flags: object = {}): object => ({
  name,
  objective: "kl",
  tags: false,
  balance: false,
  expertSkip: false,
  contextExpert: true,
  fitMixtureTemperature: true,
  fitExpertTemperature: false,
  confidenceEvidence: null,
  clipFeatures: false,
  expertEvidence: { prior: 0.2, switchRate: 0.1, maxShare: 0.6 },
  familyBalance: false,
  ...flags,
});

describe("student recipes", () => {
  it("reads the objective and flags, also inside cal:", () => {
    expect(parseStudentRecipe("kl-tags")).toEqual(klRecipe("kl-tags", { tags: true }));
    expect(parseStudentRecipe("kl-skip-fambal")).toEqual(
      klRecipe("kl-skip-fambal", { expertSkip: true, familyBalance: true }),
    );
    expect(parseStudentRecipe("kl-tags-noctxmix")).toMatchObject({ tags: true, contextExpert: false });
    expect(parseStudentRecipe("kl-noevid")).toEqual(klRecipe("kl-noevid", { expertEvidence: null }));
    expect(parseStudentRecipe("kl-calfolds4")).toEqual(klRecipe("kl-calfolds4", { calibrationFolds: 4 }));
    expect(parseStudentRecipe("kl-clip")).toEqual(klRecipe("kl-clip", { clipFeatures: true }));
    expect(parseStudentRecipe("kl-nomixtemp-confevid")).toEqual(
      klRecipe("kl-nomixtemp-confevid", {
        fitMixtureTemperature: false,
        confidenceEvidence: { levels: [2, 1, 0.5, 0.25], prior: 0.2, switchRate: 0.05 },
      }),
    );
    expect(parseStudentRecipe("kl-share100")).toEqual(
      klRecipe("kl-share100", { expertEvidence: { prior: 0.2, switchRate: 0.1, maxShare: 1 } }),
    );
    expect(parseStudentRecipe("kl-exptemp")).toEqual(klRecipe("kl-exptemp", { fitExpertTemperature: true }));
    // The former default: κ = 0.3 and no temperature on the mixture.
    expect(parseStudentRecipe("kl-share30-nomixtemp")).toEqual(
      klRecipe("kl-share30-nomixtemp", {
        fitMixtureTemperature: false,
        expertEvidence: { prior: 0.2, switchRate: 0.1, maxShare: 0.3 },
      }),
    );
    expect(
      studentRecipesOf(["ngram:3", "student:kl", "cal:student:ce-balance", "student:kl"]).map((r) => r.name),
    ).toEqual(["kl", "ce-balance"]);
  });

  it("reads the calibration variants -memcal and -ctxcal, one at a time and not with -calfoldsN", () => {
    expect(parseStudentRecipe("kl-memcal")).toEqual(klRecipe("kl-memcal", { calibrationMode: "per-member" }));
    expect(parseStudentRecipe("kl-tags-ctxcal")).toEqual(
      klRecipe("kl-tags-ctxcal", { tags: true, calibrationMode: "in-context" }),
    );
    expect(() => parseStudentRecipe("kl-memcal-ctxcal")).toThrow(UsageError);
    expect(() => parseStudentRecipe("kl-ctxcal-calfolds4")).toThrow(UsageError);
  });

  it("refuses an adapter path: a saved student may have seen the test fold", () => {
    expect(() => studentRecipesOf(["student:adapters/kl"])).toThrow(UsageError);
    expect(() => parseStudentRecipe("kl-tags-tags")).toThrow(UsageError);
    expect(() => parseStudentRecipe("kl-calfolds1")).toThrow(UsageError);
    expect(() => parseStudentRecipe("kl-calfolds2-calfolds3")).toThrow(UsageError);
    // A largest share is a percentage in 1 … 100, and means nothing without the evidence.
    expect(() => parseStudentRecipe("kl-share0")).toThrow(UsageError);
    expect(() => parseStudentRecipe("kl-share101")).toThrow(UsageError);
    expect(() => parseStudentRecipe("kl-share50-noevid")).toThrow(UsageError);
    expect(() => parseStudentRecipe("kl-confevid-noevid")).toThrow(UsageError);
  });
});
