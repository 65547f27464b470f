// Charts drawn by hand in SVG: columns of stacked counts over time, and horizontal bars. Colours come from classes
// in style.css (the page's CSP allows no inline style); every chart is an image with a text alternative, and each
// mark has a tooltip with its exact value.

import { el } from "./ui.js";

const NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, ...children) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

const title = (text) => svg("title", {}, text);

// niceStep is a round step (1, 2 or 5 times a power of ten) that divides 0..max in about four.
function niceStep(max) {
  const raw = max / 4;
  const pow = 10 ** Math.floor(Math.log10(raw || 1));
  return [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) || pow;
}

// drawn keeps a chart drawn at its box's width, again whenever the box changes size (a phone turned, a window
// resized): text stays the size of the page's text instead of scaling with the picture. Called again on the same box
// (new values), it redraws in place, so a chart being refreshed never disappears.
const painters = new WeakMap();

export function drawn(box, draw) {
  const known = painters.has(box);
  painters.set(box, { draw, width: known ? painters.get(box).width : 0 });
  if (!known) new ResizeObserver(() => paint(box, false)).observe(box);
  paint(box, true);
  return box;
}

function paint(box, fresh) {
  const p = painters.get(box);
  const w = Math.floor(box.clientWidth);
  if (w > 0 && (fresh || w !== p.width)) {
    p.width = w;
    box.replaceChildren(p.draw(w));
  }
}

// legend names the series with their colours.
export const legend = (series) => el("ul", { className: "legend" },
  ...series.map((s) => el("li", {}, el("span", { className: "swatch s-" + s.key }), s.label)));

// stackedColumns draws one column per bucket ({ label, counts: { key: n } }), its series ({ key, label }) stacked
// from the bottom in the order given.
export function stackedColumns(width, { buckets, series, label }) {
  const H = 180;
  const pad = { l: 34, r: 6, t: 8, b: 22 };
  const total = (b) => series.reduce((s, x) => s + (b.counts[x.key] || 0), 0);
  const step = niceStep(Math.max(1, ...buckets.map(total)));
  const top = step * Math.ceil(Math.max(1, ...buckets.map(total)) / step);
  const plot = width - pad.l - pad.r;
  const y = (v) => pad.t + (H - pad.t - pad.b) * (1 - v / top);
  const chart = svg("svg", { class: "chart", width, height: H, viewBox: `0 0 ${width} ${H}`, role: "img", "aria-label": label });
  chart.append(title(label));
  for (let v = 0; v <= top; v += step) {
    chart.append(svg("line", { class: "grid", x1: pad.l, x2: width - pad.r, y1: y(v), y2: y(v) }),
      svg("text", { class: "tick", x: pad.l - 4, y: y(v) + 4, "text-anchor": "end" }, String(v)));
  }
  const bw = plot / buckets.length;
  const every = Math.ceil(buckets.length / Math.max(1, Math.floor(plot / 56))); // a time label every 56 px at most
  buckets.forEach((b, i) => {
    const x = pad.l + i * bw;
    let acc = 0;
    for (const s of series) {
      const n = b.counts[s.key] || 0;
      if (!n) continue;
      chart.append(svg("rect", { class: "s-" + s.key, x: x + 1, width: Math.max(1, bw - 2), y: y(acc + n), height: y(acc) - y(acc + n) },
        title(`${b.label}: ${n} ${s.label.toLowerCase()}`)));
      acc += n;
    }
    if (i % every === 0) chart.append(svg("text", { class: "tick", x: x + bw / 2, y: H - 6, "text-anchor": "middle" }, b.label));
  });
  return chart;
}

// horizontalBars draws one bar per item ({ label, value, text }), scaled to the largest, its label above it and
// its value (text) at its end.
export function horizontalBars(width, { items, label, key = "bar" }) {
  const row = 34;
  const H = items.length * row + 4;
  const max = Math.max(...items.map((i) => i.value), 0) || 1;
  const chart = svg("svg", { class: "chart", width, height: H, viewBox: `0 0 ${width} ${H}`, role: "img", "aria-label": label });
  chart.append(title(label));
  const room = width - 90; // the value's text after the longest bar
  items.forEach((item, i) => {
    const y = i * row;
    const w = Math.max(item.value > 0 ? 2 : 0, (room * item.value) / max);
    chart.append(
      svg("text", { class: "label", x: 0, y: y + 12 }, item.label),
      svg("rect", { class: "s-" + key, x: 0, y: y + 17, width: w, height: 12, rx: 2 }, title(`${item.label}: ${item.text}`)),
      svg("text", { class: "tick", x: w + 6, y: y + 27 }, item.text));
  });
  return chart;
}

// line draws values over time (points { t: ms, v }), the area under it shaded, with the first and last values and
// times written on it.
export function line(width, { points, label, format = (v) => String(v), key = "line" }) {
  const H = 160;
  const pad = { l: 8, r: 8, t: 18, b: 20 };
  const chart = svg("svg", { class: "chart", width, height: H, viewBox: `0 0 ${width} ${H}`, role: "img", "aria-label": label });
  chart.append(title(label));
  if (points.length < 2) {
    chart.append(svg("text", { class: "tick", x: width / 2, y: H / 2, "text-anchor": "middle" }, "not enough samples yet"));
    return chart;
  }
  const t0 = points[0].t;
  const t1 = points[points.length - 1].t;
  const vs = points.map((p) => p.v);
  let lo = Math.min(...vs);
  let hi = Math.max(...vs);
  if (hi === lo) [lo, hi] = [lo * 0.999, hi * 1.001 || 1];
  const x = (t) => pad.l + ((width - pad.l - pad.r) * (t - t0)) / (t1 - t0 || 1);
  const y = (v) => pad.t + ((H - pad.t - pad.b) * (hi - v)) / (hi - lo);
  const path = points.map((p, i) => `${i ? "L" : "M"}${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`).join(" ");
  const base = H - pad.b;
  chart.append(
    svg("path", { class: "area s-" + key, d: `${path} L${x(t1).toFixed(1)},${base} L${x(t0).toFixed(1)},${base} Z` }),
    svg("path", { class: "stroke s-" + key, d: path }),
    svg("text", { class: "tick", x: pad.l, y: 12 }, format(points[0].v)),
    svg("text", { class: "tick", x: width - pad.r, y: 12, "text-anchor": "end" }, format(points[points.length - 1].v)),
    svg("text", { class: "tick", x: pad.l, y: H - 5 }, new Date(t0).toLocaleString()),
    svg("text", { class: "tick", x: width - pad.r, y: H - 5, "text-anchor": "end" }, new Date(t1).toLocaleString()));
  for (const p of points) chart.append(svg("circle", { class: "dot s-" + key, cx: x(p.t), cy: y(p.v), r: 2 }, title(`${new Date(p.t).toLocaleString()}: ${format(p.v)}`)));
  return chart;
}
