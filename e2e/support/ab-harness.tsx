/**
 * A test-only page for the A/B trial component on its own (no server): the page's query names the
 * study settings; the trial's finish/skip/advance are recorded on window.__ab for the test to read.
 * Bundled by esbuild in e2e/ab-trial.spec.ts; the clips come from that test's loopback server.
 */
import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { catalogues, MessagesContext } from '../../client/listener/messages';
import { ClipCache } from '../../client/lib/media';
import type { TrialEnv, TrialProblem } from '../../client/listener/trials/types';
import { AbTrial, type AbResponse } from '../../trials/ab/AbTrial';
import type { AbTrial as AbSpec } from '../../trials/ab/contract';

const q = new URLSearchParams(location.search);
const language = q.get('lang') === 'de' ? 'de' : 'en';
const seconds = q.get('seconds');
const practice = q.has('practice');
const tie = q.has('tie');
const clip = (name: string, duration: number) => ({ id: `c-${name}`, audioUrl: `/audio/${name}.wav`, peaksUrl: `/peaks/${name}.json`, duration });
const spec: AbSpec = {
  position: 3,
  kind: 'ab',
  practice,
  tie,
  stimuli: [clip(q.get('a') ?? 'a', Number(q.get('da'))), clip(q.get('b') ?? 'b', Number(q.get('db')))],
};
const record = { responses: [] as AbResponse[], skips: [] as TrialProblem[], advanced: 0 };
(window as unknown as { __ab: typeof record }).__ab = record;

function Page() {
  const [env, setEnv] = useState<TrialEnv | null>(null);
  const [done, setDone] = useState(false);
  if (done) return <p>Done</p>;
  if (!env)
    return (
      <button
        type="button"
        className="primary"
        onClick={() =>
          setEnv({
            audio: new AudioContext(),
            clips: new ClipCache(),
            listening: seconds ? { mode: 'seconds', seconds: Number(seconds) } : { mode: 'whole' },
            question: 'Which version sounds **more natural**?',
            trial: { kind: 'pair' },
          })
        }
      >
        Start
      </button>
    );
  return (
    <AbTrial
      spec={spec}
      env={env}
      label="Trial 4 of 10"
      finish={async (response) => {
        record.responses.push(response);
        return practice ? { correct: response.preference === 'B' } : null;
      }}
      advance={() => {
        record.advanced++;
        setDone(true);
      }}
      skip={async (problem) => {
        record.skips.push(problem);
      }}
    />
  );
}

document.documentElement.lang = language;
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MessagesContext.Provider value={catalogues[language]}>
      <main>
        <h1>A/B trial</h1>
        <Page />
      </main>
    </MessagesContext.Provider>
  </StrictMode>,
);
