import { mkdir, open, stat, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { BundleError, readBundle, type Bundle } from './bundle';
import { BundleZipError, looksLikeZip, withZippedBundle } from './bundle-zip';
import { reportCsvFiles } from './csv-report';
import { renderReportHtml } from './html';
import { analyze } from './report';

const usage = `usage: npm run analyze -- <bundle-dir | bundle.zip> [--format json|csv|html] [--out <path>]
  [--min-attention 0.75] [--split-threshold 0.75] [--buckets 5] [--bt-prior λ]
  [--bootstrap N --seed S] [--skip-invalid]
json/html: --out is a file (json goes to stdout without --out); csv: --out is a directory.`;

const flags = z
  .object({
    format: z.enum(['json', 'csv', 'html']).default('json'),
    out: z.string().min(1).optional(),
    'min-attention': z.coerce.number().min(0).max(1).default(0.75),
    'split-threshold': z.coerce.number().gt(0.5, 'must be above 0.5 (a majority share)').max(1).default(0.75),
    buckets: z.coerce.number().int().min(1).max(100).default(5),
    'bt-prior': z.coerce.number().min(0).default(0),
    bootstrap: z.coerce.number().int().min(0).max(100000).default(0),
    seed: z.coerce.number().int().min(0).default(1),
    'skip-invalid': z.boolean().default(false),
  })
  .refine((f) => f.format === 'json' || f.out, { path: ['out'], message: 'is required for csv and html' });

/** A bundle directory, or a zip of one (the studio's Export download). */
async function readBundleAt(path: string, skipInvalid: boolean): Promise<Bundle> {
  if (!(await stat(path).catch(() => null))?.isFile()) return readBundle(path, { skipInvalid });
  const file = await open(path);
  const head = new Uint8Array(4);
  try {
    await file.read(head, 0, 4, 0);
  } finally {
    await file.close();
  }
  if (!looksLikeZip(head)) throw new BundleZipError(path, 'is neither a bundle directory nor a zip archive');
  return withZippedBundle(path, (dir) => readBundle(dir, { skipInvalid }));
}

async function main(): Promise<number> {
  const names = ['format', 'out', 'min-attention', 'split-threshold', 'buckets', 'bt-prior', 'bootstrap', 'seed'];
  let parsedArgs;
  try {
    parsedArgs = parseArgs({
      allowPositionals: true,
      options: { ...Object.fromEntries(names.map((k) => [k, { type: 'string' as const }])), 'skip-invalid': { type: 'boolean' } },
    });
  } catch (e) {
    console.error(`${(e as Error).message}\n${usage}`);
    return 2;
  }
  const { values, positionals } = parsedArgs;
  if (positionals.length !== 1) {
    console.error(usage);
    return 2;
  }
  const parsed = flags.safeParse(values);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) console.error(`--${issue.path.join('.')}: ${issue.message}`);
    console.error(usage);
    return 2;
  }
  const f = parsed.data;
  let bundle;
  try {
    bundle = await readBundleAt(positionals[0], f['skip-invalid']);
  } catch (e) {
    if (e instanceof BundleZipError) {
      console.error(`refused: ${e.message}`);
      return 1;
    }
    if (e instanceof BundleError) {
      console.error(`refused: ${e.message}${f['skip-invalid'] ? '' : ' (use --skip-invalid to skip bad rows; they are then counted in the report)'}`);
      return 1;
    }
    throw e;
  }
  const report = analyze(bundle, {
    minAttention: f['min-attention'],
    splitThreshold: f['split-threshold'],
    buckets: f.buckets,
    btPrior: f['bt-prior'],
    bootstrap: f.bootstrap > 0 ? { n: f.bootstrap, seed: f.seed } : null,
  });
  if (report.bradley_terry.error) console.error(`warning: ${report.bradley_terry.error}`);
  if (report.input) console.error(`warning: skipped ${report.input.skipped_rows} invalid row(s): ${JSON.stringify(report.input.skipped_by_reason)}`);
  if (f.format === 'json') {
    const text = JSON.stringify(report, null, 2) + '\n';
    if (f.out) await writeFile(f.out, text);
    else process.stdout.write(text);
  } else if (f.format === 'html') {
    await writeFile(f.out!, renderReportHtml(report));
  } else {
    await mkdir(f.out!, { recursive: true });
    for (const [name, text] of Object.entries(reportCsvFiles(report))) await writeFile(`${f.out}/${name}`, text);
  }
  if (f.out) console.error(`wrote ${f.out}`);
  return 0;
}

main().then((code) => process.exit(code), (e) => {
  console.error(e instanceof Error ? e.stack : e);
  process.exit(1);
});
