/**
 * The contract on its own (no server, no client): what a listener's browser can receive is
 * exactly the reviewed set of keys, and a vote carries exactly one kind's answer.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ScreeningAttempt, ScreeningReply, StudyIntro, SessionState, StartSessionReply, Trial, VoteAck, VoteBody } from './listener';
import { ApiError } from './common';

function propertyNames(schema: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const s of schema) propertyNames(s, out);
  else if (schema && typeof schema === 'object')
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties' && value && typeof value === 'object') for (const name of Object.keys(value)) out.add(name);
      propertyNames(value, out);
    }
  return out;
}

const received = [StudyIntro, SessionState, StartSessionReply, VoteAck, ScreeningAttempt, ScreeningReply, ApiError];
const keys = new Set(received.flatMap((s) => [...propertyNames(z.toJSONSchema(s, { io: 'output' }))]));

describe('the listener surface', () => {
  it('is exactly the reviewed keys: a new one is a blinding decision (docs/blinding.md), made here', () => {
    expect([...keys].sort()).toEqual(
      [
        // The headphone check: the session's standing (checks recorded, used up, failed), an attempt's rounds (where each
        // sounds, never its target) and the server's score of the answers.
        'attempt', 'attempts', 'rounds', 'outcome', 'usedUp', 'failed',
        'anchors', 'audioUrl', 'breakEvery', 'caption', 'captions', 'clip', 'code', 'comments', 'completion', 'consentMarkdown',
        'correct', 'done', 'duration', 'error', 'estimate', 'feedback', 'field', 'high', 'id', 'instructionsMarkdown', 'kind',
        'labels', 'language', 'linkParameters', 'listening', 'low', 'message', 'mode', 'peaksUrl', 'points', 'position',
        'practice', 'progress', 'questionMarkdown', 'redirectUrl', 'required', 'scale', 'score', 'screening', 'seconds', 'serverTs',
        'state', 'status', 'stopped', 'study', 'title', 'token', 'total', 'trial', 'trials', 'upcoming', 'voteId',
        // An A/B trial (trials/ab): its two renditions as opaque served clips, and whether the study offers "no preference".
        'stimuli', 'tie',
        // The study's questionnaire (contract/questionnaire.ts): the researcher's own questions and options, like its other
        // texts, and which part is due; nothing about systems or clips.
        'after', 'before', 'integer', 'max', 'maxLength', 'min', 'options', 'questions', 'questionsDue', 'text', 'trialComments', 'when',
        // A tags trial (trials/tags): the study's attributes as the listener labels with them (never the manifest label they are checked against).
        'attributes', 'name', 'values', 'hints',
        // A MUSHRA page (trials/mushra): the open reference as an opaque served clip (the hidden one is among the stimuli),
        // and where the study keeps its button (above or below the rated stimuli).
        'reference', 'referencePosition',
        // A describe trial (trials/describe): the study's instruction and length bounds (its caption-source system name stays on the server).
        'instruction', 'minLength',
        // Whether the listener left the study from its page (POST /api/session/leave): their own choice, nothing of the study.
        'left',
      ].sort(),
    );
  });

  it('names no system, judge, corpus, utterance, item or expected answer', () => {
    for (const key of keys) expect(key).not.toMatch(/system|judge|corpus|utterance|item|expected|attention|path|file/i);
  });

  it('serves both kinds of trial, and nothing of a pair on a rating or the other way round', () => {
    const clip = { id: 'c1', audioUrl: '/media/clips/c1/audio', peaksUrl: '/media/clips/c1/peaks', duration: 2 };
    expect(Trial.safeParse({ position: 0, kind: 'pair', clip, captions: ['x', 'y'] }).success).toBe(true);
    expect(Trial.safeParse({ position: 0, kind: 'rating', practice: false, clip, caption: null }).success).toBe(true);
    expect(Trial.safeParse({ position: 0, kind: 'rating', practice: false, clip, captions: ['x', 'y'] }).success).toBe(false);
  });
});

describe('a vote', () => {
  const base = {
    voteId: '6f1c1d7e-4a53-4a4f-9d0e-2b0f3c4d5e6f', position: 0, playCount: 1, secondsListened: 2,
    heardToEnd: true, hiddenMs: 0, responseMs: 900, clientTs: '2026-12-01T08:00:00.000Z',
  };
  it('carries a choice (pair) or a score (rating)', () => {
    expect(VoteBody.parse({ ...base, choice: 2 })).toMatchObject({ choice: 2 });
    expect(VoteBody.parse({ ...base, score: 4 })).toMatchObject({ score: 4 });
  });
  it('is refused with both answers or none, naming the field', () => {
    const both = VoteBody.safeParse({ ...base, choice: 1, score: 3 });
    expect(both.success).toBe(false);
    expect(both.error!.issues[0]).toMatchObject({ path: ['score'], message: expect.stringMatching(/one answer.*not choice and score/) });
    const none = VoteBody.safeParse(base);
    expect(none.error!.issues[0]).toMatchObject({ path: ['choice'] });
    expect(VoteBody.safeParse({ ...base, score: 0 }).success).toBe(false);
    expect(VoteBody.safeParse({ ...base, score: 3.5 }).success).toBe(false);
  });
});
