import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { BundleZipError, withZippedBundle, ZIP_LIMITS } from './bundle-zip';

/** Issue 20.7: `npm run analyze` on a zip caps what it inflates and reads only bundle files. */
const items = 'item_id,utterance_id,system_a,system_b,attention,expected\r\n';
const zipTo = (files: Record<string, Uint8Array>) => {
  const file = join(mkdtempSync(join(tmpdir(), 'earmark-zip-')), 'bundle.zip');
  writeFileSync(file, zipSync(files, { level: 9 }));
  return file;
};
const refusal = async (file: string, limits = ZIP_LIMITS) => {
  try {
    await withZippedBundle(file, async () => 'read', limits);
  } catch (error) {
    return error as Error;
  }
  throw new Error('not refused');
};

describe('bundle zips', () => {
  it('unpack only the bundle files of the bundle folder', async () => {
    const file = zipTo({
      'b/items.csv': strToU8(items),
      'b/votes.csv': strToU8('item_id,listener_id,first,chosen\r\n'),
      'b/payload.bin': new Uint8Array(1000),
      'b/notes/readme.txt': strToU8('hello'),
      'other/study.json': strToU8('{}'),
    });
    const unpacked = await withZippedBundle(file, async (dir) => readdirSync(dir).sort());
    expect(unpacked).toEqual(['items.csv', 'votes.csv']);
  });

  it('refuse a zip bomb by its ratio before inflating it', async () => {
    // 64 MiB of zeros deflate to about 64 KiB: a ratio near 1000.
    const file = zipTo({ 'items.csv': strToU8(items), 'votes.csv': new Uint8Array(64 * 1024 * 1024) });
    const e = await refusal(file);
    expect(e).toBeInstanceOf(BundleZipError);
    expect(e.message).toMatch(/votes\.csv would unpack to \d+ times its packed size \(at most 100 for a bundle file\)/);
  });

  it('refuse a file, or all files together, larger than the caps', async () => {
    // Random hex digits: about 2x smaller packed, like a bundle's CSVs.
    const random = new Uint8Array(3 * 1024 * 1024).map(() => '0123456789abcdef'.charCodeAt(Math.floor(Math.random() * 16)));
    const file = zipTo({ 'items.csv': strToU8(items), 'votes.csv': random, 'ratings.csv': random });
    expect((await refusal(file, { ...ZIP_LIMITS, fileBytes: 2 * 1024 * 1024 })).message).toMatch(/votes\.csv would unpack to 3 MiB, more than the 2 MiB a bundle file may have/);
    expect((await refusal(file, { ...ZIP_LIMITS, totalBytes: 5 * 1024 * 1024 })).message).toMatch(/its bundle files would unpack to more than 5 MiB/);
    expect(readFileSync(file).length).toBeLessThan(5 * 1024 * 1024);
  });
});
