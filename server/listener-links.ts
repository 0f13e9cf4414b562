/** The links a study is run from: the studio shows them, `npm run study -- open` prints them. */
import type { ListenerLinks } from '../contract/studio';

const PROLIFIC_PLACEHOLDERS: Record<string, string> = {
  PROLIFIC_PID: '{{%PROLIFIC_PID%}}',
  STUDY_ID: '{{%STUDY_ID%}}',
  SESSION_ID: '{{%SESSION_ID%}}',
};

/** The listener link, and the same link as Prolific and MTurk want it. */
export function listenerLinks(origin: string, studyId: string, recorded: readonly string[]): ListenerLinks {
  const plain = `${origin}/s/${studyId}`;
  const prolific = recorded.filter((p) => p in PROLIFIC_PLACEHOLDERS).map((p) => `${p}=${PROLIFIC_PLACEHOLDERS[p]}`);
  return { plain, prolific: prolific.length ? `${plain}?${prolific.join('&')}` : plain, mturk: plain, recorded: [...recorded] };
}

/** The server's own address as `npm start` prints it (`http://127.0.0.1:4510`). */
export function serverOrigin(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
