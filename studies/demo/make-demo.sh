#!/usr/bin/env bash
# Regenerates the demo study's synthetic speech clips (dev-time tool; tests and `npm start` never run it).
# Needs espeak-ng and sox. Each clip varies voice, accent, pitch, rate and level so captions can differ
# in how truthfully they describe the delivery. Output: audio/demo-NN.wav, mono 16 kHz 16-bit PCM.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p audio
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# name | espeak voice | pitch 0-99 | rate wpm | peak level dBFS | text
clips=$(cat <<'TABLE'
demo-01|en-us+m3|40|150|-6|The train leaves at seven tomorrow.
demo-02|en-us+f3|72|175|-6|I honestly did not expect that at all.
demo-03|en-gb+m1|22|115|-6|Please close the door quietly.
demo-04|en-gb+f2|60|230|-6|We have to hurry or we will miss the start.
demo-05|en-gb-scotland+m4|50|160|-22|Keep your voice down, they are sleeping.
demo-06|en-us+f4|88|150|-1|That is the best news I have heard all week!
demo-07|en-029+m2|35|185|-6|The market opens early on Saturdays.
demo-08|en-us+f1|40|122|-6|Let me think about it for a moment.
demo-09|en-gb-x-rp+m7|18|160|-1|Everyone must leave the building now.
demo-10|en-us+f5|76|240|-6|Did you see where I put my car keys?
demo-11|en-gb+m5|62|125|-6|Well, that is rather surprising.
demo-12|en-gb-scotland+f3|55|150|-22|It might rain later this afternoon.
demo-13|en-us+m6|30|215|-6|Turn left at the second set of lights.
demo-14|en-029+f2|66|170|-6|Thank you so much for coming today.
demo-15|en-us+whisper|50|140|-12|Do not tell anyone about the surprise.
demo-16|en-gb+f4|92|180|-6|Oh, look at the little puppy over there!
TABLE
)

while IFS='|' read -r name voice pitch rate level text; do
  espeak-ng -v "$voice" -p "$pitch" -s "$rate" -w "$tmp/$name.wav" "$text"
  # Trim leading/trailing silence, then resample, set the peak level and leave a short pad.
  sox -R "$tmp/$name.wav" -r 16000 -c 1 -b 16 "audio/$name.wav" \
    silence 1 0.02 0.3% reverse silence 1 0.02 0.3% reverse \
    gain -n "$level" pad 0.12 0.12 dither -s
  printf '%s %ss\n' "$name" "$(soxi -D "audio/$name.wav")"
