/**
 * npm run captions -- <bundle dir> --out <file.json>: a describe study's texts as a MetaSet-style
 * caption file (analysis-spec §5.6), for a later study's `sources:` under the system name the
 * describe study chose (`trial.system`, printed).
 */
import { writeFile } from 'node:fs/promises';
import { readBundle } from './bundle';
import { analyze } from './report';
import { runCommand } from '../cli/args';
import { describeCaptions } from '../trials/describe/report';

const USAGE = 'usage: npm run captions -- <bundle dir> --out <captions.json>';

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const at = argv.indexOf('--out');
  const out = at >= 0 ? argv[at + 1] : undefined;
  const input = argv.find((a, i) => !a.startsWith('--') && i !== at + 1);
  if (!input || !out) {
    console.error(USAGE);
    return 2;
  }
  const bundle = await readBundle(input);
  // Texts of listeners the study's exclusion rules leave out do not become captions.
  const excluded = new Set(analyze(bundle).listeners.excluded.map((l) => l.listener_id));
  const records = describeCaptions(bundle, excluded);
  await writeFile(out, JSON.stringify(records, null, 2) + '\n');
  const system = (bundle.study?.trial as { system?: string } | undefined)?.system ?? '<your system name>';
  console.log(`wrote ${out}: ${records.length} captions (${excluded.size} excluded listeners' texts left out); list it in a study's sources as { kind: metaset, file: ${out}, system: ${system} }`);
  return 0;
}

runCommand(USAGE, main).catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
