// A work queue drained by a fixed number of workers. Tasks may enqueue more tasks
// (a build enqueues its runs, at the front, so a built binary is used promptly).
// Aborting stops workers from taking new tasks; running tasks see the signal. A task
// that throws stops the queue too (via `onFailure`), and drain() rethrows its error
// once every running task has returned.

export type Task = () => Promise<void>;

export interface WorkQueue {
  /** Adds tasks at the back of the queue. */
  push(...tasks: Task[]): void;
  /** Adds tasks at the front of the queue, in the given order. */
  pushFront(...tasks: Task[]): void;
  /** Runs until the queue is empty and no task is running (or the signal aborts). */
  drain(): Promise<void>;
}

export function workQueue(workers: number, signal?: AbortSignal, onFailure?: (error: unknown) => void): WorkQueue {
  const queue: Task[] = [];
  let failure: { error: unknown } | null = null;
  let running = 0;
  let wake: (() => void) | null = null;
  const notify = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  signal?.addEventListener("abort", notify);

  async function worker(): Promise<void> {
    for (;;) {
      if (signal?.aborted || failure !== null) return;
      const task = queue.shift();
      if (task === undefined) {
        if (running === 0) {
          notify();
          return;
        }
        // Another worker's task may still enqueue work: wait for a change.
        await new Promise<void>((resolve) => {
          const previous = wake;
          wake = () => {
            previous?.();
            resolve();
          };
        });
        continue;
      }
      running++;
      try {
        await task();
      } catch (error) {
        if (failure === null) {
          failure = { error };
          onFailure?.(error);
        }
      } finally {
        running--;
        notify();
      }
    }
  }

  return {
    push: (...tasks) => {
      queue.push(...tasks);
      notify();
    },
    pushFront: (...tasks) => {
      queue.unshift(...tasks);
      notify();
    },
    drain: async () => {
      await Promise.all(Array.from({ length: workers }, () => worker()));
      signal?.removeEventListener("abort", notify);
      if (failure !== null) throw failure.error;
    },
  };
}

/**
 * A signal that aborts when `parent` aborts or `abort()` is called (a task failing stops the
 * queue and kills the running programs); `dispose()` unhooks it from `parent`.
 */
export function linkedAbort(parent: AbortSignal | undefined): {
  readonly signal: AbortSignal;
  readonly abort: () => void;
  readonly dispose: () => void;
} {
  const stop = new AbortController();
  const forward = (): void => stop.abort();
  parent?.addEventListener("abort", forward, { once: true });
  if (parent?.aborted) stop.abort();
  return { signal: stop.signal, abort: forward, dispose: () => parent?.removeEventListener("abort", forward) };
}
