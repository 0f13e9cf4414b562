import type { ServedStimulus } from '.';

/**
 * SQL for an item's stimuli with the study's served copy of each clip (a JSON list in slot order,
 * each stimulus with `served`: {id, duration} or null, and `replay`: its replay's, or null), for a
 * query that names the item `i`. Sessions and the studio's preview serve trials of every kind from it.
 */
export const SERVED_STIMULI_SQL = `(
  SELECT json_group_array(json_set(e.value,
      '$.served', CASE WHEN s.id IS NULL THEN NULL ELSE json_object('id', s.id, 'duration', s.duration) END,
      '$.replay', CASE WHEN r.id IS NULL THEN NULL ELSE json_object('id', r.id, 'duration', r.duration) END) ORDER BY e.key)
    FROM json_each(i.stimuli) e
    LEFT JOIN served_clips s ON s.study_id = i.study_id AND s.clip_id = json_extract(e.value, '$.clip') AND s.variant = ''
    LEFT JOIN served_clips r ON r.study_id = i.study_id AND r.clip_id = json_extract(e.value, '$.clip') AND r.variant = 'replay')`;

export const servedStimuli = (json: string): ServedStimulus[] => JSON.parse(json) as ServedStimulus[];
