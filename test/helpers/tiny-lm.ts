// Builds a tiny causal language model that transformers.js loads as a gpt2-type model:
// an ONNX graph encoded with protobufjs (one-hot embedding + position embedding, masked,
// then one MatMul to logits), a WordPiece tokenizer.json with whole-word vocabulary, and
// config files. The model is a bigram table: the logits after token t are row t of `bigram`,
// so tests can set exactly which word follows which.

import protobuf from "protobufjs";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The subset of onnx.proto (field numbers as upstream) needed to write a model. */
const ONNX_PROTO = `
syntax = "proto3";
package onnx;
message OperatorSetIdProto { string domain = 1; int64 version = 2; }
message AttributeProto {
  string name = 1; float f = 2; int64 i = 3; bytes s = 4; TensorProto t = 5;
  repeated float floats = 7; repeated int64 ints = 8; int32 type = 20;
}
message TensorProto {
  repeated int64 dims = 1; int32 data_type = 2; string name = 8; bytes raw_data = 9;
}
message TensorShapeProto {
  message Dimension { int64 dim_value = 1; string dim_param = 2; }
  repeated Dimension dim = 1;
}
message TypeProto {
  message Tensor { int32 elem_type = 1; TensorShapeProto shape = 2; }
  Tensor tensor_type = 1;
}
message ValueInfoProto { string name = 1; TypeProto type = 2; }
message NodeProto {
  repeated string input = 1; repeated string output = 2; string name = 3; string op_type = 4;
  repeated AttributeProto attribute = 5;
}
message GraphProto {
  repeated NodeProto node = 1; string name = 2; repeated TensorProto initializer = 5;
  repeated ValueInfoProto input = 11; repeated ValueInfoProto output = 12;
}
message ModelProto {
  int64 ir_version = 1; string producer_name = 2; GraphProto graph = 7;
  repeated OperatorSetIdProto opset_import = 8;
}
`;

const FLOAT = 1;
const INT64 = 7;
const ATTRIBUTE_INT = 2;

export interface TinyLmSpec {
  /** Whole-word vocabulary; "[UNK]" is added as id 0 if absent. */
  readonly words: readonly string[];
  /** bigram[prev][next] = logit of `next` after `prev` (words by name; missing entries are 0). */
  readonly bigram: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** Longest sequence the position embedding covers (default 2048). */
  readonly maxPositions?: number;
}

export interface TinyLm {
  readonly dir: string;
  readonly vocab: ReadonlyMap<string, number>;
}

function floatTensor(name: string, dims: number[], values: Float32Array): object {
  return { name, dims, data_type: FLOAT, raw_data: Buffer.from(values.buffer, values.byteOffset, values.byteLength) };
}

function int64Tensor(name: string, dims: number[], values: bigint[]): object {
  const data = BigInt64Array.from(values);
  return { name, dims, data_type: INT64, raw_data: Buffer.from(data.buffer) };
}

function valueInfo(name: string, elemType: number, dims: Array<string | number>): object {
  return {
    name,
    type: {
      tensor_type: {
        elem_type: elemType,
        shape: { dim: dims.map((d) => (typeof d === "number" ? { dim_value: d } : { dim_param: d })) },
      },
    },
  };
}

