// The graph view's transform: how large the drawing is shown (fit, zoom steps, the wheel) and where
// (zooming around a point). Pure arithmetic on sizes and positions, with no DOM, so unit tests check
// it in Node; main.ts reads the sizes from the page and applies the results.

export interface Size {
  readonly width: number;
  readonly height: number;
}

/** The largest zoom: 400 %. */
export const MAX_SCALE = 4;
/** The smallest zoom the user can reach, unless fitting a larger drawing needs less. */
export const MIN_SCALE = 0.25;
/** One zoom step (buttons, keys): 25 % more or less of the current zoom. */
export const ZOOM_STEP = 1.25;
/** Never below this, even to fit an enormous drawing (a drawing cannot shrink to nothing). */
const SMALLEST_FIT = 0.01;

/**
 * The scale that shows the whole drawing in the space available: as large as fits both ways,
 * never enlarged past 100 %. An empty drawing or no space at all gives 1 (nothing to fit).
 */
export function fitScale(drawing: Size, available: Size): number {
  if (!(drawing.width > 0 && drawing.height > 0)) return 1;
  if (!(available.width > 0 && available.height > 0)) return 1;
  return Math.max(SMALLEST_FIT, Math.min(1, available.width / drawing.width, available.height / drawing.height));
}

/** The zoom range for a drawing whose fit scale is `fit`: down to whatever fits it, up to MAX_SCALE. */
export function scaleRange(fit: number): { readonly min: number; readonly max: number } {
  return { min: Math.min(MIN_SCALE, fit), max: MAX_SCALE };
}

export function clampScale(scale: number, range: { readonly min: number; readonly max: number }): number {
  if (Number.isNaN(scale)) return range.min;
  return Math.min(range.max, Math.max(range.min, scale));
}

/**
 * The zoom one step in (`direction` 1) or out (-1) from `scale`, clamped to the range. A step that
 * passes 100 % stops there, so the buttons and keys always come back to the drawing's real size.
 */
export function zoomStep(scale: number, direction: 1 | -1, range: { readonly min: number; readonly max: number }): number {
  const next = direction > 0 ? scale * ZOOM_STEP : scale / ZOOM_STEP;
  const crossesOne = direction > 0 ? scale < 1 && next > 1 : scale > 1 && next < 1;
  return clampScale(crossesOne ? 1 : next, range);
}

/**
 * How much a wheel event with Ctrl/Cmd (or a pinch, which browsers report as one) zooms: a factor
 * above 1 zooms in (wheel or fingers away from the user: negative deltaY). `deltaMode` 1 counts
 * lines and 2 pages, as WheelEvent does; large deltas are capped so that one notch of a coarse
 * wheel does not jump too far.
 */
export function wheelZoomFactor(deltaY: number, deltaMode = 0): number {
  const pixels = deltaMode === 1 ? deltaY * 16 : deltaMode === 2 ? deltaY * 400 : deltaY;
  const capped = Math.max(-100, Math.min(100, pixels));
  return Math.exp(-capped * 0.005);
}

/**
 * Where the drawing's origin goes so that the point of the drawing under `point` stays under it
 * while the scale changes from `from` to `to` (all in the same screen coordinates): zooming
 * around the pointer, or around the centre for the buttons and keys.
 */
export function zoomAround(
  origin: { readonly x: number; readonly y: number },
  point: { readonly x: number; readonly y: number },
  from: number,
  to: number,
): { readonly x: number; readonly y: number } {
  const ratio = to / from;
  return { x: point.x - (point.x - origin.x) * ratio, y: point.y - (point.y - origin.y) * ratio };
}

/** The zoom as the toolbar shows it: "75%". */
export function zoomLabel(scale: number): string {
  return `${Math.round(scale * 100)}%`;
}
