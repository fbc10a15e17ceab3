import { DAY_MS, startOfUtcDay, type ScheduleWindow } from './schedule-window.js';

/**
 * The playground shows this many UTC days of a schedule: today and tomorrow (and the programme
 * on air as today begins, see `showsInPreview`).
 */
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

/**
 * Whether the preview shows a programme where it shows programmes on air (the guide grid,
 * now/next, a programme's details): one starting in the preview's days, or the one that began
 * yesterday and is still on air as today begins, so that "what's on now" is not empty for the
 * hour after midnight UTC. A schedule lists by start, as v1's does, so only the former.
 */
export function showsInPreview(
  preview: PreviewWindow,
  startMs: number,
  stopMs: number | null,
): boolean {
  if (startMs >= preview.toMs) return false;
  return startMs >= preview.fromMs || (stopMs !== null && stopMs > preview.fromMs);
}
