import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { commandLine, runCommand } from '../cli/args';
import { BundleError } from './bundle';
import { BundleZipError, readBundleOrZip } from './bundle-zip';
import { reportCsvFiles } from './csv-report';
import { planOptions } from './analysis-plan';
import { analyzeStudy, RatingScale, reportHeader, reportWithPlan, resolveSettings, type ExclusionRuleSettings } from './study-settings';

const usage = `usage: npm run analyze -- <bundle-dir | bundle.zip> [--format json|csv|html|paper] [--out <path>]
  [--min-attention 0.75] [--split-threshold 0.75] [--buckets 5] [--bt-prior λ]
  [--bootstrap N --seed S] [--skip-invalid]
  [--min-median-response-ms MS] [--max-listening-violations N] [--max-hidden-ms MS] [--exclude-failed-screening]
  rating studies: [--rating-scale LO,HI] [--min-listener-correlation r]
json/html: --out is a file (json goes to stdout without --out); csv and paper: --out is a directory
(paper: tables.tex, numbers.json, methods.md, paper.bib and figures/*.svg).
The bundle's study.json gives the thresholds, exclusion rules, rating scale and (its frozen analysis
plan) buckets, prior and bootstrap; a flag overrides it (a rule's flag switches that rule on), and the
report lists each override of the plan as a deviation.`;

const flags = z
  .object({
    format: z.enum(['json', 'csv', 'html', 'paper']).default('json'),
    out: z.string().min(1).optional(),
    'min-attention': z.coerce.number().min(0).max(1).optional(),
    'split-threshold': z.coerce.number().gt(0.5, 'must be above 0.5 (a majority share)').max(1).optional(),
    'min-median-response-ms': z.coerce.number().min(0).optional(),
    'max-listening-violations': z.coerce.number().int().min(0).optional(),
    'max-hidden-ms': z.coerce.number().min(0).optional(),
    'exclude-failed-screening': z.boolean().default(false),
    // Absent: the study's frozen plan says (study.json), else 5, 0, no bootstrap, seed 1.
    buckets: z.coerce.number().int().min(1).max(100).optional(),
    'bt-prior': z.coerce.number().min(0).optional(),
    bootstrap: z.coerce.number().int().min(0).max(100000).optional(),
    seed: z.coerce.number().int().min(0).optional(),
    'skip-invalid': z.boolean().default(false),
    'rating-scale': z
      .string()
      .regex(/^\s*[+-]?\d+\s*,\s*[+-]?\d+\s*$/, 'must be two integers LO,HI, e.g. 1,5')
      .transform((s) => s.split(',').map(Number))
      .pipe(RatingScale)
      .optional(),
    'min-listener-correlation': z.coerce.number().min(-1).max(1).optional(),
  })
  .refine((f) => f.format === 'json' || f.out, { path: ['out'], message: 'is required for csv, html and paper' });

async function main(): Promise<number> {
  const names = ['format', 'out', 'min-attention', 'split-threshold', 'buckets', 'bt-prior', 'bootstrap', 'seed',
    'min-median-response-ms', 'max-listening-violations', 'max-hidden-ms', 'rating-scale', 'min-listener-correlation'];
  const { values, positionals } = commandLine(process.argv.slice(2), {
    ...Object.fromEntries(names.map((k) => [k, { type: 'string' as const }])),
    'skip-invalid': { type: 'boolean' },
    'exclude-failed-screening': { type: 'boolean' },
  });
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
    bundle = await readBundleOrZip(positionals[0], { skipInvalid: f['skip-invalid'], ratingScale: f['rating-scale'] });
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
  const rules: ExclusionRuleSettings = {};
  if (f['min-median-response-ms'] !== undefined) rules.fast = { minMedianResponseMs: f['min-median-response-ms'] };
  if (f['max-listening-violations'] !== undefined) {
    rules.listening = { maxListeningViolations: f['max-listening-violations'], requirement: bundle.study?.rules.listening?.requirement ?? { mode: 'whole' } };
  }
  if (f['max-hidden-ms'] !== undefined) rules.hidden = { maxHiddenMs: f['max-hidden-ms'] };
  if (f['exclude-failed-screening']) rules.screening = { excludeFailedScreening: true };
  if (f['min-listener-correlation'] !== undefined) rules.correlation = { minListenerCorrelation: f['min-listener-correlation'] };
  const settings = resolveSettings(bundle.study, { minAttention: f['min-attention'], splitThreshold: f['split-threshold'], rules });
  if (!bundle.study) console.error('note: the bundle has no study.json: only the attention rule (and rules given by flags) applied');
  const options = planOptions(bundle.study?.plan, { buckets: f.buckets, btPrior: f['bt-prior'], bootstrap: f.bootstrap, seed: f.seed });
  const report = analyzeStudy(bundle, settings, options);
  const header = reportHeader(bundle, settings, options);
  if (header.plan?.deviations.length) console.error(`note: this analysis departs from the study's frozen plan (${header.plan.hash}): ${header.plan.deviations.join('; ')}`);
  const notRun = Object.entries(report.listeners.not_run_by_reason);
  if (notRun.length) console.error(`note: rules not run for some listeners (facts missing from the bundle): ${notRun.map(([r, n]) => `${r} ${n}`).join(', ')}`);
  // A rating study without pair votes has no Bradley–Terry ranking to warn about, nor has a bundle without votes.
  const unvoted = !report.ratings && report.reliability.votes === 0 && !report.reliability.ties?.votes;
  if (unvoted) console.error('note: the bundle has no votes of retained listeners on its items (votes.csv absent or empty?): reliability, judges, calibration and ranking have nothing to compute');
  else if (report.bradley_terry.error && (report.bradley_terry.comparisons > 0 || !report.ratings)) console.error(`warning: ${report.bradley_terry.error}`);
  if (report.input) console.error(`warning: skipped ${report.input.skipped_rows} invalid row(s): ${JSON.stringify(report.input.skipped_by_reason)}`);
  if (f.format === 'json') {
    const text = JSON.stringify(reportWithPlan(report, header), null, 2) + '\n';
    if (f.out) await writeFile(f.out, text);
    else process.stdout.write(text);
  } else if (f.format === 'html') {
    const { renderReportHtml } = await import('./html');
    await writeFile(f.out!, renderReportHtml(report, header));
  } else if (f.format === 'paper') {
    const { paperFiles } = await import('./paper/index');
    // The figures of an earlier run go first: a rebuilt bundle holds what this report draws and nothing else.
    await rm(join(f.out!, 'figures'), { recursive: true, force: true });
    for (const [name, text] of paperFiles(bundle, report, header, settings, options)) {
      await mkdir(dirname(join(f.out!, name)), { recursive: true });
      await writeFile(join(f.out!, name), text);
    }
  } else {
    await mkdir(f.out!, { recursive: true });
    for (const [name, text] of Object.entries(reportCsvFiles(report))) await writeFile(`${f.out}/${name}`, text);
  }
  if (f.out) console.error(`wrote ${f.out}`);
  return 0;
}

runCommand(usage, main).then(() => process.exit(), (e) => {
  console.error(e instanceof Error ? e.stack : e);
  process.exit(1);
});