done <<< "$clips"
du -ch audio/*.wav | tail -1

# Captions of four made-up captioning systems plus the oracle (in each record's metadata), in the
# StyleInstructCaps evaluation-input format, and judge outputs in the benchmark's judge format.
# Every caption is built from the clip's true delivery facts below, with each system's typical
# mistakes applied, so caption quality (and the judge scores derived from it) genuinely differ.
node --input-type=module <<'JS'
import { writeFileSync, mkdirSync } from 'node:fs';
mkdirSync('captions', { recursive: true });
mkdirSync('judges', { recursive: true });

// name, speakerid, gender, accent, pitch, rate, level, tone (what is actually audible), transcript
const facts = [
  ['demo-01', 'spk-us-m3', 'male', 'American', 'medium', 'measured', 'normal', 'flat and matter-of-fact', 'The train leaves at seven tomorrow.'],
  ['demo-02', 'spk-us-f3', 'female', 'American', 'high', 'measured', 'normal', 'bright, with a rising lilt', 'I honestly did not expect that at all.'],
  ['demo-03', 'spk-gb-m1', 'male', 'British', 'low', 'slow', 'normal', 'calm and deliberate', 'Please close the door quietly.'],
  ['demo-04', 'spk-gb-f2', 'female', 'British', 'medium', 'fast', 'normal', 'hurried and clipped', 'We have to hurry or we will miss the start.'],
  ['demo-05', 'spk-sc-m4', 'male', 'Scottish', 'medium', 'measured', 'quiet', 'subdued and distant', 'Keep your voice down, they are sleeping.'],
  ['demo-06', 'spk-us-f4', 'female', 'American', 'very high', 'measured', 'loud', 'piercing and forceful', 'That is the best news I have heard all week!'],
  ['demo-07', 'spk-ca-m2', 'male', 'Caribbean', 'low', 'fast', 'normal', 'even and conversational', 'The market opens early on Saturdays.'],
  ['demo-08', 'spk-us-f1', 'female', 'American', 'low', 'slow', 'normal', 'drawn-out and careful', 'Let me think about it for a moment.'],
  ['demo-09', 'spk-rp-m7', 'male', 'British', 'very low', 'measured', 'loud', 'booming and commanding', 'Everyone must leave the building now.'],
  ['demo-10', 'spk-us-f5', 'female', 'American', 'high', 'very fast', 'normal', 'rushed and breathless', 'Did you see where I put my car keys?'],
  ['demo-11', 'spk-gb-m5', 'male', 'British', 'high', 'slow', 'normal', 'dry and unhurried', 'Well, that is rather surprising.'],
  ['demo-12', 'spk-sc-f3', 'female', 'Scottish', 'medium', 'measured', 'quiet', 'soft and faint', 'It might rain later this afternoon.'],
  ['demo-13', 'spk-us-m6', 'male', 'American', 'low', 'fast', 'normal', 'brisk and businesslike', 'Turn left at the second set of lights.'],
  ['demo-14', 'spk-ca-f2', 'female', 'Caribbean', 'high', 'measured', 'normal', 'steady and pleasant', 'Thank you so much for coming today.'],
  ['demo-15', 'spk-us-wh', 'male', 'American', 'medium', 'measured', 'whispered', 'breathy and whispered, with no voiced tone', 'Do not tell anyone about the surprise.'],
  ['demo-16', 'spk-gb-f4', 'female', 'British', 'very high', 'measured', 'normal', 'thin and squeaky', 'Oh, look at the little puppy over there!'],
].map(([name, speakerid, gender, accent, pitch, rate, level, tone, transcription]) =>
  ({ name, speakerid, gender, accent, pitch, rate, level, tone, transcription }));

const opposite = { male: 'female', female: 'male' };
const otherPitch = { 'very low': 'high', low: 'high', medium: 'low', high: 'low', 'very high': 'deep' };
const otherRate = { slow: 'rapid', measured: 'fast', fast: 'slow', 'very fast': 'leisurely' };
const rateWords = { slow: 'slowly', measured: 'at a measured pace', fast: 'quickly', 'very fast': 'very quickly' };
const levelWords = { quiet: 'quietly, as if from a distance', loud: 'loudly', normal: 'at a comfortable level', whispered: 'in a whisper' };
// Emotions a system might read off the words instead of hearing them (the voices are synthetic and flat).
const guessed = ['cheerful', 'surprised', 'gentle', 'anxious', 'worried', 'ecstatic', 'relaxed', 'pensive',
  'alarmed', 'frantic', 'amused', 'wistful', 'patient', 'grateful', 'playful', 'delighted'];
const an = (word) => `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;
const voice = (f) => f.level === 'whispered' ? 'whispering voice' : 'voice';

// Each system returns [caption, number of false or missing delivery facts].
const systems = {
  oracle: (f) => [`A ${f.gender} ${voice(f)} with ${an(f.accent)} accent speaks ${rateWords[f.rate]} and ${levelWords[f.level]}, with a ${f.pitch} pitch; the delivery is ${f.tone}, clearly synthetic.`, 0],
  lyra: (f, i) => i % 4 === 1
    ? [`A ${f.pitch}-pitched ${f.gender} speaker talks ${rateWords[f.rate]}; the tone is ${f.tone}.`, 1]
    : [`A ${f.gender} ${f.accent} ${voice(f)}, ${f.pitch} in pitch, speaking ${rateWords[f.rate]} and ${levelWords[f.level]} in a ${f.tone.split(/,| with/)[0]} manner.`, 0],
  'sonnet-cap': (f, i) => i % 3 === 0
    ? [`${an(f.accent).replace(/^a/, 'A')} ${f.gender} voice with ${an(otherPitch[f.pitch])} pitch speaks ${rateWords[f.rate]}, sounding ${guessed[i]}.`, 2]
    : [`${f.gender === 'male' ? 'A man' : 'A woman'} with ${an(f.accent)} accent speaks ${rateWords[f.rate]} in a ${f.pitch} register.`, 1],
  'parrot-7b': (f, i) => i % 2 === 0
    ? [`A ${f.gender} speaker says "${f.transcription}" at a ${otherRate[f.rate]} pace, sounding ${guessed[i]}.`, 3]
    : [`A ${f.gender} speaker with a ${f.pitch} voice, sounding ${guessed[i]}.`, 2],
  'whisper-style': (f, i) => i % 3 === 2
    ? [`A ${opposite[f.gender]} person speaks clearly.`, 4]
    : [`Someone says "${f.transcription}" in ${an(guessed[i])} way.`, 3],
};

const instruction = 'Combine all elements of the speech, including pitch, speaking rate, loudness, accent, gender and tone, into one rich description of how the voice delivers the words.';
const oracleCaption = (f) => systems.oracle(f, 0)[0];
const record = (f, i, caption) => ({
  wav_path: `/data/eval_set/demo/${f.name}.wav`,
  status: 'success',
  generated_captions: { holistic_creative_synthesis: { used_instruction: instruction, generated_caption: caption } },
  metadata: {
    source: 'demo', relative_audio_path: `${f.name}.wav`, speakerid: f.speakerid, name: f.speakerid,
    transcription: f.transcription, gender: f.gender, accent: f.accent.toLowerCase(),
    pitch: `${f.pitch}-pitched`, speaking_rate: `${f.rate} speed`, noise: 'clean synthetic recording',
    intrinsic_tags: [f.tone.split(/,| with| and/)[0].trim(), 'synthetic'], situational_tags: f.level === 'normal' ? [] : [f.level],
    basic_tags: [f.gender, `${f.pitch}-pitched`, `${f.rate} speed`],
    holistic_creative_synthesis: oracleCaption(f), holistic_creative_synthesis_instruction: instruction,
  },
});

// Deterministic pseudo-random judge noise in [-1, 1] (FNV-1a hash of the key).
const noise = (key) => { let h = 2166136261; for (const c of key) h = Math.imul(h ^ c.charCodeAt(0), 16777619); return ((h >>> 0) / 2 ** 32) * 2 - 1; };
const judges = { 'judge-alpha': 0, 'judge-beta': -0.6 };
for (const [system, caption] of Object.entries(systems)) {
  const rows = facts.map((f, i) => [f, ...caption(f, i)]);
  if (system !== 'oracle') writeFileSync(`captions/${system}.json`, JSON.stringify(rows.map(([f, text], i) => record(f, i, text)), null, 2) + '\n');
  for (const [judge, bias] of Object.entries(judges)) for (const run of ['run1', 'run2']) {
    const individual = rows.map(([f, text, errors], index) => {
      const raw = 9.3 - 1.7 * errors + bias + 1.2 * noise(`${system}|${judge}|${run}|${f.name}`);
      // One unparsable judge answer, as real judge runs have: the benchmark writes it as 0.
      const unparsed = system === 'parrot-7b' && judge === 'judge-beta' && run === 'run2' && index === 4;
      const score = unparsed ? 0 : Math.min(10, Math.max(1, Math.round(raw)));
      return { index, wav_path: `/data/eval_set/demo/${f.name}.wav`, generated_caption: text, reference_caption: oracleCaption(f),
        similarity_score: score, justification: unparsed ? 'Could not parse judge answer.' : `${errors} delivery attribute(s) missing or wrong.` };
    });
    const scored = individual.filter((r) => r.similarity_score > 0);
    writeFileSync(`judges/${system}__${judge}__${run}.json`, JSON.stringify({
      aggregated_results: { system, judge, run, num_samples: individual.length, num_scored: scored.length,
        mean_similarity_score: +(scored.reduce((s, r) => s + r.similarity_score, 0) / scored.length).toFixed(3) },
      individual_results: individual,
      failed_log: individual.filter((r) => r.similarity_score === 0).map((r) => ({ index: r.index, wav_path: r.wav_path, error: 'unparsable judge response' })),
    }, null, 2) + '\n');
  }
}
JS
