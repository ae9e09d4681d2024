import { orientationMarkerLayout } from './standard-views.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
const SIZE = 88;
const CENTRE = SIZE / 2;
const LENGTH = 28;

/**
 * Draws the patient axes (L/R, A/P, S/I) as they lie on screen, into an SVG that React leaves
 * empty: it is redrawn on every frame, so it bypasses React. Returns a text for screen readers.
 */
export function drawOrientationMarker(svg: SVGSVGElement, viewMatrix: ArrayLike<number>): string {
  const axes = orientationMarkerLayout(viewMatrix);
  if (svg.childNodes.length !== axes.length) {
    svg.replaceChildren();
    svg.setAttribute('viewBox', `0 0 ${SIZE} ${SIZE}`);
    for (let i = 0; i < axes.length; i++) {
      const g = document.createElementNS(SVG_NS, 'g');
      g.append(document.createElementNS(SVG_NS, 'line'), document.createElementNS(SVG_NS, 'text'));
      svg.append(g);
    }
  }
  // Children are reused in depth order (far first), so near axes are drawn over far ones.
  axes.forEach((a, i) => {
    const g = svg.childNodes[i] as SVGGElement;
    const line = g.firstChild as SVGLineElement;
    const text = g.lastChild as SVGTextElement;
    const x = CENTRE + a.x * LENGTH;
    const y = CENTRE + a.y * LENGTH;
    g.setAttribute('class', `vw-axis vw-axis-${a.colour}${a.depth < -0.2 ? ' vw-axis-far' : ''}`);
    line.setAttribute('x1', String(CENTRE));
    line.setAttribute('y1', String(CENTRE));
    line.setAttribute('x2', x.toFixed(1));
    line.setAttribute('y2', y.toFixed(1));
    text.setAttribute('x', (CENTRE + a.x * (LENGTH + 9)).toFixed(1));
    text.setAttribute('y', (CENTRE + a.y * (LENGTH + 9)).toFixed(1));
    text.textContent = a.label;
    // An axis pointing at the viewer collapses to a dot; its label would sit on the centre.
    text.setAttribute('visibility', Math.hypot(a.x, a.y) < 0.3 ? 'hidden' : 'visible');
  });
  const right = axes.reduce((best, a) => (a.x > best.x ? a : best));
  const up = axes.reduce((best, a) => (a.y < best.y ? a : best));
  const toward = axes.reduce((best, a) => (a.depth > best.depth ? a : best));
  return `Orientation: patient ${right.title.toLowerCase()} is to the right, ${up.title.toLowerCase()} is up, ${toward.title.toLowerCase()} faces you.`;
}

/**
 * True when `view` equals `last` (the view matrix the marker was drawn for); otherwise `last`
 * becomes `view` and the marker needs drawing.
 */
export function viewUnchanged(last: Float64Array, view: ArrayLike<number>): boolean {
  let same = true;
  for (let i = 0; i < 16; i++) {
    if (last[i] !== view[i]) {
      same = false;
      last[i] = view[i]!;
    }
  }
  return same;
}
