// The replay page: reads the data `coulomb view` put in the page, builds the 3D view and the
// plots, and wires the controls (play/pause, time slider, speed, contacts, picking).
//
// URL hash options (for links and the browser test, viewer/README.md):
//   #t=1.5         start paused at t = 1.5 s        play=1     start playing
//   contacts=1     show contacts                    pick=NAME  pick a body by name
//   layout=view    the 3D view alone (screenshots)   report=1   write a JSON report into #replay-report
//   camera=A,E     camera azimuth and elevation (degrees; default 0,27)   wireframe=1  soft wireframes
//   height=PX      the 3D view's height in pixels (default: 56% of the window's)
//   compare=T      with report: which bodies move on screen between t and T, and where
//   collision=1    show the collision shapes of bodies drawn by their visual shapes
import { loadReplay } from './data.js';
import { View3D } from './view3d.js';
import { Plots } from './plots.js';

const $ = (id) => document.getElementById(id);
const errors = window.__coulombErrors || (window.__coulombErrors = []);

function fmt(v, digits = 4) {
  if (!Number.isFinite(v)) return String(v);
  if (v !== 0 && (Math.abs(v) >= 1e5 || Math.abs(v) < 1e-3)) return v.toExponential(digits - 1);
  return (+v.toPrecision(digits)).toString();
}
const vec = (a, d) => `[${Array.from(a, (x) => fmt(x, d)).join(', ')}]`;

function showError(message) {
  const box = $('replay-error');
  box.hidden = false;
  box.textContent += (box.textContent ? '\n' : '') + message;
}

