import { readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { analyseAudio, AudioError, sha256Hex } from './decode';
import { makeDegradedCopy } from './degraded-copies';
import type { DecodeRequest, DecodeResponse, DegradeRequest, DegradeResponse } from './pool';

// Runs in a worker thread: reading, hashing and decoding stay off the thread that writes SQLite.
parentPort!.on('message', async (request: DecodeRequest | DegradeRequest) => {
  let response: DecodeResponse | DegradeResponse;
  try {
    if ('degradeInto' in request) {
      response = { id: request.id, ok: true, copy: await makeDegradedCopy(request.file, request.degradeInto) };
    } else {
      const bytes = readFileSync(request.file);
      if (request.knownSha256 && sha256Hex(bytes) === request.knownSha256) {
        response = { id: request.id, ok: true, sameContent: true };
      } else {
        response = { id: request.id, ok: true, facts: await analyseAudio(bytes) };
      }
    }
  } catch (error) {
    const reason = error instanceof AudioError ? error.message : describeIoError(error as NodeJS.ErrnoException);
    response = { id: request.id, ok: false, reason };
  }
  parentPort!.postMessage(response);
});

function describeIoError(error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return 'file not found';
  if (error.code === 'EACCES' || error.code === 'EPERM') return 'permission denied';
  if (error.code === 'EISDIR') return 'is a directory, not an audio file';
  return error.message;
}
