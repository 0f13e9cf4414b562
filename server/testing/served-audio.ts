/**
 * What the replay tests (ABX's X, MUSHRA's hidden reference) read of a served clip: its bytes and
 * ETag from the running server, its samples on the 16-bit grid, and whether two copies are the
 * same bytes.
 */
import { expect } from 'vitest';
import { decode } from '../../audio-manifest/decode';

export async function fetchAudio(baseUrl: string, url: string): Promise<{ bytes: Uint8Array; etag: string }> {
  const res = await fetch(`${baseUrl}${url}`);
  expect(res.status).toBe(200);
  return { bytes: new Uint8Array(await res.arrayBuffer()), etag: res.headers.get('etag')! };
}

/** Decoded samples on the 16-bit grid, channels interleaved. */
export async function samples(bytes: Uint8Array): Promise<number[]> {
  const { channels } = await decode(bytes);
  return Array.from({ length: channels[0].length * channels.length }, (_, i) => Math.round(channels[i % channels.length][Math.floor(i / channels.length)] * 32768));
}

export const sameBytes = (x: Uint8Array, y: Uint8Array): boolean => x.length === y.length && x.every((v, i) => v === y[i]);
