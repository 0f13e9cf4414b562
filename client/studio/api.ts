/**
 * The researcher/analyst API with the signed-in access token. Types only from the contract
 * (as in the listener's api.ts), so zod stays out of the bundle.
 */
import type { ApiError } from '../../contract/common';
import type { BuildReport, DefinitionErrorBody, PlanStudyBody, StaffSession, StudioStudy, StudyDetail, StudyFileKind, StudyFiles, StudyPlan, StudyTemplate, TrialPreviewList, UploadAudioBody } from '../../contract/studio';
import type { Dashboard, ExportBundle, ParticipantTable, ReportLink } from '../../contract/reports';
import { call, HttpError } from '../lib/api';

/**
 * Every studio request says it is one: no HTML form can send a custom header, so a page on
 * another origin of this site cannot make the server change anything (docs/security.md,
 * "Cross-site requests"). The server refuses state-changing staff requests without it or JSON.
 */
const STAFF = { headers: { 'x-earmark-request': '1' } };

/**
 * The studio signs in by handing the token to the server once, which keeps it in an HttpOnly,
 * SameSite=Strict cookie: no script on this origin (the listener pages share it) can read it,
 * and every call below carries it without the page holding it.
 */
export const staffSession = {
  signIn: (token: string) => call<StaffSession>('POST', '/api/studio/session', { token }, STAFF),
  /** The signed-in role, or null when the cookie is missing, expired or revoked. */
  async check(): Promise<StaffSession | null> {
    // Earlier versions kept the token in localStorage; it must not outlive the upgrade there.
    localStorage.removeItem('earmark:access-token');
    try {
      return await call<StaffSession>('GET', '/api/studio/session', undefined, STAFF);
    } catch (error) {
      if (error instanceof HttpError && error.status === 401) return null;
      throw error;
    }
  },
  signOut: () => fetch('/api/studio/session', { method: 'DELETE', cache: 'no-store', headers: STAFF.headers }),
};

function authed<T>(method: string, url: string, body?: unknown): Promise<T> {
  return call<T>(method, url, body, STAFF);
}

/** A file the server sends for download (zip, CSV), fetched with the sign-in cookie. */
async function authedFile(url: string): Promise<Blob> {
  const res = await fetch(url, { credentials: 'same-origin', cache: 'no-store' });
  if (!res.ok) throw new HttpError(res.status, (await res.json().catch(() => null)) as ApiError | null);
  return res.blob();
}

const study = (id: string) => `/api/studio/studies/${encodeURIComponent(id)}`;

export const studio = {
  list: () => authed<{ studies: StudioStudy[]; roots: string[] }>('GET', '/api/studio/studies'),
  templates: () => authed<{ templates: StudyTemplate[] }>('GET', '/api/studio/templates'),
  create: (body: { name: string; yaml?: string; template?: string }) => authed<StudyDetail>('POST', '/api/studio/studies', body),
  get: (id: string) => authed<StudyDetail>('GET', study(id)),
  save: (id: string, yaml: string, reason?: string) => authed<StudyDetail>('PUT', `${study(id)}/definition`, reason ? { yaml, reason } : { yaml }),
  upload: (id: string, kind: StudyFileKind, name: string, content: string, replace = false) =>
    authed<StudyFiles>('POST', `${study(id)}/files`, { kind, name, content, replace }),
  uploadAudio: (id: string, body: UploadAudioBody) => authed<StudyFiles>('POST', `${study(id)}/audio`, body),
  undo: (id: string) => authed<StudyDetail>('POST', `${study(id)}/undo`),
  /** `audioRoot` empty: the caption files' audio is the uploaded audio folder. */
  useUploads: (id: string, audioRoot: string) => authed<StudyDetail>('POST', `${study(id)}/sources`, audioRoot ? { audioRoot } : {}),
  validate: (id: string) => authed<BuildReport>('POST', `${study(id)}/validate`),
  build: (id: string) => authed<BuildReport>('POST', `${study(id)}/build`),
  act: (id: string, action: 'open' | 'pause' | 'close') => authed<StudyDetail>('POST', `${study(id)}/${action}`),
  clone: (id: string, name: string) => authed<StudyDetail>('POST', `${study(id)}/clone`, { name }),
  /** The planner on a pilot study's votes so far (docs/planner.md). */
  plan: (id: string, body: PlanStudyBody) => authed<StudyPlan>('POST', `${study(id)}/plan`, body),
  preview: (id: string) => authed<TrialPreviewList>('GET', `${study(id)}/preview`),
  dashboard: (id: string) => authed<Dashboard>('GET', `${study(id)}/dashboard`),
  exportZip: (id: string) => authedFile(`${study(id)}/export.zip`),
  paperZip: (id: string) => authedFile(`${study(id)}/paper.zip`),
  participants: (id: string) => authed<ParticipantTable>('GET', `${study(id)}/participants`),
  approvals: (id: string) => authedFile(`${study(id)}/approvals.csv`),
  /** The report JSON (analysis-spec §7), whose registered kinds' sections the dashboard's kind panels show. */
  report: (id: string) => authed<Record<string, unknown>>('GET', `/api/reports/${encodeURIComponent(id)}`),
  reportLink: (id: string) => authed<ReportLink>('POST', `/api/reports/${encodeURIComponent(id)}/html-link`),
};

/** The problems of a refused definition, if that is what the error is. */
export function definitionProblems(error: unknown): DefinitionErrorBody['problems'] {
  return error instanceof HttpError ? (error.body as DefinitionErrorBody | null)?.problems : undefined;
}

export function errorText(error: unknown): string {
  if (error instanceof HttpError) return error.body?.message ?? error.message;
  return error instanceof Error ? error.message : String(error);
}

/** Saves text or a fetched file through the browser's download. */
export function download(name: string, content: string | Blob, type = 'text/csv'): void {
  const url = URL.createObjectURL(typeof content === 'string' ? new Blob([content], { type }) : content);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The bundle as one zip (<study>-bundle.zip), which `npm run analyze` reads as it is. */
export async function downloadBundle(id: string): Promise<void> {
  download(`${id}-bundle.zip`, await studio.exportZip(id));
}

/** The paper bundle as one zip (<study>-paper.zip): tables.tex, numbers.json, methods.md, paper.bib, figures/. */
export async function downloadPaper(id: string): Promise<void> {
  download(`${id}-paper.zip`, await studio.paperZip(id));
}

/** The approve/reject file for the recruiting platform (<study>-approvals.csv). */
export async function downloadApprovals(id: string): Promise<void> {
  download(`${id}-approvals.csv`, await studio.approvals(id));
}

export async function openHtmlReport(id: string): Promise<void> {
  // Opened before the await so the browser treats it as the click's own window (no popup block).
  const tab = window.open('about:blank', '_blank');
  const { url } = await studio.reportLink(id);
  if (tab) tab.location.href = url;
  else location.assign(url);
}
