#!/usr/bin/env bash
# Regenerates the demo's renditions: three made-up "TTS systems" reading the demo's 16 sentences
# (dev-time tool; tests and `npm start` never run it, the output is committed). Needs espeak-ng and sox
# (Debian: apt-get install -y espeak-ng sox). Deterministic: the same espeak-ng and sox versions write
# the same bytes (sox -R: no random dither seed). Output: renditions/<system>/demo-NN.flac, mono 16 kHz
# 16-bit FLAC (lossless; a third of the size of the same WAV), named by the demo utterance's file stem so
# `npm run manifest -- renditions renditions` matches each to metaset:demo/demo-NN.wav; and
# renditions/mos-pred.csv, a made-up MOS predictor's scores of every rendition (a judge CSV).
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# system | espeak voice | pitch 0-99 | rate wpm: one voice per system, as a TTS system has.
systems=$(cat <<'TABLE'
espeak-en-slow|en-us+m3|45|140
espeak-en-fast|en-us+m3|45|220
espeak-de-accent|de+m3|45|170
TABLE
)

# The demo's sentences (make-demo.sh's table), by utterance file stem.
sentences=$(sed -n 's/^\(demo-[0-9][0-9]\)|[^|]*|[^|]*|[^|]*|[^|]*|\(.*\)$/\1|\2/p' make-demo.sh)

rm -rf renditions
while IFS='|' read -r system voice pitch rate; do
  mkdir -p "renditions/$system"
  while IFS='|' read -r name text; do
    espeak-ng -v "$voice" -p "$pitch" -s "$rate" -w "$tmp/raw.wav" "$text"
    # Trim leading/trailing silence, resample, set the peak to -6 dBFS, leave a short pad.
    sox -R "$tmp/raw.wav" -r 16000 -c 1 -b 16 "renditions/$system/$name.flac" \
      silence 1 0.02 0.3% reverse silence 1 0.02 0.3% reverse gain -n -6 pad 0.1 0.1
  done <<< "$sentences"
done <<< "$systems"
du -cb renditions/*/*.flac | tail -1

# A made-up automatic quality judge ("mos-pred", two runs) scoring each rendition 1-5: the slow voice
# best, the fast one a little worse, the German voice reading English worst, plus small deterministic
# noise (FNV-1a of the key), so the A/B report has judges to compare listeners with.
node --input-type=module <<'JS'
import { readdirSync, writeFileSync } from 'node:fs';
const base = { 'espeak-en-slow': 3.8, 'espeak-en-fast': 3.2, 'espeak-de-accent': 2.3 };
const noise = (key) => { let h = 2166136261; for (const c of key) h = Math.imul(h ^ c.charCodeAt(0), 16777619); return ((h >>> 0) / 2 ** 32) * 2 - 1; };
const rows = ['utterance_id,system,judge,run,score'];
for (const system of Object.keys(base)) for (const run of ['run1', 'run2']) {
  for (const file of readdirSync(`renditions/${system}`).sort()) {
    const utterance = `metaset:demo/${file.replace(/\.flac$/, '.wav')}`;
    const score = Math.min(5, Math.max(1, base[system] + 0.5 * noise(`${system}|${run}|${file}`)));
    rows.push(`${utterance},${system},mos-pred,${run},${score.toFixed(2)}`);
  }
}
writeFileSync('renditions/mos-pred.csv', rows.join('\n') + '\n');
JS