/** Encodes the ONNX model bytes for a vocabulary of size v with the given bigram logits. */
export function encodeTinyLmOnnx(v: number, logits: Float32Array, maxPositions: number): Uint8Array {
  const root = protobuf.parse(ONNX_PROTO, { keepCase: true }).root;
  const ModelProto = root.lookupType("onnx.ModelProto");
  const identity = new Float32Array(v * v);
  for (let i = 0; i < v; i++) identity[i * v + i] = 1;
  const graph = {
    name: "tiny-lm",
    input: [
      valueInfo("input_ids", INT64, ["batch_size", "sequence_length"]),
      valueInfo("attention_mask", INT64, ["batch_size", "sequence_length"]),
      valueInfo("position_ids", INT64, ["batch_size", "sequence_length"]),
    ],
    output: [valueInfo("logits", FLOAT, ["batch_size", "sequence_length", v])],
    initializer: [
      floatTensor("wte", [v, v], identity),
      floatTensor("wpe", [maxPositions, v], new Float32Array(maxPositions * v)),
      floatTensor("lm_head", [v, v], logits),
      int64Tensor("mask_axes", [1], [2n]),
    ],
    node: [
      { op_type: "Gather", name: "embed_tokens", input: ["wte", "input_ids"], output: ["tok"] },
      { op_type: "Gather", name: "embed_positions", input: ["wpe", "position_ids"], output: ["pos"] },
      { op_type: "Add", name: "add_positions", input: ["tok", "pos"], output: ["hidden0"] },
      {
        op_type: "Cast",
        name: "mask_float",
        input: ["attention_mask"],
        output: ["mask_f"],
        attribute: [{ name: "to", type: ATTRIBUTE_INT, i: FLOAT }],
      },
      { op_type: "Unsqueeze", name: "mask_unsqueeze", input: ["mask_f", "mask_axes"], output: ["mask3"] },
      { op_type: "Mul", name: "apply_mask", input: ["hidden0", "mask3"], output: ["hidden"] },
      { op_type: "MatMul", name: "lm_head", input: ["hidden", "lm_head"], output: ["logits"] },
    ],
  };
  const model = { ir_version: 8, producer_name: "schedlab-tests", opset_import: [{ domain: "", version: 14 }], graph };
  const problem = ModelProto.verify(model);
  if (problem !== null) throw new Error(`tiny LM model does not verify: ${problem}`);
  return ModelProto.encode(ModelProto.fromObject(model)).finish();
}

/** Writes the model directory (config.json, tokenizer files, onnx/model.onnx) into a new temp dir. */
export function buildTinyLm(spec: TinyLmSpec): TinyLm {
  const words = spec.words.includes("[UNK]") ? [...spec.words] : ["[UNK]", ...spec.words];
  const vocab = new Map(words.map((w, i) => [w, i]));
  const v = words.length;
  const maxPositions = spec.maxPositions ?? 2048;
  const logits = new Float32Array(v * v);
  for (const [prev, row] of Object.entries(spec.bigram)) {
    const p = vocab.get(prev);
    if (p === undefined) throw new Error(`bigram row ${prev} is not in the vocabulary`);
    for (const [next, logit] of Object.entries(row)) {
      const n = vocab.get(next);
      if (n === undefined) throw new Error(`bigram entry ${next} is not in the vocabulary`);
      logits[p * v + n] = logit;
    }
  }
  const dir = mkdtempSync(join(tmpdir(), "schedlab-tiny-lm-"));
  mkdirSync(join(dir, "onnx"));
  writeFileSync(join(dir, "onnx", "model.onnx"), encodeTinyLmOnnx(v, logits, maxPositions));
  const unk = vocab.get("[UNK]") as number;
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({
      architectures: ["GPT2LMHeadModel"],
      model_type: "gpt2",
      vocab_size: v,
      n_positions: maxPositions,
      n_embd: v,
      n_layer: 1,
      n_head: 1,
      bos_token_id: unk,
      eos_token_id: unk,
    }),
  );
  writeFileSync(join(dir, "generation_config.json"), JSON.stringify({ bos_token_id: unk, eos_token_id: unk }));
  // transformers.js 4 reads WordPiece, BPE and Unigram models (not WordLevel); a WordPiece
  // vocabulary of whole words tokenises exactly like WordLevel: known word → its id, else [UNK].
  writeFileSync(
    join(dir, "tokenizer.json"),
    JSON.stringify({
      version: "1.0",
      truncation: null,
      padding: null,
      added_tokens: [
        {
          id: unk,
          content: "[UNK]",
          single_word: false,
          lstrip: false,
          rstrip: false,
          normalized: false,
          special: true,
        },
      ],
      normalizer: null,
      pre_tokenizer: { type: "Whitespace" },
      post_processor: null,
      decoder: null,
      model: {
        type: "WordPiece",
        unk_token: "[UNK]",
        continuing_subword_prefix: "##",
        max_input_chars_per_word: 100,
        vocab: Object.fromEntries(vocab),
      },
    }),
  );
  writeFileSync(
    join(dir, "tokenizer_config.json"),
    JSON.stringify({
      tokenizer_class: "PreTrainedTokenizer",
      unk_token: "[UNK]",
      model_max_length: maxPositions,
      clean_up_tokenization_spaces: false,
    }),
  );
  return { dir, vocab };
}
