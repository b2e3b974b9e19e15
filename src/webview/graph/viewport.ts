// The graph's viewport in the webview: fits the drawing to the panel on open and on every resize,
// and lets the user zoom (Ctrl/Cmd + wheel, pinch, the toolbar, + - 0 keys) and pan (dragging the
// background, the scroll bars and wheel, the arrow keys). Once the user zoomed, resizes keep their
// zoom until they fit again. The arithmetic is in view.ts; this module reads the page and applies it.
import { byId } from '../page';
import type { DomElement, DomPointerEvent } from '../page';
import { clampScale, fitScale, scaleRange, wheelZoomFactor, zoomAround, zoomLabel, zoomStep } from './view';
import type { Size } from './view';

declare const ResizeObserver: new (callback: () => void) => { observe(target: DomElement): void };

/** The viewport's padding, as graph.css sets it (#viewport): the drawing fits inside it. */
const PADDING = { x: 12, y: 16 } as const;
/** How far an arrow key scrolls, in pixels of the panel. */
const ARROW_STEP = 40;

export interface GraphViewport {
  /** Shows a drawing of `size` just drawn: fitted, unless the user zoomed this document's graph. */
  show(size: Size, document: string): void;
}

export function createGraphViewport(): GraphViewport {
  const viewport = byId('viewport');
  const sizer = byId('sizer');
  const canvas = byId('canvas');
  const level = byId('zoom-level');
  let drawing: Size | undefined;
  let shownDocument: string | undefined;
  let scale = 1;
  /** Whether the drawing follows the panel's size (until the user zooms). */
  let fitted = true;
  let drag: { readonly pointerId: number; readonly x: number; readonly y: number; readonly left: number; readonly top: number } | undefined;

  const available = (): Size => ({ width: viewport.clientWidth - 2 * PADDING.x, height: viewport.clientHeight - 2 * PADDING.y });
  const range = () => scaleRange(drawing ? fitScale(drawing, available()) : 1);
  const centre = () => {
    const rect = viewport.getBoundingClientRect();
    return { x: rect.left + viewport.clientLeft + viewport.clientWidth / 2, y: rect.top + viewport.clientTop + viewport.clientHeight / 2 };
  };

  /** Scales the drawing, keeping the point of it under `anchor` (client coordinates) in place. */
  function setScale(next: number, anchor = centre()): void {
    if (!drawing) return;
    const before = sizer.getBoundingClientRect();
    const target = zoomAround({ x: before.left, y: before.top }, anchor, scale, next);
    scale = next;
    canvas.style.transform = scale === 1 ? '' : `scale(${scale})`;
    // Rounded up: fitScale leaves whole pixels of room, so a fitted drawing never shows scroll bars.
    sizer.style.width = `${Math.ceil(drawing.width * scale)}px`;
    sizer.style.height = `${Math.ceil(drawing.height * scale)}px`;
    const after = sizer.getBoundingClientRect();
    viewport.scrollLeft += after.left - target.x;
    viewport.scrollTop += after.top - target.y;
    level.textContent = zoomLabel(scale);
  }

  function fit(): void {
    fitted = true;
    if (!drawing) return;
    setScale(fitScale(drawing, available()));
    viewport.scrollLeft = 0;
    viewport.scrollTop = 0;
  }

  function zoomTo(next: number, anchor?: { x: number; y: number }): void {
    fitted = false;
    setScale(clampScale(next, range()), anchor);
  }

  const zoomBy = (direction: 1 | -1) => zoomTo(zoomStep(scale, direction, range()));

  byId('zoom-in').addEventListener('click', () => zoomBy(1));
  byId('zoom-out').addEventListener('click', () => zoomBy(-1));
  byId('zoom-fit').addEventListener('click', fit);
  byId('zoom-reset').addEventListener('click', () => zoomTo(1));

  // Ctrl/Cmd + wheel, and pinching a touchpad (which browsers report as a wheel with Ctrl), zoom
  // around the pointer; the plain wheel scrolls as usual.
  viewport.addEventListener(
    'wheel',
    (event) => {
      if (!(event.ctrlKey || event.metaKey) || !drawing) return;
      event.preventDefault();
      zoomTo(scale * wheelZoomFactor(event.deltaY, event.deltaMode), { x: event.clientX, y: event.clientY });
    },
    { passive: false },
  );

  viewport.addEventListener('keydown', (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || !drawing) return;
    const pan = (dx: number, dy: number) => {
      viewport.scrollLeft += dx;
      viewport.scrollTop += dy;
    };
    switch (event.key) {
      case '+':
      case '=':
        zoomBy(1);
        break;
      case '-':
      case '_':
        zoomBy(-1);
        break;
      case '0':
        fit();
        break;
      case 'ArrowLeft':
        pan(-ARROW_STEP, 0);
        break;
      case 'ArrowRight':
        pan(ARROW_STEP, 0);
        break;
      case 'ArrowUp':
        pan(0, -ARROW_STEP);
        break;
      case 'ArrowDown':
        pan(0, ARROW_STEP);
        break;
      default:
        return;
    }
    event.preventDefault();
  });

  // Dragging the background pans; a press on a box is left to the box (a click selects it in the YAML).
  viewport.addEventListener('pointerdown', (event) => {
    if (event.button !== 0 || !drawing || event.target?.closest('.gnode')) return;
    // A press on the viewport's own scroll bars (outside its client area) is theirs.
    if (event.target === viewport && (event.offsetX >= viewport.clientWidth || event.offsetY >= viewport.clientHeight)) return;
    event.preventDefault(); // no text selection while dragging; focus the canvas by hand instead
    viewport.focus();
    drag = { pointerId: event.pointerId, x: event.clientX, y: event.clientY, left: viewport.scrollLeft, top: viewport.scrollTop };
    viewport.setPointerCapture(event.pointerId);
    viewport.classList.add('panning');
  });
  viewport.addEventListener('pointermove', (event) => {
    if (drag?.pointerId !== event.pointerId) return;
    viewport.scrollLeft = drag.left - (event.clientX - drag.x);
    viewport.scrollTop = drag.top - (event.clientY - drag.y);
  });
  const endDrag = (event: DomPointerEvent) => {
    if (drag?.pointerId !== event.pointerId) return;
    drag = undefined;
    if (viewport.hasPointerCapture(event.pointerId)) viewport.releasePointerCapture(event.pointerId);
    viewport.classList.toggle('panning', false);
  };
  viewport.addEventListener('pointerup', endDrag);
  viewport.addEventListener('pointercancel', endDrag);

  // Every change of the panel's size (the panel, the window, the problem list above the drawing).
  new ResizeObserver(() => {
    if (fitted) fit();
  }).observe(viewport);

  return {
    show(size, document) {
      drawing = size.width > 0 && size.height > 0 ? size : undefined;
      byId('zoom').hidden = !drawing;
      if (!drawing) {
        canvas.style.transform = '';
        sizer.style.width = sizer.style.height = '0px';
      }
      // Another agent file starts fitted; the same one, redrawn as it is edited, keeps the zoom.
      if (document !== shownDocument) fitted = true;
      shownDocument = document;
      if (fitted) fit();
      else setScale(clampScale(scale, range()));
    },
  };
}
