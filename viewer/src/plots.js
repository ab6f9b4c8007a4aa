// Plots of stats.jsonl (one point per step) with uPlot, linked to the time slider: a vertical
// line marks the replay's time and the legends show the values of that step; a click in a plot
// moves the replay there. Hovering shows the values under the cursor in every plot at once.
import uPlot from 'uplot';

// [title, y label, scale ('log' or linear), [column, label, colour]...]; columns a run did not
// write (or that stay zero, for the optional ones marked '?') are left out
const CHARTS = [
  ['Energy', 'energy (J)', 'linear', [['kinetic_energy', 'kinetic', '#d62728'], ['potential_energy', 'potential', '#1f77b4'],
    ['elastic_energy?', 'elastic', '#2ca02c'], ['total_energy', 'total', '#333333']]],
  ['Contacts', 'count', 'linear', [['contacts', 'contacts', '#1f77b4'], ['soft_contacts?', 'soft contacts', '#e8743b'],
    ['pairs', 'broadphase pairs', '#aaaaaa']]],
  ['Solver iterations', 'iterations per step', 'linear', [['iterations', 'iterations', '#9467bd']]],
  ['Residual and merit', 'residual, merit (log)', 'log', [['residual', 'residual (solver)', '#8c564b'], ['merit', 'FCLib merit', '#17becf']]],
  ['Penetration', 'depth (m)', 'linear', [['max_penetration', 'max penetration', '#e377c2'], ['joint_error_linear?', 'joint error', '#7f7f7f']]],
  ['Step timings', 'time (ms)', 'linear', [['wall_ms', 'whole step', '#333333'], ['detect_ms', 'detect', '#1f77b4'],
    ['assemble_ms', 'assemble', '#ff7f0e'], ['solve_ms', 'solve', '#2ca02c'], ['integrate_ms', 'integrate', '#d62728']]],
];

const LOG_FLOOR = 1e-20, LOG_CEILING = 1e20;

function legendValue(v) {
  if (v == null || Number.isNaN(v)) return '-';
  return Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-3 && v !== 0) ? v.toExponential(2) : String(+v.toPrecision(4));
}

// Tick labels of a linear axis that tell its ticks apart at any magnitude: fixed decimals down to
// the ticks' spacing between 1e-3 and 1e5, else exponents with as many digits as the spacing needs
// (uPlot's default keeps three decimals, so ticks 1e-5 apart all read "0").
export function tickLabels(splits) {
  const ticks = splits.filter((v) => v != null && Number.isFinite(v));
  const largest = Math.max(0, ...ticks.map(Math.abs));
  if (largest === 0) return splits.map((v) => (v == null ? '' : '0'));
  let step = Infinity;
  for (let i = 1; i < ticks.length; ++i) if (ticks[i] !== ticks[i - 1]) step = Math.min(step, Math.abs(ticks[i] - ticks[i - 1]));
  if (!Number.isFinite(step)) step = largest;
  if (largest >= 1e5 || largest < 1e-3) {
    const digits = Math.min(15, Math.max(0, Math.floor(Math.log10(largest)) - Math.floor(Math.log10(step) + 1e-9)));
    return splits.map((v) => (v == null ? '' : v === 0 ? '0' : v.toExponential(digits)));
  }
  const decimals = Math.min(15, Math.max(0, -Math.floor(Math.log10(step) + 1e-9)));
  return splits.map((v) => (v == null ? '' : v.toFixed(decimals)));
}

