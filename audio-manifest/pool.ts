import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { AudioFacts } from './decode';
import type { DegradedCopy } from './degraded-copies';

export interface DecodeRequest {
  id: number;
  file: string;
  /** When set and the file still hashes to it, the worker skips decoding (only the mtime moved). */
  knownSha256?: string;
}

/** Make a file's degraded copy in `dir` (degraded-copies.ts), with the file's clip facts. */
export interface DegradeRequest {
  id: number;
  file: string;
  degradeInto: string;
}

export type DegradeResponse = { id: number; ok: true; copy: DegradedCopy } | { id: number; ok: false; reason: string };

type Settle = (response: DecodeResponse | DegradeResponse) => void;

export type DecodeResponse =
  | { id: number; ok: true; facts: AudioFacts; sameContent?: undefined }
  | { id: number; ok: true; sameContent: true; facts?: undefined }
  | { id: number; ok: false; reason: string };

const workerUrl = new URL('./decode-worker.mjs', import.meta.url);

/**
 * A fixed set of decode workers fed from one queue (the .mjs entry registers tsx, then loads the TS);
 * they start lazily, so an import with nothing to decode starts none.
 */
export class DecodePool {
  private readonly size: number;
  private workers: Worker[] = [];
  private idle: Worker[] = [];
  private queue: Array<{ request: DecodeRequest | DegradeRequest; resolve: Settle }> = [];
  private pending = new Map<number, Settle>();
  private busy = new Map<Worker, number>();
  private nextId = 1;

  constructor(size = Math.max(1, Math.min(availableParallelism(), 8))) {
    this.size = size;
  }

  decode(file: string, knownSha256?: string): Promise<DecodeResponse> {
    return this.submit({ id: this.nextId++, file, knownSha256 });
  }

  degrade(file: string, dir: string): Promise<DegradeResponse> {
    return this.submit({ id: this.nextId++, file, degradeInto: dir });
  }

  /** The worker answers a request of either kind with a response of that kind. */
  private submit<R extends DecodeResponse | DegradeResponse>(request: DecodeRequest | DegradeRequest): Promise<R> {
    return new Promise<R>((resolve) => {
      this.queue.push({ request, resolve: resolve as Settle });
      this.pump();
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
    this.workers = [];
    this.idle = [];
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let worker = this.idle.pop();
      if (!worker && this.workers.length < this.size) worker = this.spawn();
      if (!worker) return;
      const { request, resolve } = this.queue.shift()!;
      this.pending.set(request.id, resolve);
      this.busy.set(worker, request.id);
      worker.postMessage(request);
    }
  }

  private spawn(): Worker {
    const worker = new Worker(workerUrl);
    worker.on('message', (response: DecodeResponse | DegradeResponse) => {
      const resolve = this.pending.get(response.id);
      this.pending.delete(response.id);
      this.busy.delete(worker);
      this.idle.push(worker);
      resolve?.(response);
      this.pump();
    });
    worker.on('error', (error) => {
      // A crashed worker fails what it held; the rest of the import goes on with a new worker.
      const id = this.busy.get(worker);
      this.busy.delete(worker);
      if (id !== undefined) {
        this.pending.get(id)?.({ id, ok: false, reason: `decoder crashed: ${error.message}` });
        this.pending.delete(id);
      }
      this.workers = this.workers.filter((w) => w !== worker);
      this.pump();
    });
    this.workers.push(worker);
    return worker;
  }
}
