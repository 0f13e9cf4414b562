import { resolve } from 'node:path';
import { z } from 'zod';
import { commandLine, runCommand } from '../cli/args';
import { databaseFile, openDatabase } from '../db/open';
import { listClips, showClip } from './clips';
import { importDemo } from './demo';
import { importJudgeFile } from './judge';
import { describeIssue, importMetasetFile } from './metaset';
import { importRavdess } from './ravdess';
import { renditionStore } from './rendition-store';
import { importRenditions } from './renditions';
import { ImportReport } from './report';
import { verifyClips } from './verify';
import { importVctk } from './vctk';
import { importVoxreasonFile, warnSkippedPlans } from './voxreason';

const USAGE = `Usage: npm run manifest -- <command> [options]   (database: $EARMARK_DATA/earmark.db or --data <dir>)
  import ravdess <dir> [--progress]
  import vctk <dir> [--mic 1|2] [--layout auto|0.92|0.80] [--progress]
  import metaset <captions.json>... --system <name> [--audio-root <dir>] [--progress]
  import judge <results.json|scores.csv>... [--system <s> --judge <j> --run <r>]
  import voxreason <cases.jsonl>...
  import demo [<dir>]            (default studies/demo)
  renditions <dir|list.csv|list.json>... [--system <name>] [--progress]
                                 system audio: <dir>/<system>/<utterance-or-file-stem>.wav|.flac
                                 (--system: <dir> is that one system's folder), or a list with columns
                                 utterance_id,system,path; all or nothing (docs/renditions.md)
  list [--json] [--corpus <name>]
  renditions-summary             renditions per system
  show <clip id or path>
  verify`;

