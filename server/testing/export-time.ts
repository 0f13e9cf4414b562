/**
 * Two exports of an unchanged study differ only in study.json's `exportedAt`. Tests that compare
 * exports byte for byte blank that one field and nothing else.
 */
export function withoutExportTime(studyJson: string): string {
  return studyJson.replace(/"exportedAt": "[^"]*"/, '"exportedAt": "…"');
}

/** The export endpoint's files with study.json's export time blanked. */
export function exportAtAnyMoment(files: Record<string, string>): Record<string, string> {
  return { ...files, 'study.json': withoutExportTime(files['study.json'] ?? '') };
}
