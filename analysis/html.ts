export function renderReportHtml(r: unknown): string { return JSON.stringify(r); }
