/** The analysis commands as the tests run them: a real process, its exit code and output. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const tsx = join(process.cwd(), 'node_modules/.bin/tsx');

/** Runs `analysis/<script>` with tsx; a failing exit is returned, not thrown. */
export async function cli(script: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(tsx, [join('analysis', script), ...args]);
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}
