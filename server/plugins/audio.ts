import { replayedClips } from '../../studies/trials';
import { studyStore } from '../../studies/store';
import fp from 'fastify-plugin';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError, notFound } from '../errors';
import type { ServedClip } from '../store/clips';
import { formatStudyAudio, prepareStudyAudio, recordStudyAudio, restoreMissingCopies, summariseStudyAudio } from '../../audio-manifest/served';
import { readStudyDefinition } from '../../studies/settings';

declare module 'fastify' {
  interface FastifyReply {
    /** Sends a clip's audio with Range, ETag/Last-Modified revalidation and long-lived caching. */
    sendClipAudio(request: FastifyRequest, clip: ServedClip): Promise<FastifyReply>;
    sendClipPeaks(request: FastifyRequest, clip: ServedClip): FastifyReply;
  }
}

// A served clip id names fixed content (a new copy gets a new id), so browsers may keep it for a year.
const CACHE_FOREVER = 'public, max-age=31536000, immutable';
const TAG_EPOCH = Date.UTC(2001, 0, 1);
const TAG_SPAN_SECONDS = 20 * 365 * 86400;

/** A fixed instant drawn from the copy's keyed hash: stable for revalidation, meaningless otherwise. */
function lastModifiedOf(tag: string): Date {
  return new Date(TAG_EPOCH + (parseInt(tag.slice(0, 8), 16) % TAG_SPAN_SECONDS) * 1000);
}
const unknownClip = () => notFound('unknown_clip', 'no such clip');

export const audioPlugin = fp(
  async (app) => {
    // Studies built before served copies existed (or written straight into the tables) get theirs
    // before the first listener arrives; the corpus file is never served in their place.
    app.addHook('onReady', async () => {
      // A database restored from a backup into a fresh data dir names copies that are not on disk:
      // they are made again from the corpus files (the same bytes, so every served id stays valid).
      const { restored, problems } = await restoreMissingCopies(app.db);
      if (restored > 0) app.log.warn(`served audio: ${restored} missing cop${restored === 1 ? 'y' : 'ies'} made again from the corpus files (a restored backup?)`);
      for (const p of problems) {
        app.log.error(`served audio: copy ${p.file} of study ${p.studies.join(', ')} is missing and cannot be made again (${p.reason}); build the study again once its corpus files are back`);
      }
      for (const studyId of app.store.clips.studiesMissingAudio()) {
        try {
          // With the replays its kind plays (ABX's X, MUSHRA's hidden reference), as the build makes them.
          const replays = replayedClips(studyStore(app.db).plannedItems(studyId));
          const audio = await prepareStudyAudio(app.db, studyId, readStudyDefinition(app.db, studyId).loudness, app.store.clips.studyClipIds(studyId), replays);
          app.db.transaction(() => recordStudyAudio(app.db, audio))();
          app.log.info(`study ${studyId}: ${formatStudyAudio(summariseStudyAudio(audio))}`);
        } catch (error) {
          app.log.error(`study ${studyId}: its clips cannot be served until it is built again: ${(error as Error).message}`);
        }
      }
    });

    app.decorateReply('sendClipAudio', async function (this: FastifyReply, request: FastifyRequest, clip: ServedClip) {
      const reply = this;
      const file = await stat(clip.absPath).catch(() => null);
      if (!file?.isFile()) throw unknownClip();
      const size = file.size;
      // Both validators come from the copy's keyed hash: nothing about the corpus file (its hash, size
      // or dates) and nothing that orders copies by when they were made.
      const etag = `"${clip.tag}"`;
      const modified = lastModifiedOf(clip.tag);
      reply.headers({
        'accept-ranges': 'bytes',
        'cache-control': CACHE_FOREVER,
        etag,
        'last-modified': modified.toUTCString(),
        'content-type': 'audio/wav',
      });
      if (notModified(request, etag, modified)) return reply.code(304).send();

      const range = requestedRange(request, etag, modified, size);
      if (range === 'unsatisfiable') {
        reply.header('content-range', `bytes */${size}`);
        throw new HttpError(416, 'range_not_satisfiable', `the clip has ${size} bytes`, 'range');
      }
      if (range) {
        reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${size}`);
        reply.header('content-length', range.end - range.start + 1);
        return reply.send(createReadStream(clip.absPath, range));
      }
      reply.header('content-length', size);
      return reply.send(createReadStream(clip.absPath));
    });

    app.decorateReply('sendClipPeaks', function (this: FastifyReply, request: FastifyRequest, clip: ServedClip) {
      const etag = `"${createHash('sha256').update(clip.peaks).digest('base64url').slice(0, 22)}"`;
      this.headers({ 'cache-control': CACHE_FOREVER, etag, 'content-type': 'application/json; charset=utf-8' });
      if (notModified(request, etag, null)) return this.code(304).send();
      return this.send(clip.peaks);
    });
  },
  { name: 'audio' },
);

function notModified(request: FastifyRequest, etag: string, modified: Date | null): boolean {
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined) {
    return ifNoneMatch.split(',').some((tag) => {
      const t = tag.trim();
      return t === '*' || t === etag || t === `W/${etag}`;
    });
  }
  const since = Date.parse(request.headers['if-modified-since'] ?? '');
  return modified !== null && !Number.isNaN(since) && modified.getTime() <= since;
}

/**
 * One byte range (`bytes=a-b`, `bytes=a-`, `bytes=-n`), or null to send the whole file: for
 * a multi-range or malformed header, or an If-Range that no longer matches (RFC 9110 §14).
 */
function requestedRange(
  request: FastifyRequest,
  etag: string,
  modified: Date,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | null {
  const header = request.headers.range;
  if (!header) return null;
  const ifRange = request.headers['if-range']?.toString();
  if (ifRange && ifRange !== etag && Date.parse(ifRange) !== modified.getTime()) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    const last = match[2] === '' ? Infinity : Number(match[2]);
    if (last < start) return null; // not a valid range: ignored, per RFC 9110
    end = Math.min(last, size - 1);
  }
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}