export class Plots {
  constructor(container, replay, onSeek) {
    this.stats = replay.stats;
    const time = this.stats.time;
    this.time = time ? Array.from(time) : [];
    this.t = 0;
    this.hovering = false;
    this.charts = [];
    if (!time || time.length === 0) {
      container.textContent = 'stats.jsonl has no steps to plot';
      return;
    }
    const s = this.stats;
    if (s.kinetic_energy && s.potential_energy) {
      const total = new Float64Array(s.kinetic_energy.length);
      for (let i = 0; i < total.length; ++i) total[i] = s.kinetic_energy[i] + s.potential_energy[i] + (s.elastic_energy ? s.elastic_energy[i] : 0);
      s.total_energy = total;
    }
    const self = this;
    const cursorLine = {
      hooks: {
        draw: [(u) => {
          const x = u.valToPos(self.t, 'x', true);
          if (!(x >= u.bbox.left && x <= u.bbox.left + u.bbox.width)) return;
          const ctx = u.ctx;
          ctx.save();
          ctx.strokeStyle = '#ff3b30';
          ctx.lineWidth = 2 * uPlot.pxRatio;
          ctx.beginPath();
          ctx.moveTo(x, u.bbox.top);
          ctx.lineTo(x, u.bbox.top + u.bbox.height);
          ctx.stroke();
          ctx.restore();
        }],
      },
    };
    for (const [title, ylabel, scale, series] of CHARTS) {
      const present = series.filter(([col]) => {
        const optional = col.endsWith('?');
        const data = s[col.replace('?', '')];
        return data && (!optional || data.some((v) => v !== 0));
      });
      if (present.length === 0) continue;
      const log = scale === 'log';
      const raw = present.map(([col]) => s[col.replace('?', '')]);
      // a log plot draws values within [LOG_FLOOR, LOG_CEILING] and leaves out zeros (uPlot's
      // log axis knows the decades 1e-32 to 1e32 only, and pads a range by decades: a residual
      // of 1e-105 made its tick loop run out of memory); the legend shows the value itself
      const data = [this.time, ...raw.map((col) => Array.from(col, (v) => (log ? (v > 0 ? Math.min(Math.max(v, LOG_FLOOR), LOG_CEILING) : null) : v)))];
      if (log && data.slice(1).every((d) => d.every((v) => v === null))) continue;
      const div = document.createElement('div');
      div.className = 'plot';
      container.appendChild(div);
      const opts = {
        title, width: 400, height: 190,
        scales: { x: { time: false }, y: log ? { distr: 3 } : {} },
        series: [{ label: 'time (s)', value: (u, v) => (v == null ? '-' : v.toFixed(3)) },
          ...present.map(([, label, stroke], k) => ({ label, stroke, width: 1.5, spanGaps: false,
            value: (u, v, si, idx) => legendValue(idx == null ? v : raw[k][idx]) }))],
        axes: [{ label: 'time (s)', size: 40 }, { label: ylabel, size: 64,
          values: (u, splits) => (log ? splits.map((v) => (v == null ? '' : v.toExponential(0))) : tickLabels(splits)) }],
        cursor: { sync: { key: 'coulomb-stats' }, drag: { x: true, y: false } },
        legend: { live: true },
        plugins: [cursorLine],
      };
      const u = new uPlot(opts, data, div);
      u.over.addEventListener('mouseenter', () => { self.hovering = true; });
      u.over.addEventListener('mouseleave', () => { self.hovering = false; self.setTime(self.t); });
      // a click (not a drag-zoom) seeks the replay
      u.over.addEventListener('mouseup', () => {
        if (u.select.width > 2) return;
        const t = u.posToVal(u.cursor.left, 'x');
        if (Number.isFinite(t)) onSeek(t);
      });
      this.charts.push(u);
    }
    this.resize(container.clientWidth);
    // uPlot commits its first draw in a microtask, which clears the legend: fill it after that
    setTimeout(() => this.setTime(this.t), 0);
  }

  // index of the last step at or before t
  stepAt(t) {
    const ts = this.time;
    let lo = 0, hi = ts.length - 1;
    if (t <= ts[0]) return 0;
    while (hi - lo > 1) { const m = (lo + hi) >> 1; if (ts[m] <= t) lo = m; else hi = m; }
    return ts[hi] <= t ? hi : lo;
  }

  setTime(t) {
    this.t = t;
    if (this.charts.length === 0) return;
    const idx = this.stepAt(t);
    for (const u of this.charts) {
      u.redraw(false, false);
      if (!this.hovering) u.setLegend({ idx });
    }
  }

  resize(width) {
    // the section's padding (2 x 10 px) and the gaps between plots (12 px) as style.css has them
    const columns = width > 1300 ? 3 : width > 820 ? 2 : 1;
    const w = Math.floor((width - 20 - 12 * (columns - 1)) / columns) - 1;
    for (const u of this.charts) u.setSize({ width: w, height: 190 });
  }
}
