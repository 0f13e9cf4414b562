import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { stringify } from 'yaml';
import { BuildReport, CloneStudyBody, PlanStudyBody, StudyPlan, CreateStudyBody, DefinitionErrorBody, StudyAction, StudyDetail, StudyFiles, StudyTemplateList, SaveDefinitionBody, TrialPreviewList, UploadAudioBody, UploadStudyFileBody, UseUploadedSourcesBody, AUDIO_UPLOAD_BYTES } from '../../contract/studio';
import { StudyId } from '../../contract/common';
import { countItemKinds, type ItemKind } from '../../contract/constants';
import { conflict, HttpError, invalidRequest, notFound } from '../errors';
import { listenerLinks } from '../listener-links';
import { liveRepository } from '../store/live';
import { sourcesFromUploads, studyFolders, studyTemplates, unreadableUpload } from '../store/study-folders';
import { setStudyStatus, StudyLockedError } from '../../studies/build';
import { describeMaterial, loadStudyDir, validateStudyDir, type BuildSummary } from '../../studies/load';
import { parseStudyYaml, StudyDefinitionError } from '../../studies/parse';
import { readStudyDefinition } from '../../studies/settings';
import { PlanFrozenError, readAnalysisPlan } from '../../studies/analysis-plan';
import { describeStudyLoudness, type StudyAudioSummary } from '../../audio-manifest/served';

const StudyParams = z.object({ study: StudyId });
const ActionParams = z.object({ study: StudyId, action: StudyAction });
const TO_STATUS = { open: 'open', pause: 'paused', close: 'closed' } as const;
// Caption files of a large benchmark run are tens of MB; YAML and everything else stays small.
const UPLOAD_LIMIT = 40 * 1024 * 1024;
const YAML_LIMIT = 2 * 1024 * 1024;

function originOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

/** A refused definition: 400 with every problem (line, column, field). */
function definitionError(reply: FastifyReply, error: StudyDefinitionError) {
  const [first] = error.problems;
  return reply.code(400).send({
    error: 'invalid_definition',
    message: error.problems.length === 1 ? error.message : `${error.problems.length} problems; first: ${error.message.split('\n')[0]}`,
    field: first?.field || undefined,
    problems: error.problems,
  });
}

function lockedError(error: StudyLockedError, studyId: string): HttpError {
  return conflict(
    'study_locked',
    `study ${studyId} already has ${error.votes} vote${error.votes === 1 ? '' : 's'}, so its items and captions cannot change. Clone it (the Clone button, or POST /api/studio/studies/${studyId}/clone) and edit the clone; wording-only changes are still saved.`,
  );
}

/** A plan edit after the first vote: refused (409), or, where the study records changes, asking for the reason (400). */
function planFrozenError(error: PlanFrozenError): HttpError {
  return error.recordable ? invalidRequest('reason', error.message) : conflict('plan_frozen', error.message);
}

type Validated = Omit<BuildSummary, 'action' | 'status' | 'audio'> & { action: 'validated'; status: null };

function toBuildReport(summary: BuildSummary | Validated, read: BuildReport['sources'] = []): BuildReport {
  return {
    study: summary.studyId,
    action: summary.action as BuildReport['action'],
    status: summary.status as BuildReport['status'],
    // Every kind counted, the ones a build summary leaves out as 0.
    items: countItemKinds((kind) => (summary.items as Partial<Record<ItemKind, number>>)[kind] ?? 0),
    sampler: summary.sampler,
    sources: [...read, ...summary.sources.map((s) => ({ kind: s.source.kind, summary: s.summary }))],
    notes: summary.notes,
    audio: 'audio' in summary ? studioAudio(summary.audio) : null,
  };
}

function studioAudio({ clips, made, unit, loudness, peakLimited }: StudyAudioSummary): BuildReport['audio'] {
  return { clips, made, unit, level: describeStudyLoudness(loudness), dither: loudness.dither, peakLimited };
}

/**
 * The researcher's studio: create a study (pasted YAML or a template), upload its caption and
 * judge files, validate, build, preview, open/pause/close and clone — all on the study folders
 * `npm run study` uses, so nothing needs shell access.
 */
