// The graph view's transform (src/webview/graph/view.ts): the scale that fits a drawing in the
// panel, the zoom steps and their limits, the wheel's zoom and zooming around a point.
import assert from 'node:assert/strict';
import {
  clampScale,
  fitScale,
  MAX_SCALE,
  MIN_SCALE,
  scaleRange,
  wheelZoomFactor,
  zoomAround,
  zoomLabel,
  zoomStep,
} from '../../src/webview/graph/view';

describe('graph view transform', () => {
  describe('fitScale', () => {
    it('shrinks a wide drawing to the width, however small that makes it', () => {
      // customer-360's drawing in a narrow panel: below the 60 % the page used to stop at.
      assert.equal(fitScale({ width: 1000, height: 300 }, { width: 400, height: 600 }), 0.4);
      assert.equal(fitScale({ width: 5000, height: 100 }, { width: 500, height: 600 }), 0.1);
    });

    it('shrinks a tall drawing to the height', () => {
      assert.equal(fitScale({ width: 400, height: 1000 }, { width: 800, height: 250 }), 0.25);
    });

    it('takes the tighter of the two sides', () => {
      assert.equal(fitScale({ width: 1000, height: 1000 }, { width: 500, height: 200 }), 0.2);
    });

    it('never enlarges a small drawing past 100 %', () => {
      assert.equal(fitScale({ width: 200, height: 100 }, { width: 1200, height: 800 }), 1);
      assert.equal(fitScale({ width: 1200, height: 800 }, { width: 1200, height: 800 }), 1);
    });

    it('gives 1 for an empty drawing or a panel with no room', () => {
      assert.equal(fitScale({ width: 0, height: 0 }, { width: 500, height: 500 }), 1);
      assert.equal(fitScale({ width: 500, height: 500 }, { width: 0, height: 300 }), 1);
      assert.equal(fitScale({ width: 500, height: 500 }, { width: -24, height: 300 }), 1);
      assert.equal(fitScale({ width: Number.NaN, height: 500 }, { width: 400, height: 300 }), 1);
    });

    it('fits the drawing within the space once scaled', () => {
      for (const [w, h, aw, ah] of [
        [1234, 317, 613, 700],
        [977, 1501, 333, 211],
        [3, 7, 1, 1],
      ] as const) {
        const scale = fitScale({ width: w, height: h }, { width: aw, height: ah });
        assert.ok(w * scale <= aw + 1e-9 && h * scale <= ah + 1e-9, `${w}x${h} in ${aw}x${ah} at ${scale}`);
      }
    });
  });

  describe('zoom limits and steps', () => {
    it('lets the user zoom out as far as the fit needs, or to 25 %', () => {
      assert.deepEqual(scaleRange(0.6), { min: MIN_SCALE, max: MAX_SCALE });
      assert.deepEqual(scaleRange(0.1), { min: 0.1, max: MAX_SCALE });
    });

    it('clamps a scale to the range', () => {
      const range = { min: 0.25, max: 4 };
      assert.equal(clampScale(10, range), 4);
      assert.equal(clampScale(0.01, range), 0.25);
      assert.equal(clampScale(1.5, range), 1.5);
      assert.equal(clampScale(Number.NaN, range), 0.25);
    });

    it('steps by a quarter, stopping at 100 % and at the limits', () => {
      const range = { min: 0.25, max: 4 };
      assert.equal(zoomStep(1, 1, range), 1.25);
      assert.equal(zoomStep(1.25, -1, range), 1);
      assert.equal(zoomStep(0.9, 1, range), 1);
      assert.equal(zoomStep(1.1, -1, range), 1);
      assert.equal(zoomStep(3.5, 1, range), 4);
      assert.equal(zoomStep(4, 1, range), 4);
      assert.equal(zoomStep(0.26, -1, range), 0.25);
    });

    it('labels the zoom in whole percent', () => {
      assert.equal(zoomLabel(1), '100%');
      assert.equal(zoomLabel(0.4567), '46%');
    });
  });

  describe('the wheel', () => {
    it('zooms in when the wheel goes up (or the fingers apart) and out when it goes down', () => {
      assert.ok(wheelZoomFactor(-100) > 1);
      assert.ok(wheelZoomFactor(100) < 1);
      assert.equal(wheelZoomFactor(0), 1);
      // Up then down by the same amount comes back.
      assert.ok(Math.abs(wheelZoomFactor(-40) * wheelZoomFactor(40) - 1) < 1e-12);
    });

    it('counts lines and pages, and caps a coarse notch', () => {
      assert.equal(wheelZoomFactor(3, 1), wheelZoomFactor(48));
      assert.equal(wheelZoomFactor(1, 2), wheelZoomFactor(100));
      assert.equal(wheelZoomFactor(5000), wheelZoomFactor(100));
      assert.ok(wheelZoomFactor(-5000) < 2);
    });
  });

  describe('zoomAround', () => {
    it('keeps the point of the drawing under the pointer where it is', () => {
      const origin = { x: -120, y: 30 };
      const point = { x: 200, y: 150 };
      const next = zoomAround(origin, point, 0.5, 2);
      // The drawing's point under the pointer, before and after.
      const before = { x: (point.x - origin.x) / 0.5, y: (point.y - origin.y) / 0.5 };
      const after = { x: (point.x - next.x) / 2, y: (point.y - next.y) / 2 };
      assert.deepEqual(after, before);
      assert.deepEqual(next, { x: -1080, y: -330 });
    });

    it('moves nothing when the scale does not change, or when zooming around the origin', () => {
      assert.deepEqual(zoomAround({ x: 5, y: 7 }, { x: 100, y: 100 }, 1.5, 1.5), { x: 5, y: 7 });
      assert.deepEqual(zoomAround({ x: 5, y: 7 }, { x: 5, y: 7 }, 1, 3), { x: 5, y: 7 });
    });
  });
});
