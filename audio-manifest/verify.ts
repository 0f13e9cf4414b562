import { readFileSync, statSync } from 'node:fs';
import type { Db } from '../db/open';
import { sha256Hex } from './decode';
import type { Failure } from './report';
import { manifestStore } from './store';

export interface VerifyResult {
  checked: number;
  problems: Failure[];
}

/** Checks that every clip's file still exists and still has the sha256 recorded at import. */
export function verifyClips(db: Db, onProblem: (line: string) => void = () => {}): VerifyResult {
  const rows = manifestStore(db).recordedFiles();
  const problems: Failure[] = [];
  const problem = (file: string, reason: string): void => {
    problems.push({ file, reason });
    onProblem(`${file}: ${reason}`);
  };
  for (const row of rows) {
    try {
      if (!statSync(row.abs_path).isFile()) problem(row.abs_path, `clip ${row.id}: no longer a regular file`);
      else if (sha256Hex(readFileSync(row.abs_path)) !== row.sha256) {
        problem(row.abs_path, `clip ${row.id}: content changed since import (sha256 differs); re-run the import`);
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      problem(row.abs_path, `clip ${row.id}: ${code === 'ENOENT' ? 'file is missing' : (error as Error).message}`);
    }
  }
  return { checked: rows.length, problems };
}