export const studioStudyRoutes: FastifyPluginAsyncZod<{ dataDir: string; corpora?: readonly string[] }> = async (app, { dataDir, corpora = [] }) => {
  const roots = { dataDir, corpora };
  const folders = studyFolders(dataDir);
  const live = liveRepository(app.db);
  const researcher = app.requireRole('researcher');
  // One build at a time per study: a build imports sources (async) before it writes.
  const busy = new Map<string, Promise<unknown>>();
  const serially = <T>(studyId: string, work: () => Promise<T>): Promise<T> => {
    const run = (busy.get(studyId) ?? Promise.resolve()).then(work, work);
    busy.set(studyId, run.catch(() => undefined));
    return run;
  };

  // A token limited to named studies makes only studies of those names (docs/security.md, "Per-study access").
  const outOfReach = (request: FastifyRequest, name: string) => {
    if (!app.mayReachStudy(request, name)) throw new HttpError(403, 'forbidden', `this token is limited to other studies than ${name}`, 'name');
  };

  const hasVotes = (studyId: string) => live.votesPerItem(studyId).some((i) => i.votes > 0);

  const planOf = (studyId: string): StudyDetail['plan'] => {
    const plan = readAnalysisPlan(app.db, studyId);
    return plan && { hash: plan.hash, frozenAt: plan.frozenAt, changes: plan.changes };
  };
  const detail = (studyId: string, request: FastifyRequest): StudyDetail => {
    const summary = app.store.studies.list().find((s) => s.id === studyId);
    const editable = folders.exists(studyId);
    if (!summary && !editable) throw notFound('unknown_study', 'no such study');
    const yaml = editable ? folders.readYaml(studyId) : stringify(readStudyDefinition(app.db, studyId));
    let recorded: string[] = [];
    try {
      recorded = summary ? readStudyDefinition(app.db, studyId).linkParameters : parseStudyYaml(yaml).definition.linkParameters;
    } catch {
      // A draft that does not parse yet records nothing; the link is still shown.
    }
    let title = summary?.title ?? studyId;
    if (!summary) {
      try {
        title = parseStudyYaml(yaml).definition.title;
      } catch {
        // keep the folder name
      }
    }
    return {
      ...(summary ?? { id: studyId, title, status: 'draft' as const, items: 0, listeners: 0, completed: 0, votes: 0 }),
      editable,
      built: summary !== undefined,
      yaml,
      files: editable ? folders.files(studyId) : { captions: [], judges: [], plans: [], audio: [] },
      itemsByKind: live.itemsByKind(studyId),
      links: listenerLinks(originOf(request), studyId, recorded),
      undo: editable ? folders.lastChange(studyId) : null,
      plan: planOf(studyId),
    };
  };

  /** The CLI's `validate`: reads the sources as a dry run and plans; writes nothing anywhere. */
  const validate = async (studyId: string): Promise<BuildReport> => {
    folders.assertExists(studyId);
    const result = await validateStudyDir(app.db, folders.dir(studyId), roots);
    return toBuildReport({
      studyId, action: 'validated', status: null, items: result.items,
      sampler: result.plan?.sampler ?? null, sources: [], notes: result.notes,
    }, result.material ? [{ kind: 'dry run', summary: describeMaterial(result.material) }] : []);
  };

  const definitionReplies = { 400: DefinitionErrorBody };

  app.get('/api/studio/templates', { onRequest: researcher, schema: { response: { 200: StudyTemplateList } } }, async () => ({
    templates: studyTemplates(),
  }));

  app.post(
    '/api/studio/studies',
    { onRequest: researcher, bodyLimit: YAML_LIMIT, schema: { body: CreateStudyBody, response: { 201: StudyDetail, ...definitionReplies } } },
    async (request, reply) => {
      const { name, yaml, template } = request.body;
      outOfReach(request, name);
      if (app.store.studies.get(name)) throw conflict('study_exists', `a study named ${name} already exists`, 'name');
      let text = yaml;
      if (template !== undefined) {
        text = studyTemplates().find((t) => t.id === template)?.yaml;
        if (text === undefined) throw new HttpError(400, 'unknown_template', `no template named ${template}`, 'template');
      }
      try {
        parseStudyYaml(text!, `${name}/study.yaml`);
      } catch (error) {
        if (error instanceof StudyDefinitionError) return definitionError(reply, error);
        throw error;
      }
      folders.create(name, text!);
      return reply.code(201).send(detail(name, request));
    },
  );

  app.get('/api/studio/studies/:study', { onRequest: researcher, schema: { params: StudyParams, response: { 200: StudyDetail } } }, async (request) =>
    detail(request.params.study, request),
  );

  app.put(
    '/api/studio/studies/:study/definition',
    { onRequest: researcher, bodyLimit: YAML_LIMIT, schema: { params: StudyParams, body: SaveDefinitionBody, response: { 200: StudyDetail, ...definitionReplies } } },
    async (request, reply) => {
      const { study } = request.params;
      try {
        parseStudyYaml(request.body.yaml, `${study}/study.yaml`);
        await serially(study, async () => {
          folders.writeYaml(study, request.body.yaml);
          if (!hasVotes(study)) return;
          // Votes exist: apply the edit now if it keeps items, captions and the frozen plan (or records the plan's change), else take it back.
          try {
            await loadStudyDir(app.db, folders.dir(study), { ...roots, planChangeReason: request.body.reason });
          } catch (error) {
            folders.undo(study);
            throw error;
          }
        });
      } catch (error) {
        if (error instanceof StudyDefinitionError) return definitionError(reply, error);
        if (error instanceof StudyLockedError) throw lockedError(error, study);
        if (error instanceof PlanFrozenError) throw planFrozenError(error);
        throw error;
      }
      return detail(study, request);
    },
  );

  app.post(
    '/api/studio/studies/:study/files',
    { onRequest: researcher, bodyLimit: UPLOAD_LIMIT, schema: { params: StudyParams, body: UploadStudyFileBody, response: { 201: StudyFiles } } },
    async (request, reply) => {
      const { study } = request.params;
      const { kind, name, content, replace } = request.body;
      const unreadable = unreadableUpload(`${kind}/${name}`, content, kind);
      if (unreadable) throw new HttpError(400, 'invalid_file', unreadable, 'content');
      folders.writeFile(study, kind, name, content, replace);
      return reply.code(201).send(folders.files(study));
    },
  );

  app.post(
    '/api/studio/studies/:study/audio',
    // base64 is 4/3 of the bytes; the paths and JSON around them are small beside it.
    { onRequest: researcher, bodyLimit: Math.ceil((AUDIO_UPLOAD_BYTES * 4) / 3) + 4 * 1024 * 1024, schema: { params: StudyParams, body: UploadAudioBody, response: { 201: StudyFiles, 400: DefinitionErrorBody } } },
    async (request, reply) => {
      const { study } = request.params;
      const problems = await serially(study, () => folders.writeAudio(study, request.body));
      if (problems.length > 0) {
        return reply.code(400).send({
          error: 'invalid_audio',
          message: `${problems.length} file${problems.length === 1 ? '' : 's'} of audio/${request.body.folder} refused; nothing was kept. First: ${problems[0].file}: ${problems[0].message}`,
          field: 'files',
          problems: problems.map((p) => ({ file: p.file, line: 1, column: 1, field: '', message: p.message })),
        });
      }
      return reply.code(201).send(folders.files(study));
    },
  );

  app.post(
    '/api/studio/studies/:study/sources',
    { onRequest: researcher, schema: { params: StudyParams, body: UseUploadedSourcesBody, response: { 200: StudyDetail, ...definitionReplies } } },
    async (request, reply) => {
      const { study } = request.params;
      const yaml = sourcesFromUploads(folders.readYaml(study), folders.files(study), request.body.audioRoot);
      try {
        parseStudyYaml(yaml, `${study}/study.yaml`);
      } catch (error) {
        if (error instanceof StudyDefinitionError) return definitionError(reply, error);
        throw error;
      }
      folders.writeYaml(study, yaml, 'use the uploaded files as sources');
      return detail(study, request);
    },
  );

  app.post(
    '/api/studio/studies/:study/undo',
    { onRequest: researcher, schema: { params: StudyParams, response: { 200: StudyDetail } } },
    async (request) => {
      const { study } = request.params;
      folders.assertExists(study);
      await serially(study, async () => {
        // Once listeners voted, changes go through Save, which checks what they may touch.
        if (hasVotes(study)) throw conflict('study_locked', `study ${study} already has votes: edit and save the definition instead of undoing`);
        folders.undo(study);
      });
      return detail(study, request);
    },
  );

  app.post(
    '/api/studio/studies/:study/validate',
    { onRequest: researcher, schema: { params: StudyParams, response: { 200: BuildReport, ...definitionReplies } } },
    async (request, reply) => {
      try {
        return await serially(request.params.study, () => validate(request.params.study));
      } catch (error) {
        if (error instanceof StudyDefinitionError) return definitionError(reply, error);
        throw error;
      }
    },
  );

  app.post(
    '/api/studio/studies/:study/build',
    { onRequest: researcher, schema: { params: StudyParams, response: { 200: BuildReport, ...definitionReplies } } },
    async (request, reply) => {
      const { study } = request.params;
      folders.assertExists(study);
      try {
        const { summary } = await serially(study, () => loadStudyDir(app.db, folders.dir(study), roots));
        return toBuildReport(summary);
      } catch (error) {
        if (error instanceof StudyDefinitionError) return definitionError(reply, error);
        if (error instanceof StudyLockedError) throw lockedError(error, study);
        if (error instanceof PlanFrozenError) throw planFrozenError(error);
        throw error;
      }
    },
  );

  app.post(
    '/api/studio/studies/:study/clone',
    { onRequest: researcher, schema: { params: StudyParams, body: CloneStudyBody, response: { 201: StudyDetail } } },
    async (request, reply) => {
      const { study } = request.params;
      const { name } = request.body;
      outOfReach(request, name);
      if (app.store.studies.get(name)) throw conflict('study_exists', `a study named ${name} already exists`, 'name');
      if (folders.exists(study)) folders.clone(study, name);
      else if (app.store.studies.get(study)) folders.create(name, stringify(readStudyDefinition(app.db, study)));
      else throw notFound('unknown_study', 'no such study');
      return reply.code(201).send(detail(name, request));
    },
  );

  // The planner before opening: a pilot study's votes so far, fitted and simulated off the event loop.
  app.post(
    '/api/studio/studies/:study/plan',
    { onRequest: researcher, schema: { params: StudyParams, body: PlanStudyBody, response: { 200: StudyPlan } } },
    async (request) => {
      const { study } = request.params;
      const { pilot, target, itemsPerListener } = request.body;
      if (!folders.exists(study) && !app.store.studies.get(study)) throw notFound('unknown_study', 'no such study');
      // A pilot out of the token's reach is answered as one that does not exist.
      if (!app.mayReachStudy(request, pilot) || !app.store.studies.get(pilot)) {
        throw new HttpError(404, 'unknown_study', `no built study named ${pilot} to use as the pilot`, 'pilot');
      }
      const answer = await app.liveFigures.plan({ study, pilot, target, itemsPerListener });
      if ('refused' in answer) throw new HttpError(400, 'plan_refused', answer.refused, 'pilot');
      return answer.plan;
    },
  );

  app.post(
    '/api/studio/studies/:study/:action',
    { onRequest: researcher, schema: { params: ActionParams, response: { 200: StudyDetail } } },
    async (request) => {
      const { study, action } = request.params;
      if (!app.store.studies.get(study)) throw notFound('unknown_study', 'no such study: build it first');
      try {
        setStudyStatus(app.db, study, TO_STATUS[action]);
      } catch (error) {
        throw conflict('status_refused', (error as Error).message, 'action');
      }
      return detail(study, request);
    },
  );

  app.get(
    '/api/studio/studies/:study/preview',
    { onRequest: researcher, schema: { params: StudyParams, response: { 200: TrialPreviewList } } },
    async (request) => {
      const study = app.store.studies.get(request.params.study);
      if (!study) throw notFound('unknown_study', 'no such study: build it first');
      return { listening: study.definition.listening, question: study.definition.question, trial: study.definition.trial, trials: live.preview(study.id, study.definition.trial) };
    },
  );
};

