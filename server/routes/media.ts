import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { notFound } from '../errors';

// Any string is looked up as it is: an id that is not a clip, traversal attempts included, is a 404.
const ClipParams = z.object({ clipId: z.string() });

/** Clip audio and waveform peaks, by opaque clip id only. */
export const mediaRoutes: FastifyPluginAsyncZod = async (app) => {
  const clipOr404 = (id: string) => {
    const clip = app.store.clips.get(id);
    if (!clip) throw notFound('unknown_clip', 'no such clip');
    return clip;
  };

  app.get('/media/clips/:clipId/audio', { schema: { params: ClipParams } }, async (request, reply) =>
    reply.sendClipAudio(request, clipOr404(request.params.clipId)),
  );

  app.get('/media/clips/:clipId/peaks', { schema: { params: ClipParams } }, async (request, reply) =>
    reply.sendClipPeaks(request, clipOr404(request.params.clipId)),
  );
};
