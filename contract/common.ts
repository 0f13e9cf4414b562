/**
 * What every audience's API shares: the error body, the study id and its status.
 */
import { z } from 'zod';
import { STUDY_STATUSES } from './constants';

/** Every 4xx/5xx body. `field` names the request field at fault, when one is. */
export const ApiError = z.object({
  error: z.string(),
  message: z.string(),
  field: z.string().optional(),
});
export type ApiError = z.infer<typeof ApiError>;

export const StudyId = z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'a study id is lower-case letters, digits and dashes');

export const StudyStatus = z.enum(STUDY_STATUSES);
