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
      const data = [this.time, ...present.map(([col]) => Array.from(s[col.replace('?', '')], (v) => (log && !(v > 0) ? null : v)))];
      if (log && data.slice(1).every((d) => d.every((v) => v === null))) continue;
      const div = document.createElement('div');
      div.className = 'plot';
      container.appendChild(div);
      const opts = {
        title, width: 400, height: 190,
        scales: { x: { time: false }, y: log ? { distr: 3 } : {} },
        series: [{ label: 'time (s)', value: (u, v) => (v == null ? '-' : v.toFixed(3)) },
          ...present.map(([, label, stroke]) => ({ label, stroke, width: 1.5, spanGaps: false,
            value: (u, v) => (v == null ? '-' : Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-3 && v !== 0) ? v.toExponential(2) : +v.toPrecision(4)) }))],
        axes: [{ label: 'time (s)', size: 40 }, { label: ylabel, size: 64,
          ...(log ? { values: (u, splits) => splits.map((v) => (v == null ? '' : v.toExponential(0))) } : {}) }],
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
