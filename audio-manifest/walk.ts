import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { ImportReport } from './report';

/** Files under dir (recursively, sorted); an unreadable directory is reported and skipped. */
export function walkFiles(dir: string, report: ImportReport, accept: (name: string) => boolean): string[] {
  const found: string[] = [];
  const visit = (current: string): void => {
    let entries;
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      report.fail(current, `cannot read directory (${code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'ENOENT' ? 'not found' : (error as Error).message})`);
      return;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const full = join(current, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.isFile() && accept(entry.name)) found.push(full);
    }
  };
  visit(dir);
  return found;
}

export function posixRelative(root: string, file: string): string {
  return relative(root, file).split(sep).join('/');
}
