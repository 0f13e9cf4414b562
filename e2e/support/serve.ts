/**
 * A real Earmark server for the browser tests, run as its own process (tsx), over a fresh temp
 * data dir with one seeded study (real WAV files, opaque clip ids) and the built client. Prints
 * one JSON line — url, data dir, study, the strings a listener must never see — then serves
 * until SIGTERM. Uses the server's own test seeding until the demo study loader is merged.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer } from '../../server/testing/server';
import { StudyDefinition } from '../../contract/study-definition';

const args = process.argv.slice(2);
const opt = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const root = fileURLToPath(new URL('../..', import.meta.url));
const study = opt('study', 'e2e-study');
const screening = opt('screening', 'antiphase');

const server = await startTestServer({
  studies: [{
    study, pairs: Number(opt('pairs', '6')), attention: Number(opt('attention', '2')), practice: Number(opt('practice', '1')),
    ...(args.includes('--rating') ? { rating: { caption: true } } : {}),
    ...(args.includes('--design') ? { design: JSON.parse(opt('design', '')) } : {}),
  }],
  app: { clientDir: join(root, 'dist', 'client') },
});
server.app.db
  .prepare("UPDATE studies SET definition = json_set(definition, '$.screening.kind', ?, '$.screening.required', json(?)) WHERE id = ?")
  .run(screening, String(args.includes('--screening-required')), study);
// The study texts per language, as a researcher running one study.yaml in two languages writes them;
// the schema keeps the study's language, as `npm run study -- build` stores it.
const stored = server.app.db.prepare('SELECT definition FROM studies WHERE id = ?').get(study) as { definition: string };
const definition = StudyDefinition.parse({
  ...JSON.parse(stored.definition),
  language: opt('language', 'en'),
  ...(args.includes('--break-every') ? { breakEvery: Number(opt('break-every', '')) } : {}),
  comments: args.includes('--comments'),
  questions: JSON.parse(opt('questions', '[]')),
  trialComments: args.includes('--trial-comments'),
  title: { en: 'Listening study', de: 'Hörstudie' },
  consent: { en: 'You agree to listen.', de: 'Sie sind einverstanden, zuzuhören.' },
  instructions: { en: 'Pick the caption that fits the delivery.', de: 'Wählen Sie die Beschreibung, die zur Sprechweise passt.' },
  question: { en: 'Which caption better describes how it is said?', de: 'Welche Beschreibung trifft besser, wie es gesagt wird?' },
});
server.app.db
  .prepare('UPDATE studies SET title = ?, definition = ? WHERE id = ?')
  .run(definition.title, JSON.stringify(definition), study);
const [seeded] = server.seeded;
console.log(JSON.stringify({ url: server.url, dataDir: server.dataDir, study, secrets: seeded.secrets, clipIds: seeded.clipIds }));

const stop = () => void server.close().finally(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
