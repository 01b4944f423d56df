// The depth chart: cumulative bid and ask size against price, drawn as two SVG areas. Numbers
// here only place pixels; the figures shown elsewhere stay decimal strings.
import type { L2Level } from '../../client/types.ts';

const W = 600;
const H = 160;
const NS = 'http://www.w3.org/2000/svg';

export function drawDepth(svg: SVGSVGElement, bids: readonly L2Level[], asks: readonly L2Level[]): void {
  svg.replaceChildren();
  if (bids.length === 0 && asks.length === 0) return;
  const cum = (levels: readonly L2Level[]) => {
    let total = 0;
    return levels.map((l) => ({ px: Number(l.px), total: (total += Number(l.sz)) }));
  };
  const b = cum(bids);
  const a = cum(asks);
  const prices = [...b, ...a].map((p) => p.px);
  const lo = Math.min(...prices);
  const hi = Math.max(...prices);
  const top = Math.max(...b.map((p) => p.total), ...a.map((p) => p.total));
  const x = (px: number) => (hi === lo ? W / 2 : ((px - lo) / (hi - lo)) * (W - 20) + 10);
  const y = (v: number) => H - 4 - (v / top) * (H - 12);
  const area = (pts: { px: number; total: number }[], cls: string, color: string) => {
    if (pts.length === 0) return;
    let d = `M${x(pts[0]!.px)},${H}`;
    let prev = 0;
    for (const p of pts) {
      d += ` L${x(p.px)},${y(prev)} L${x(p.px)},${y(p.total)}`;
      prev = p.total;
    }
    d += ` L${x(pts[pts.length - 1]!.px)},${H} Z`;
    const path = document.createElementNS(NS, 'path');
    path.setAttribute('d', d);
    path.setAttribute('class', cls);
    path.setAttribute('fill', color);
    path.setAttribute('fill-opacity', '0.35');
    path.setAttribute('stroke', color);
    svg.appendChild(path);
  };
  area(b, 'depth-bids', '#3fb68b');
  area(a, 'depth-asks', '#ef5b5b');
}
