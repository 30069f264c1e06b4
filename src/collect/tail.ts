// A byte sink that keeps only the last `capacity` bytes written to it, so a program
// flooding its output costs bounded memory and is never throttled.

export interface OutputTail {
  write(chunk: Buffer): void;
  /** The kept bytes, oldest first. */
  bytes(): Buffer;
  /** Bytes written in total, kept or not. */
  readonly total: number;
}

export function outputTail(capacity: number): OutputTail {
  const chunks: Buffer[] = [];
  let kept = 0;
  let total = 0;
  return {
    write(chunk: Buffer) {
      total += chunk.length;
      chunks.push(chunk);
      kept += chunk.length;
      // Drop whole chunks that lie entirely before the last `capacity` bytes.
      while (chunks.length > 1 && kept - chunks[0].length >= capacity) kept -= chunks.shift()!.length;
    },
    bytes() {
      const all = Buffer.concat(chunks);
      return all.length <= capacity ? all : all.subarray(all.length - capacity);
    },
    get total() {
      return total;
    },
  };
}