const Name = z.string().trim().min(1);
const Args = z.discriminatedUnion('command', [
  z.object({ command: z.literal('import ravdess'), inputs: z.tuple([Name]) }),
  z.object({ command: z.literal('import vctk'), inputs: z.tuple([Name]), mic: z.enum(['1', '2']).default('1'), layout: z.enum(['auto', '0.92', '0.80']).default('auto') }),
  z.object({ command: z.literal('import metaset'), inputs: z.array(Name).min(1, 'give at least one caption file'), system: Name, 'audio-root': Name.optional() }),
  z.object({ command: z.literal('import judge'), inputs: z.array(Name).min(1, 'give at least one judge file'), system: Name.optional(), judge: Name.optional(), run: Name.optional() }),
  z.object({ command: z.literal('import voxreason'), inputs: z.array(Name).min(1, 'give at least one .jsonl file') }),
  z.object({ command: z.literal('import demo'), inputs: z.array(Name).max(1) }),
  z.object({ command: z.literal('import renditions'), inputs: z.array(Name).min(1, 'give at least one folder or list file'), system: Name.optional() }),
  z.object({ command: z.literal('renditions-summary'), inputs: z.array(Name).max(0, 'renditions-summary takes no arguments') }),
  z.object({ command: z.literal('list'), inputs: z.array(Name).max(0, 'list takes no arguments'), json: z.boolean().default(false), corpus: Name.optional() }),
  z.object({ command: z.literal('show'), inputs: z.tuple([Name], 'give one clip id or path') }),
  z.object({ command: z.literal('verify'), inputs: z.array(Name).max(0, 'verify takes no arguments') }),
], { error: (issue) => (issue.code === 'invalid_union' ? 'unknown command' : undefined) });

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = commandLine(argv, {
    data: { type: 'string' }, progress: { type: 'boolean' }, json: { type: 'boolean' },
    mic: { type: 'string' }, layout: { type: 'string' }, system: { type: 'string' }, 'audio-root': { type: 'string' },
    judge: { type: 'string' }, run: { type: 'string' }, corpus: { type: 'string' },
  });
  if (positionals.length === 0) {
    console.error(USAGE);
    return 2;
  }
  // `renditions <input>...` is `import renditions <input>...`.
  const [command, ...rest] = positionals[0] === 'renditions' ? ['import', ...positionals] : positionals;
  const isImport = command === 'import';
  const { data, progress, ...flags } = values;
  const parsed = Args.safeParse({
    command: isImport ? `import ${rest[0] ?? ''}` : command,
    inputs: isImport ? rest.slice(1) : rest,
    ...flags,
  });
  if (!parsed.success) {
    console.error(`Invalid arguments: ${describeIssue(parsed.error)}\n${USAGE}`);
    return 2;
  }
  const args = parsed.data;
  const db = openDatabase(databaseFile({ dataDir: resolve(data ?? process.env.EARMARK_DATA ?? 'data') }), { synchronous: 'NORMAL' });
  try {
    const onFailure = (line: string): void => console.error(line);
    if (args.command === 'list') {
      for (const clip of listClips(db, args.corpus)) {
        if (args.json) console.log(JSON.stringify(clip));
        else console.log([clip.id, clip.corpus, clip.duration.toFixed(2) + ' s', `${clip.sampleRate} Hz`, `${clip.channels} ch`, clip.path].join('\t'));
      }
      return 0;
    }
    if (args.command === 'show') {
      const clip = showClip(db, args.inputs[0]);
      if (!clip) {
        console.error(`No clip ${args.inputs[0]} in the manifest`);
        return 1;
      }
      console.log(JSON.stringify(clip, null, 2));
      return 0;
    }
    if (args.command === 'verify') {
      const result = verifyClips(db, onFailure);
      console.log(`verify: ${result.checked} clips checked, ${result.problems.length} problems`);
      return result.problems.length > 0 ? 1 : 0;
    }
    if (args.command === 'renditions-summary') {
      const rows = renditionStore(db).perSystem();
      for (const row of rows) console.log(`${row.system}\t${row.renditions}`);
      const { renditions, systems } = renditionStore(db).count();
      console.log(`renditions: ${renditions} of ${systems} system${systems === 1 ? '' : 's'}`);
      return 0;
    }
    const started = performance.now();
    let report: ImportReport;
    const corpus = args.command.slice('import '.length);
    switch (args.command) {
      case 'import ravdess':
        report = await importRavdess(db, args.inputs[0], { progress, onFailure });
        break;
      case 'import vctk':
        report = await importVctk(db, args.inputs[0], { progress, onFailure, mic: Number(args.mic) as 1 | 2, layout: args.layout });
        break;
      case 'import metaset':
        report = new ImportReport(onFailure);
        for (const file of args.inputs) await importMetasetFile(db, file, { system: args.system, audioRoot: args['audio-root'], progress, report });
        break;
      case 'import judge':
        report = new ImportReport(onFailure);
        for (const file of args.inputs) importJudgeFile(db, file, { system: args.system, judge: args.judge, run: args.run, report });
        break;
      case 'import voxreason':
        report = new ImportReport(onFailure);
        for (const file of args.inputs) importVoxreasonFile(db, file, { report });
        warnSkippedPlans(args.inputs.join(', '), report.counts['plans skipped'] ?? 0, report);
        break;
      case 'import renditions':
        report = await importRenditions(db, args.inputs, { system: args.system, progress, onFailure });
        break;
      case 'import demo':
        report = await importDemo(db, args.inputs[0] ?? 'studies/demo', { onFailure });
        break;
    }
    const seconds = (performance.now() - started) / 1000;
    console.log(`${corpus}: ${report.summary()} (${seconds.toFixed(1)} s)`);
    const reasons = new Map<string, number>();
    for (const f of report.failures) reasons.set(f.reason, (reasons.get(f.reason) ?? 0) + 1);
    const grouped = [...reasons].sort((a, b) => b[1] - a[1]);
    for (const [reason, n] of grouped.slice(0, 10)) console.log(`  ${n} × ${reason}`);
    if (grouped.length > 10) console.log(`  … and ${grouped.length - 10} other reasons (each line is above)`);
    return report.failures.length > 0 ? 1 : 0;
  } finally {
    db.close();
  }
}

await runCommand(USAGE, () => main(process.argv.slice(2)));
