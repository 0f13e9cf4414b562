/**
 * The one error type routes and repositories throw. The security plugin turns it (and every
 * framework error) into the `{ error, message, field? }` body of contract/common.ts (ApiError).
 */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export const notFound = (code: string, message: string): HttpError => new HttpError(404, code, message);
export const conflict = (code: string, message: string, field?: string): HttpError =>
  new HttpError(409, code, message, field);
/** A request the schema lets through but the study does not (e.g. an answer of another trial kind); worded as the schema's refusals. */
export const invalidRequest = (field: string, message: string): HttpError =>
  new HttpError(400, 'invalid_request', `${field}: ${message}`, field);
/** A vote or skipped clip of a session its listener left (POST /api/session/leave). */
export const sessionLeft = (): HttpError =>
  conflict('session_left', 'you left this study, so this session takes no more answers; your saved answers are kept');
