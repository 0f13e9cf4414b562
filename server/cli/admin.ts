/**
 * npm run admin -- token create --role researcher|analyst [--label <text>] [--study <id> ...]
 *                  token list
 *                  token revoke <id>
 * Works on the data directory of configFromEnv (--data / EARMARK_DATA), also while the server runs.
 */
import { z } from 'zod';
import { STAFF_ROLES } from '../../contract/constants';
import { StudyId } from '../../contract/common';
import { configFromEnv, SERVER_OPTIONS } from '../config';
import { commandLine, runCommand } from './args';
import { databaseFile, openDatabase } from '../../db/open';
import { accessTokenRepository } from '../store/access-tokens';

const Role = z.enum(STAFF_ROLES);

const USAGE = 'usage: npm run admin -- token create --role researcher|analyst [--label <text>] [--study <id> ...] | token list | token revoke <id>   [--data <data dir>]';

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = commandLine(argv, { data: SERVER_OPTIONS.data, role: { type: 'string' }, label: { type: 'string' }, study: { type: 'string', multiple: true } });
  const [group, command, ...rest] = positionals;
  if (group !== 'token' || !['create', 'list', 'revoke'].includes(command)) {
    console.error(USAGE);
    return 2;
  }
  const db = openDatabase(databaseFile(configFromEnv(values)));
  const tokens = accessTokenRepository(db);
  try {
    if (command === 'create') {
      const role = Role.safeParse(values.role);
      if (!role.success) {
        console.error('--role must be researcher or analyst');
        return 2;
      }
      // --study (repeatable) limits the token to those studies, existing or still to be made.
      const studies = values.study ?? null;
      const badStudy = studies?.find((s) => !StudyId.safeParse(s).success);
      if (badStudy !== undefined) {
        console.error(`--study ${badStudy}: a study id is lower-case letters, digits and dashes`);
        return 2;
      }
      const { id, token } = await tokens.create(role.data, values.label ?? null, studies);
      const reach = studies ? `limited to ${studies.join(', ')}` : 'on every study';
      console.log(`Created ${role.data} token ${id} (${reach}). It is shown only now; keep it safe:\n${token}`);
    } else if (command === 'list') {
      for (const t of tokens.list()) {
        console.log([t.id, t.role, t.createdAt, t.revokedAt ? `revoked ${t.revokedAt}` : 'active', t.studies ? `studies ${t.studies.join(',')}` : 'every study', t.label ?? ''].join('\t'));
      }
    } else {
      const id = rest[0];
      if (!id || !tokens.revoke(id)) {
        console.error(`no active token with id ${id ?? '(missing)'}`);
        return 1;
      }
      console.log(`Revoked token ${id}.`);
    }
    return 0;
  } finally {
    db.close();
  }
}

await runCommand(USAGE, () => main(process.argv.slice(2)));
