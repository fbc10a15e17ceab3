import { DAY_MS, startOfUtcDay, type ScheduleWindow } from './schedule-window.js';

/** The playground shows this many UTC days of a schedule: today and tomorrow. */
export const PREVIEW_DAYS = 2;

/** A schedule window with both ends, as the playground serves it. */
export interface PreviewWindow {
  kind: 'range';
  fromMs: number;
  toMs: number;
}

/**
 * The part of a requested window the playground may show: whatever the request asks for
 * (`days=N`, a keyword, `all`), only programmes starting today or tomorrow (UTC). `yesterday`
 * leaves nothing, an empty window.
 */
export function clipToPreview(window: ScheduleWindow, nowMs: number): PreviewWindow {
  const first = startOfUtcDay(nowMs);
  const end = first + PREVIEW_DAYS * DAY_MS;
  if (window.kind === 'all') return { kind: 'range', fromMs: first, toMs: end };
  const fromMs = Math.min(Math.max(window.fromMs, first), end);
  const toMs = Math.max(Math.min(window.toMs ?? end, end), fromMs);
  return { kind: 'range', fromMs, toMs };
}
