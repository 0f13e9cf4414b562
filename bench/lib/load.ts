import autocannon, { type Options, type Result } from 'autocannon';

export type { Result };

/** One autocannon run over loopback; resolves with its result once every counted response is in. */
export function load(options: Options): Promise<Result> {
  return new Promise((resolve, reject) => autocannon(options, (error, result) => (error ? reject(error) : resolve(result))));
}

/** Responses per second over the whole run (completed responses, whatever their status). */
export const rate = (r: Result): number => r.requests.total / r.duration;