function parseHash() {
  const out = {};
  for (const part of location.hash.replace(/^#/, '').split('&')) {
    if (!part) continue;
    const [k, v = '1'] = part.split('=');
    out[decodeURIComponent(k)] = decodeURIComponent(v);
  }
  return out;
}

function start() {
  const replay = loadReplay();
  const { meta, arrays } = replay;
  const opts = parseHash();
  const times = meta.frames.time;
  const t0 = times[0], t1 = times[times.length - 1];
  const state = { t: t0, playing: false, speed: 1, last: null };

  document.title = `${meta.scene.name || 'scene'} - Coulomb replay`;
  $('title').textContent = meta.scene.name || '(unnamed scene)';
  $('description').textContent = meta.scene.description || '';
  if (opts.layout === 'view') document.body.classList.add('view-only');
  // a fixed height makes the layout independent of the window's height (the browser test: a
  // headless browser may lay out its DOM dump and its screenshot at different heights)
  if (opts.height !== undefined) {
    if (!(+opts.height >= 100)) showError(`height=${opts.height}: expected a number of pixels >= 100`);
    else document.querySelector('main').style.height = `${+opts.height}px`;
  }

  let view = null;
  try {
    view = new View3D($('view'), replay);
  } catch (e) {
    // plots still work without WebGL
    showError(`3D view unavailable: ${e.message}`);
    errors.push(`3D view: ${e.message}`);
  }
  const plots = new Plots($('plots'), replay, (t) => { pause(); setTime(t); });

  const slider = $('slider');
  slider.min = t0;
  slider.max = t1;
  slider.step = 'any';

  function nearestFrame(t) {
    let best = 0;
    for (let k = 0; k < times.length; ++k) if (Math.abs(times[k] - t) < Math.abs(times[best] - t)) best = k;
    return best;
  }

  function setTime(t) {
    state.t = Math.min(t1, Math.max(t0, t));
    if (view) view.setTime(state.t);
    plots.setTime(state.t);
    slider.value = state.t;
    const k = view ? view.frame : nearestFrame(state.t);
    $('clock').textContent = `t = ${state.t.toFixed(3)} s  (frame ${k}/${times.length - 1}, step ${meta.frames.step[k]})`;
    if (view && view.hasContacts && view.contactPoints.visible) $('clock').textContent += `, ${view.contactCount} contacts`;
    showPicked();
  }

  function play() {
    if (state.t >= t1) setTime(t0);
    state.playing = true;
    state.last = null;
    $('play').textContent = 'Pause';
    requestAnimationFrame(tick);
  }
  function pause() {
    state.playing = false;
    $('play').textContent = 'Play';
  }
  function tick(now) {
    if (!state.playing) return;
    if (state.last !== null) {
      const t = state.t + ((now - state.last) / 1000) * state.speed;
      if (t >= t1) {
        setTime(t1);
        if ($('loop').checked) setTime(t0);
        else { pause(); return; }
      } else setTime(t);
    }
    state.last = now;
    requestAnimationFrame(tick);
  }

  // the picked body's name and state at the current time
  function showPicked() {
    const box = $('picked');
    const sel = view && view.picked;
    if (!sel) { box.innerHTML = '<p class="hint">Click a body to see its name and state.</p>'; return; }
    const k = view.frame, ka = Math.max(0, k - 1), kb = Math.min(times.length - 1, k + 1);
    const rows = [];
    if (sel.kind === 'rigid') {
      const b = meta.bodies[sel.index], nb = meta.bodies.length, P = arrays.poses;
      const p = view.pose.subarray(sel.index * 7, sel.index * 7 + 3), q = view.pose.subarray(sel.index * 7 + 3, sel.index * 7 + 7);
      rows.push(['name', b.name], ['shape', b.shape == null ? '(none)' : `${meta.shapes[b.shape].name || '(child)'} (${meta.shapes[b.shape].type})`],
        ['material', meta.materials[b.material]], ['mass', b.fixed ? 'fixed' : `${fmt(b.mass)} kg`],
        ['position', `${vec(p)} m`], ['orientation', `${vec([q[3], q[0], q[1], q[2]])} (w, x, y, z)`]);
      if (kb > ka) {
        const dt = times[kb] - times[ka], oa = (ka * nb + sel.index) * 7, ob = (kb * nb + sel.index) * 7;
        const v = [0, 1, 2].map((c) => (P[ob + c] - P[oa + c]) / dt);
        // w = 2 log(q_b q_a^-1) / dt, quaternions (x, y, z, w)
        const [ax, ay, az, aw] = [P[oa + 3], P[oa + 4], P[oa + 5], P[oa + 6]];
        const [bx, by, bz, bw] = [P[ob + 3], P[ob + 4], P[ob + 5], P[ob + 6]];
        let rx = bw * -ax + bx * aw + by * -az - bz * -ay, ry = bw * -ay - bx * -az + by * aw + bz * -ax;
        let rz = bw * -az + bx * -ay - by * -ax + bz * aw, rw = bw * aw - bx * -ax - by * -ay - bz * -az;
        if (rw < 0) { rx = -rx; ry = -ry; rz = -rz; rw = -rw; }
        const s = Math.hypot(rx, ry, rz), angle = 2 * Math.atan2(s, rw);
        const w = s > 0 ? [rx, ry, rz].map((c) => (c / s) * angle / dt) : [0, 0, 0];
        rows.push(['velocity', `${vec(v)} m/s`], ['speed', `${fmt(Math.hypot(...v))} m/s`], ['angular velocity', `${vec(w)} rad/s`]);
        rows.push(['', `velocities: differences of frames ${ka} and ${kb}`]);
      }
    } else {
      const sb = meta.soft_bodies[sel.index], s = view.soft[sel.index], X = view.softX;
      const c = [0, 0, 0];
      for (let v = s.offset; v < s.offset + s.count; ++v) for (let d = 0; d < 3; ++d) c[d] += X[3 * v + d] / s.count;
      // enclosed volume from the outward surface triangles (divergence theorem)
      let vol = 0;
      const F = sb.faces, o = s.offset;
      for (let f = 0; f < F.length; f += 3) {
        const [a, b, cc] = [F[f], F[f + 1], F[f + 2]].map((i) => 3 * (o + i));
        vol += (X[a] * (X[b + 1] * X[cc + 2] - X[b + 2] * X[cc + 1]) - X[a + 1] * (X[b] * X[cc + 2] - X[b + 2] * X[cc])
          + X[a + 2] * (X[b] * X[cc + 1] - X[b + 1] * X[cc])) / 6;
      }
      rows.push(['name', sb.name], ['kind', 'soft body (tetrahedral FEM)'], ['material', meta.materials[sb.material]],
        ['vertices', sb.vertex_count], ['tetrahedra', sb.tet_count], ['vertex mean', `${vec(c)} m`], ['volume', `${fmt(vol)} m^3`]);
    }
    box.innerHTML = '<table>' + rows.map(([k, v]) => `<tr><th>${k}</th><td>${String(v).replace(/</g, '&lt;')}</td></tr>`).join('') + '</table>';
  }

  // scene facts
  const facts = [['solver', meta.scene.solver], ['integrator', meta.scene.integrator], ['dt', `${meta.scene.dt} s`],
    ['steps', meta.scene.steps], ['frames', `${times.length} (every ${meta.scene.output_every * meta.frames.stride} steps)`],
    ['rigid bodies', meta.bodies.length], ['soft bodies', meta.soft_bodies.length], ['gravity', `${vec(meta.scene.gravity)} m/s^2`]];
  $('facts').innerHTML = '<table>' + facts.map(([k, v]) => `<tr><th>${k}</th><td>${v}</td></tr>`).join('') + '</table>';

  // controls
  $('play').onclick = () => (state.playing ? pause() : play());
  slider.oninput = () => { pause(); setTime(+slider.value); };
  $('speed').onchange = () => { state.speed = +$('speed').value; };
  const contacts = $('contacts');
  if (!meta.contacts) {
    contacts.disabled = true;
    contacts.parentElement.title = 'this run recorded no contacts: run it with --set /output/contacts=true';
  }
  contacts.onchange = () => { if (view) { view.showContacts(contacts.checked); setTime(state.t); } };
  $('wireframe').disabled = meta.soft_bodies.length === 0;
  $('wireframe').onchange = () => { if (view) { view.showSoftWireframe($('wireframe').checked); setTime(state.t); } };
  $('collision').disabled = !(view && view.hasVisuals);
  if ($('collision').disabled) $('collision').parentElement.title = 'no body has visual shapes: the collision shapes are what is drawn';
  $('collision').onchange = () => { if (view) { view.showCollision($('collision').checked); setTime(state.t); } };
  $('reset').onclick = () => view && view.resetCamera(...view.cameraAngles);
  document.addEventListener('keydown', (e) => {
    // a focused button or list takes its own keys (space would press the button a second time)
    if (e.target.tagName === 'BUTTON' || e.target.tagName === 'SELECT') return;
    if (e.target.tagName === 'INPUT' && e.target.type !== 'checkbox' && e.target.type !== 'range') return;
    const k = view ? view.frame : nearestFrame(state.t);
    if (e.key === ' ') { e.preventDefault(); state.playing ? pause() : play(); }
    else if (e.key === 'ArrowRight') { e.preventDefault(); pause(); setTime(times[Math.min(times.length - 1, k + 1)]); }
    else if (e.key === 'ArrowLeft') { e.preventDefault(); pause(); setTime(times[Math.max(0, k - 1)]); }
  });
  if (view) {
    const canvas = view.renderer.domElement;
    let down = null;
    canvas.addEventListener('pointerdown', (e) => { down = [e.clientX, e.clientY]; });
    canvas.addEventListener('pointerup', (e) => {
      if (!down || Math.hypot(e.clientX - down[0], e.clientY - down[1]) > 4) return;
      view.highlight(view.pick(e.clientX, e.clientY));
      showPicked();
    });
    window.addEventListener('resize', () => { view.resize(); plots.resize($('plots').clientWidth); });
  } else window.addEventListener('resize', () => plots.resize($('plots').clientWidth));

  // start as the hash says
  if (opts.camera && view) {
    const [az, el] = opts.camera.split(',').map(Number);
    if (Number.isFinite(az) && Number.isFinite(el)) view.resetCamera(az, el);
    else showError(`camera=${opts.camera}: expected AZIMUTH,ELEVATION in degrees`);
  }
  if (opts.wireframe === '1' && meta.soft_bodies.length > 0) { $('wireframe').checked = true; if (view) view.showSoftWireframe(true); }
  if (opts.collision === '1' && view && view.hasVisuals) { $('collision').checked = true; view.showCollision(true); }
  if (opts.contacts === '1' && meta.contacts) { contacts.checked = true; if (view) view.showContacts(true); }
  if (opts.pick && view) {
    const b = meta.bodies.findIndex((x) => x.name === opts.pick);
    const s = meta.soft_bodies.findIndex((x) => x.name === opts.pick);
    if (b >= 0) view.highlight({ kind: 'rigid', index: b });
    else if (s >= 0) view.highlight({ kind: 'soft', index: s });
    else showError(`pick=${opts.pick}: no body of that name`);
  }
  setTime(opts.t !== undefined ? +opts.t : t0);
  if (opts.play === '1') play();

  // the report describes the layout as it is: written again after every resize (a headless
  // browser may resize the window before it takes its screenshot)
  const writeReport = () => {
    const rect = (e) => { const r = e.getBoundingClientRect(); return { x0: r.left, y0: r.top, x1: r.right, y1: r.bottom }; };
    const report = { status: 'ready', errors, frames: times.length, t: state.t, webgl: !!view, viewport: [innerWidth, innerHeight],
      view: rect($('view')), plots: rect($('plots')), controls: rect($('controls')), charts: plots.charts.length,
      drawn: view ? Object.fromEntries(['shape', 'visual', 'collision'].map((kind) => [kind,
        view.groups.filter((g) => g.kind === kind && g.mesh.visible).reduce((n, g) => n + g.bodies.length, 0)])) : null,
      axis_labels: Object.fromEntries(plots.charts.map((u) => [u.root.querySelector('.u-title')?.textContent ?? '', u.axes[1]._values ?? []])) };
    if (view && opts.compare !== undefined) {
      // every body that moves on screen by more than 2 px between t and compare, with its
      // rectangles at both times
      const tb = Math.min(t1, Math.max(t0, +opts.compare));
      const moved = [];
      const all = [...meta.bodies.map((_, i) => ({ kind: 'rigid', index: i })), ...meta.soft_bodies.map((_, i) => ({ kind: 'soft', index: i }))];
      for (const sel of all) {
        const px = view.screenMotion(sel, state.t, tb);
        const a = view.screenRect(sel, state.t);
        if (!a) continue;
        const name = sel.kind === 'rigid' ? meta.bodies[sel.index].name : meta.soft_bodies[sel.index].name;
        if (px > 2) moved.push({ name, px, a, b: view.screenRect(sel, tb) });
      }
      report.compare = tb;
      report.moved = moved;
    }
    $('replay-report').textContent = JSON.stringify(report);
  };
  if (opts.report === '1') {
    writeReport();
    setTimeout(writeReport, 0);  // after uPlot's first draw (a microtask), which sets the axis labels
    window.addEventListener('resize', writeReport);
    window.addEventListener('error', writeReport);  // after the template's collector has the error
  }
  document.documentElement.dataset.replay = 'ready';
}

try {
  start();
} catch (e) {
  errors.push(String(e && e.message ? e.message : e));
  showError(`This replay could not be shown: ${e.message}`);
  document.documentElement.dataset.replay = 'failed';
  const report = $('replay-report');
  if (report) report.textContent = JSON.stringify({ status: 'failed', errors });
}
