// The 3D view: every rigid body as an instance of its shape's geometry (one InstancedMesh per
// leaf shape, compound children expanded), soft bodies as surface meshes whose vertices move
// every frame, contact points and normals on request, an orbit camera and picking by click.
//
// Poses between two recorded frames are interpolated (positions linearly, orientations by
// slerp), so a coarse `output.every` still plays smoothly; contacts are shown from the nearest
// recorded frame.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

const FIXED_COLOR = new THREE.Color(0x9ea4ab);
const PICK_COLOR = new THREE.Color(0xffc400);
const SOFT_COLOR = new THREE.Color(0xe8743b);
const PALETTE = [0x4e79a7, 0x59a14f, 0xb07aa1, 0xf28e2b, 0x76b7b2, 0xedc948, 0xe15759, 0x9c755f];

// whether a body's shape is a plane (a body without a shape, shape null, is not)
const isPlane = (meta, body) => body.shape != null && meta.shapes[body.shape].type === 'plane';

// radius of a ball about the shape frame's origin that holds the shape (planes: 0)
function shapeRadius(shapes, i) {
  const s = shapes[i];
  switch (s.type) {
    case 'sphere': return s.radius;
    case 'box': return Math.hypot(...s.half_extents);
    case 'capsule': return s.radius + s.half_height;
    case 'cylinder': return Math.hypot(s.radius, s.half_height);
    case 'convex': case 'mesh': {
      let r = 0;
      for (let k = 0; k < s.vertices.length; k += 3) r = Math.max(r, Math.hypot(s.vertices[k], s.vertices[k + 1], s.vertices[k + 2]));
      return r;
    }
    case 'compound': return Math.max(0, ...s.children.map((c) => Math.hypot(...c.position) + shapeRadius(shapes, c.shape)));
    default: return 0;
  }
}

// geometry of a leaf shape in its own frame; planes are built later, once the scene size is known
function leafGeometry(s) {
  switch (s.type) {
    case 'sphere': return new THREE.SphereGeometry(s.radius, 32, 16);
    case 'box': return new THREE.BoxGeometry(2 * s.half_extents[0], 2 * s.half_extents[1], 2 * s.half_extents[2]);
    case 'capsule': return new THREE.CapsuleGeometry(s.radius, 2 * s.half_height, 8, 24).rotateX(Math.PI / 2);  // axis y -> z
    case 'cylinder': return new THREE.CylinderGeometry(s.radius, s.radius, 2 * s.half_height, 32).rotateX(Math.PI / 2);
    case 'convex': {  // face loops, counter-clockwise from outside, as fans
      const pos = [];
      for (const f of s.faces)
        for (let k = 1; k + 1 < f.length; ++k)
          for (const v of [f[0], f[k], f[k + 1]]) pos.push(s.vertices[3 * v], s.vertices[3 * v + 1], s.vertices[3 * v + 2]);
      const g = new THREE.BufferGeometry();
      g.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
      g.computeVertexNormals();
      return g;
    }
    case 'mesh': {
      const g = new THREE.BufferGeometry();
      g.setAttribute('position', new THREE.Float32BufferAttribute(s.vertices, 3));
      g.setIndex(s.triangles);
      const flat = g.toNonIndexed();  // faceted: each triangle its own normal
      flat.computeVertexNormals();
      return flat;
    }
    default: throw new Error(`cannot draw a shape of type ${s.type}`);
  }
}

// the matrix of a pose given as position and [w, x, y, z] orientation
function poseMatrix(position, orientation) {
  const [w, x, y, z] = orientation;
  return new THREE.Matrix4().compose(new THREE.Vector3(...position), new THREE.Quaternion(x, y, z, w), new THREE.Vector3(1, 1, 1));
}

// a body's leaves: [shape index, matrix in the body's shape frame], compounds expanded
function leaves(shapes, i, m = new THREE.Matrix4(), out = []) {
  const s = shapes[i];
  if (s.type !== 'compound') { out.push([i, m]); return out; }
  for (const c of s.children) leaves(shapes, c.shape, m.clone().multiply(poseMatrix(c.position, c.orientation)), out);
  return out;
}

// what a body shows: [shape index, matrix in the body's shape frame, colour or null (the
// body's), opacity, kind]; with visual shapes (geometry.json `visual`) those, and the collision
// shape as an overlay ('collision') that the "collision shapes" control shows
function drawnLeaves(shapes, body) {
  const out = [];
  const collision = body.shape == null ? [] : leaves(shapes, body.shape);
  if (!body.visual || body.visual.length === 0) {
    for (const [leaf, m] of collision) out.push([leaf, m, null, 1, 'shape']);
    return out;
  }
  for (const v of body.visual)
    for (const [leaf, m] of leaves(shapes, v.shape, poseMatrix(v.position, v.orientation)))
      out.push([leaf, m, v.color ? new THREE.Color(v.color[0], v.color[1], v.color[2]) : null, v.color ? v.color[3] ?? 1 : 1, 'visual']);
  for (const [leaf, m] of collision) out.push([leaf, m, null, 1, 'collision']);
  return out;
}

function bodyColor(meta, b) {
  const body = meta.bodies[b];
  if (body.fixed) return FIXED_COLOR.clone();
  const c = new THREE.Color(PALETTE[body.material % PALETTE.length]);
  const hsl = {};
  c.getHSL(hsl);
  // neighbours differ a little in lightness, so that single bricks stay visible in a wall
  const hash = (b * 2654435761) >>> 0;
  const jitter = (hash % 1000) / 1000 - 0.5, hue = ((hash >>> 10) % 1000) / 1000 - 0.5;
  return c.setHSL((hsl.h + 0.04 * hue + 1) % 1, hsl.s, Math.min(0.8, Math.max(0.25, hsl.l + 0.2 * jitter)));
}

export class View3D {
  constructor(container, replay) {
    this.replay = replay;
    const { meta } = replay;
    this.container = container;
    this.renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
    container.appendChild(this.renderer.domElement);
    this.scene = new THREE.Scene();
    this.scene.background = new THREE.Color(0xf3f5f7);

    // "up" is against gravity, so a scene that tilts gravity (a slope) shows the slope
    const g = new THREE.Vector3(...meta.scene.gravity);
    this.up = g.lengthSq() > 0 ? g.clone().negate().normalize() : new THREE.Vector3(0, 0, 1);
    this.camera = new THREE.PerspectiveCamera(40, 1, 0.01, 1000);
    this.camera.up.copy(this.up);

    this.scene.add(new THREE.HemisphereLight(0xffffff, 0x8a8f99, 1.6));
    const sun = new THREE.DirectionalLight(0xffffff, 1.8);
    sun.position.copy(this.up.clone().multiplyScalar(3).add(new THREE.Vector3(1.2, -2, 0)));
    this.scene.add(sun);

    this.radius = meta.shapes.map((_, i) => shapeRadius(meta.shapes, i));
    // a body's bounding radius about its shape frame, over its collision and visual shapes; 0
    // with neither (geometry.json's null shape)
    this.bodyRadius = (body) => Math.max(body.shape == null ? 0 : this.radius[body.shape],
      ...(body.visual || []).map((v) => Math.hypot(...v.position) + this.radius[v.shape]));
    this.bounds = this.sceneBounds();
    if (this.bounds.isEmpty()) this.bounds.set(new THREE.Vector3(-1, -1, -1), new THREE.Vector3(1, 1, 1));
    this.buildBodies();
    this.buildSoftBodies();
    this.buildContacts();
    this.buildJoints();
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.addEventListener('change', () => this.render());
    this.resetCamera();
    this.resize();
    this.picked = null;  // {kind: 'rigid'|'soft', index}
    this.pose = new Float32Array(meta.bodies.length * 7);
    this.softX = new Float32Array(meta.softVertexCount * 3);
  }

  // bounding box of the moving bodies and soft vertices over (up to 40) recorded frames: what
  // the camera frames first (fixed bodies only when nothing moves; planes never: they are infinite)
  sceneBounds() {
    const moving = this.boundsOf((b) => !this.replay.meta.bodies[b].fixed);
    return moving.isEmpty() ? this.boundsOf(() => true) : moving;
  }

  // the box holding the chosen rigid bodies' balls and the soft vertices at up to 40 frames; with
  // more than 200 rigid samples, those from the 1st to the 99th percentile along each axis, so
  // that a few bodies thrown far away do not shrink everything else to a dot
  boundsOf(take) {
    const { meta, arrays } = this.replay;
    const nf = meta.frames.count, nb = meta.bodies.length, nv = meta.softVertexCount;
    const stride = Math.max(1, Math.floor(nf / 40));
    const lo = [[], [], []], hi = [[], [], []];
    const box = new THREE.Box3();
    for (let f = 0; f < nf; f += stride) {
      for (let b = 0; b < nb; ++b) {
        if (isPlane(meta, meta.bodies[b]) || !take(b)) continue;
        const r = this.bodyRadius(meta.bodies[b]), o = (f * nb + b) * 7;
        for (let c = 0; c < 3; ++c) { lo[c].push(arrays.poses[o + c] - r); hi[c].push(arrays.poses[o + c] + r); }
      }
      const p = new THREE.Vector3();
      for (let v = 0; v < nv; ++v) box.expandByPoint(p.fromArray(arrays.soft, (f * nv + v) * 3));
    }
    const n = lo[0].length;
    if (n > 0) {
      const q = n > 200 ? 0.01 : 0;
      const at = (values, fraction) => values.sort((x, y) => x - y)[Math.min(values.length - 1, Math.floor(fraction * values.length))];
      box.expandByPoint(new THREE.Vector3(at(lo[0], q), at(lo[1], q), at(lo[2], q)));
      box.expandByPoint(new THREE.Vector3(at(hi[0], 1 - q), at(hi[1], 1 - q), at(hi[2], 1 - q)));
    }
    return box;
  }

  buildBodies() {
    const { meta } = this.replay;
    const size = this.bounds.getSize(new THREE.Vector3()).length();
    const center = this.bounds.getCenter(new THREE.Vector3());
    // instances per leaf shape, kind and opacity: [body, matrix in the body's shape frame, colour]
    const groups = new Map();
    meta.bodies.forEach((body, b) => {
      for (const [leaf, m, color, opacity, kind] of drawnLeaves(meta.shapes, body)) {
        if (opacity <= 0) continue;
        const key = `${leaf}/${kind}/${opacity}`;
        if (!groups.has(key)) groups.set(key, { leaf, kind, opacity, list: [] });
        groups.get(key).list.push([b, m, color]);
      }
    });
    this.groups = [];
    this.planeGrids = [];
    this.bodyInstances = meta.bodies.map(() => []);  // body -> [[group, instance]]
    this.hasVisuals = meta.bodies.some((body) => body.visual && body.visual.length > 0);
    for (const { leaf, kind, opacity, list } of groups.values()) {
      const s = meta.shapes[leaf];
      let geometry, material;
      let local = center;
      if (s.type === 'plane') {
        // a square of 3x the scene's size, centred below the scene, with a grid on it; the scene's
        // centre in the plane's frame (planes sit on fixed bodies: the first frame's pose holds)
        const [b0, m0] = list[0], o = b0 * 7, P = this.replay.arrays.poses;
        const bodyPose = new THREE.Matrix4().compose(new THREE.Vector3(P[o], P[o + 1], P[o + 2]),
          new THREE.Quaternion(P[o + 3], P[o + 4], P[o + 5], P[o + 6]), new THREE.Vector3(1, 1, 1));
        local = center.clone().applyMatrix4(bodyPose.multiply(m0).invert());
        geometry = this.planeGeometry(s, local, Math.max(3 * size, 2));
        material = new THREE.MeshStandardMaterial({ color: 0xffffff, roughness: 0.95, side: THREE.DoubleSide,
          polygonOffset: true, polygonOffsetFactor: 1, polygonOffsetUnits: 1 });
      } else {
        geometry = leafGeometry(s);
        material = new THREE.MeshStandardMaterial({ color: 0xffffff, roughness: 0.7, metalness: 0.05,
          flatShading: s.type === 'convex' || s.type === 'mesh' || s.type === 'box' });
        if (s.type === 'mesh' && !s.closed) material.side = THREE.DoubleSide;
        if (kind === 'collision') Object.assign(material, { transparent: true, opacity: 0.45, depthWrite: false });
        else if (opacity < 1) Object.assign(material, { transparent: true, opacity });
      }
      const mesh = new THREE.InstancedMesh(geometry, material, list.length);
      mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
      mesh.visible = kind !== 'collision';
      const colors = list.map(([b, , color]) => color || bodyColor(meta, b));
      const group = { mesh, kind, colors, bodies: list.map(([b]) => b), local: list.map(([, m]) => m) };
      list.forEach(([b], k) => {
        mesh.setColorAt(k, colors[k]);
        this.bodyInstances[b].push([this.groups.length, k]);
      });
      mesh.frustumCulled = false;  // instances move: the geometry's own bounds say nothing
      this.groups.push(group);
      this.scene.add(mesh);
      if (s.type === 'plane')  // the grid follows the plane's first instance
        for (const [b, m] of list.slice(0, 1)) {
          const grid = this.planeGrid(s, local, Math.max(3 * size, 2));
          this.planeGrids.push({ grid, body: b, local: m.clone().multiply(grid.matrix.clone().compose(grid.position, grid.quaternion, grid.scale)) });
          grid.matrixAutoUpdate = false;
          this.scene.add(grid);
        }
    }
  }

  planeFrame(s, center) {
    const n = new THREE.Vector3(...s.normal).normalize();
    const q = new THREE.Quaternion().setFromUnitVectors(new THREE.Vector3(0, 0, 1), n);
    // the point of the plane (in its shape frame) nearest the scene's centre; planes sit on
    // fixed bodies, so the first frame's pose is theirs for the whole run
    const inPlane = center.clone().sub(n.clone().multiplyScalar(n.dot(center)));
    return { q, origin: n.clone().multiplyScalar(s.offset).add(inPlane) };
  }

  planeGeometry(s, center, extent) {
    const { q, origin } = this.planeFrame(s, center);
    const g = new THREE.PlaneGeometry(extent, extent);
    g.applyQuaternion(q);
    g.translate(origin.x, origin.y, origin.z);
    return g;
  }

  planeGrid(s, center, extent) {
    const { q, origin } = this.planeFrame(s, center);
    const step = Math.pow(10, Math.floor(Math.log10(extent / 4)));  // 4 to 40 lines
    const divisions = Math.max(2, Math.round(extent / step));
    const grid = new THREE.GridHelper(divisions * step, divisions, 0xb8bec6, 0xd5d9de);
    grid.quaternion.copy(q.clone().multiply(new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(1, 0, 0), Math.PI / 2)));
    grid.position.copy(origin);
    return grid;
  }

  buildSoftBodies() {
    const { meta } = this.replay;
    this.soft = meta.soft_bodies.map((sb, i) => {
      const g = new THREE.BufferGeometry();
      g.setAttribute('position', new THREE.BufferAttribute(new Float32Array(sb.vertex_count * 3), 3).setUsage(THREE.DynamicDrawUsage));
      g.setIndex(sb.faces);
      const material = new THREE.MeshStandardMaterial({ color: SOFT_COLOR, roughness: 0.6, side: THREE.DoubleSide });
      const mesh = new THREE.Mesh(g, material);
      mesh.frustumCulled = false;
      const wire = new THREE.LineSegments(new THREE.WireframeGeometry(g), new THREE.LineBasicMaterial({ color: 0x7a2e0e, transparent: true, opacity: 0.35 }));
      wire.visible = false;
      mesh.add(wire);
      mesh.userData.soft = i;
      this.scene.add(mesh);
      return { mesh, wire, offset: meta.softOffsets[i], count: sb.vertex_count };
    });
  }

  buildContacts() {
    const { meta, arrays } = this.replay;
    this.hasContacts = !!meta.contacts;
    let most = 0;
    if (this.hasContacts)
      for (let f = 0; f < meta.frames.count; ++f) most = Math.max(most, arrays.contact_offsets[f + 1] - arrays.contact_offsets[f]);
    const points = new THREE.BufferGeometry();
    points.setAttribute('position', new THREE.BufferAttribute(new Float32Array(Math.max(1, most) * 3), 3));
    const lines = new THREE.BufferGeometry();
    lines.setAttribute('position', new THREE.BufferAttribute(new Float32Array(Math.max(1, most) * 6), 3));
    const onTop = { depthTest: false, transparent: true };
    this.contactPoints = new THREE.Points(points, new THREE.PointsMaterial({ color: 0xd62728, size: 5, sizeAttenuation: false, ...onTop }));
    this.contactNormals = new THREE.LineSegments(lines, new THREE.LineBasicMaterial({ color: 0x1f5fd6, ...onTop }));
    for (const o of [this.contactPoints, this.contactNormals]) {
      o.renderOrder = 10;
      o.frustumCulled = false;
      o.visible = false;
      this.scene.add(o);
    }
    this.normalLength = 0.015 * this.bounds.getSize(new THREE.Vector3()).length();
  }

  // each joint as two segments, from each body's shape-frame origin to its anchor, and a dot at
  // the anchors: the links of a chain, a pendulum's rod to its pivot
  buildJoints() {
    const joints = this.replay.meta.joints || [];
    const lines = new THREE.BufferGeometry();
    lines.setAttribute('position', new THREE.BufferAttribute(new Float32Array(Math.max(1, joints.length) * 12), 3));
    const dots = new THREE.BufferGeometry();
    dots.setAttribute('position', new THREE.BufferAttribute(new Float32Array(Math.max(1, joints.length) * 6), 3));
    this.jointLines = new THREE.LineSegments(lines, new THREE.LineBasicMaterial({ color: 0x2b2f36 }));
    this.jointDots = new THREE.Points(dots, new THREE.PointsMaterial({ color: 0x2b2f36, size: 6, sizeAttenuation: false }));
    for (const o of [this.jointLines, this.jointDots]) { o.frustumCulled = false; o.visible = joints.length > 0; this.scene.add(o); }
  }

  updateJoints() {
    const joints = this.replay.meta.joints || [];
    if (joints.length === 0) return;
    const L = this.jointLines.geometry.getAttribute('position'), D = this.jointDots.geometry.getAttribute('position');
    const p = new THREE.Vector3(), q = new THREE.Quaternion(), x = new THREE.Vector3();
    joints.forEach((j, i) => {
      [[j.a, j.anchor_a], [j.b, j.anchor_b]].forEach(([b, anchor], side) => {
        if (b < 0) { x.set(...anchor); p.copy(x); } else {
          const o = b * 7;
          p.set(this.pose[o], this.pose[o + 1], this.pose[o + 2]);
          q.set(this.pose[o + 3], this.pose[o + 4], this.pose[o + 5], this.pose[o + 6]);
          x.set(...anchor).applyQuaternion(q).add(p);
        }
        L.array.set([p.x, p.y, p.z, x.x, x.y, x.z], (2 * i + side) * 6);
        D.array.set([x.x, x.y, x.z], (2 * i + side) * 3);
      });
    });
    L.needsUpdate = D.needsUpdate = true;
  }

  showContacts(on) {
    this.contactPoints.visible = this.contactNormals.visible = on && this.hasContacts;
    this.render();
  }

  // the collision shapes of bodies drawn by their visual shapes, as a translucent overlay
  showCollision(on) {
    for (const g of this.groups) if (g.kind === 'collision') g.mesh.visible = on;
    this.render();
  }

  showSoftWireframe(on) {
    for (const s of this.soft) s.wire.visible = on;
    this.render();
  }

  // the camera on a sphere about the scene's centre: azimuth about "up" from the front-left
  // direction, elevation above the horizontal (degrees), far enough to see the whole scene
  resetCamera(azimuth = 0, elevation = 27) {
    this.cameraAngles = [azimuth, elevation];
    const center = this.bounds.getCenter(new THREE.Vector3());
    const r = Math.max(0.05, 0.5 * this.bounds.getSize(new THREE.Vector3()).length());
    const front = (Math.abs(this.up.z) > 0.9 ? new THREE.Vector3(0.45, -1, 0) : new THREE.Vector3(0, 0, 1).cross(this.up))
      .projectOnPlane(this.up).normalize();
    const left = this.up.clone().cross(front);
    const az = THREE.MathUtils.degToRad(azimuth), el = THREE.MathUtils.degToRad(elevation);
    const dir = front.multiplyScalar(Math.cos(az)).add(left.multiplyScalar(Math.sin(az))).multiplyScalar(Math.cos(el))
      .add(this.up.clone().multiplyScalar(Math.sin(el))).normalize();
    const dist = r / Math.sin(THREE.MathUtils.degToRad(this.camera.fov / 2)) * 1.1;
    this.camera.position.copy(center.clone().add(dir.multiplyScalar(dist)));
    this.camera.near = dist / 200;
    this.camera.far = dist * 50;
    this.camera.updateProjectionMatrix();
    this.controls.target.copy(center);
    this.controls.update();
  }

  resize() {
    const w = Math.max(50, this.container.clientWidth), h = Math.max(50, this.container.clientHeight);
    this.renderer.setSize(w, h);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.render();
  }

  // fills this.pose (nb x 7) and this.softX at time t, interpolating between recorded frames
  sample(t, pose = this.pose, softX = this.softX) {
    const { meta, arrays } = this.replay;
    const times = meta.frames.time, nf = times.length, nb = meta.bodies.length, nv = meta.softVertexCount;
    let k = 0;
    if (t >= times[nf - 1]) k = nf - 1;
    else if (t > times[0]) { let lo = 0, hi = nf - 1; while (hi - lo > 1) { const m = (lo + hi) >> 1; if (times[m] <= t) lo = m; else hi = m; } k = lo; }
    const k1 = Math.min(k + 1, nf - 1);
    const a = k1 > k ? Math.min(1, Math.max(0, (t - times[k]) / (times[k1] - times[k]))) : 0;
    const P = arrays.poses;
    for (let b = 0; b < nb; ++b) {
      const o0 = (k * nb + b) * 7, o1 = (k1 * nb + b) * 7, o = b * 7;
      for (let c = 0; c < 3; ++c) pose[o + c] = P[o0 + c] + a * (P[o1 + c] - P[o0 + c]);
      THREE.Quaternion.slerpFlat(pose, o + 3, P, o0 + 3, P, o1 + 3, a);
    }
    const S = arrays.soft;
    for (let i = 0, o0 = k * nv * 3, o1 = k1 * nv * 3; i < nv * 3; ++i) softX[i] = S[o0 + i] + a * (S[o1 + i] - S[o0 + i]);
    return a < 0.5 ? k : k1;  // the nearest recorded frame
  }

  setTime(t) {
    const nearest = this.sample(t);
    this.frame = nearest;
    const { meta } = this.replay;
    const m = new THREE.Matrix4(), pos = new THREE.Vector3(), q = new THREE.Quaternion(), one = new THREE.Vector3(1, 1, 1);
    const world = meta.bodies.map((_, b) => {
      const o = b * 7;
      return m.clone().compose(pos.set(this.pose[o], this.pose[o + 1], this.pose[o + 2]),
        q.set(this.pose[o + 3], this.pose[o + 4], this.pose[o + 5], this.pose[o + 6]), one);
    });
    for (const g of this.groups) {
      g.bodies.forEach((b, k) => g.mesh.setMatrixAt(k, m.multiplyMatrices(world[b], g.local[k])));
      g.mesh.instanceMatrix.needsUpdate = true;
    }
    for (const p of this.planeGrids) p.grid.matrix.multiplyMatrices(world[p.body], p.local);
    for (const s of this.soft) {
      const attr = s.mesh.geometry.getAttribute('position');
      attr.array.set(this.softX.subarray(s.offset * 3, (s.offset + s.count) * 3));
      attr.needsUpdate = true;
      s.mesh.geometry.computeVertexNormals();
      s.mesh.geometry.computeBoundingSphere();
      if (s.wire.visible) { s.wire.geometry.dispose(); s.wire.geometry = new THREE.WireframeGeometry(s.mesh.geometry); }
    }
    this.updateContacts(nearest);
    this.updateJoints();
    this.render();
  }

  updateContacts(frame) {
    if (!this.hasContacts) return;
    const { arrays } = this.replay;
    const c0 = arrays.contact_offsets[frame], c1 = arrays.contact_offsets[frame + 1];
    const pts = this.contactPoints.geometry.getAttribute('position'), lines = this.contactNormals.geometry.getAttribute('position');
    const C = arrays.contacts, L = this.normalLength;
    for (let c = c0, i = 0; c < c1; ++c, ++i) {
      const o = c * 6;
      pts.array.set([C[o], C[o + 1], C[o + 2]], i * 3);
      lines.array.set([C[o], C[o + 1], C[o + 2], C[o] + L * C[o + 3], C[o + 1] + L * C[o + 4], C[o + 2] + L * C[o + 5]], i * 6);
    }
    pts.needsUpdate = lines.needsUpdate = true;
    this.contactPoints.geometry.setDrawRange(0, c1 - c0);
    this.contactNormals.geometry.setDrawRange(0, 2 * (c1 - c0));
    this.contactCount = c1 - c0;
  }

  render() {
    if (this.renderer) this.renderer.render(this.scene, this.camera);
  }

  // the body under a click at client coordinates (x, y): {kind, index} or null
  pick(x, y) {
    const rect = this.renderer.domElement.getBoundingClientRect();
    const ndc = new THREE.Vector2(((x - rect.left) / rect.width) * 2 - 1, -((y - rect.top) / rect.height) * 2 + 1);
    const ray = new THREE.Raycaster();
    ray.setFromCamera(ndc, this.camera);
    const targets = [...this.groups.filter((g) => g.mesh.visible).map((g) => g.mesh), ...this.soft.map((s) => s.mesh)];
    for (const hit of ray.intersectObjects(targets, false)) {
      if (hit.object.userData.soft !== undefined) return { kind: 'soft', index: hit.object.userData.soft };
      const g = this.groups.find((gr) => gr.mesh === hit.object);
      if (g && hit.instanceId !== undefined) return { kind: 'rigid', index: g.bodies[hit.instanceId] };
    }
    return null;
  }

  highlight(sel) {
    const { meta } = this.replay;
    const paint = (s, on) => {
      if (!s) return;
      if (s.kind === 'rigid') {
        for (const [gi, k] of this.bodyInstances[s.index]) {
          this.groups[gi].mesh.setColorAt(k, on ? PICK_COLOR : this.groups[gi].colors[k]);
          this.groups[gi].mesh.instanceColor.needsUpdate = true;
        }
      } else this.soft[s.index].mesh.material.color.copy(on ? PICK_COLOR : SOFT_COLOR);
    };
    paint(this.picked, false);
    this.picked = sel;
    paint(sel, true);
    this.render();
  }

  // screen rectangle (CSS pixels, page coordinates) of a body at time t: its bounding ball for
  // a rigid body, its vertices for a soft one; null for planes
  screenRect(sel, t) {
    const { meta } = this.replay;
    const pose = new Float32Array(meta.bodies.length * 7), softX = new Float32Array(meta.softVertexCount * 3);
    this.sample(t, pose, softX);
    const pts = [];
    if (sel.kind === 'rigid') {
      const body = meta.bodies[sel.index];
      if (isPlane(meta, body)) return null;
      const r = this.bodyRadius(body), o = sel.index * 7;
      for (const dx of [-r, r]) for (const dy of [-r, r]) for (const dz of [-r, r])
        pts.push(new THREE.Vector3(pose[o] + dx, pose[o + 1] + dy, pose[o + 2] + dz));
    } else {
      const s = this.soft[sel.index];
      for (let v = s.offset; v < s.offset + s.count; ++v) pts.push(new THREE.Vector3(softX[3 * v], softX[3 * v + 1], softX[3 * v + 2]));
    }
    const rect = this.renderer.domElement.getBoundingClientRect();
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const p of pts) {
      p.project(this.camera);
      const x = rect.left + (p.x + 1) / 2 * rect.width, y = rect.top + (1 - p.y) / 2 * rect.height;
      x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y);
    }
    const clip = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
    return { x0: clip(x0, rect.left, rect.right), y0: clip(y0, rect.top, rect.bottom), x1: clip(x1, rect.left, rect.right), y1: clip(y1, rect.top, rect.bottom) };
  }

  // how far (CSS pixels) any point of a body moves on screen between times t0 and t1: the
  // largest move of its shape frame's origin plus its bounding radius times the rotation angle
  // (rigid), or of any vertex (soft), each projected with the current camera
  screenMotion(sel, t0, t1) {
    const { meta } = this.replay;
    const a = { pose: new Float32Array(meta.bodies.length * 7), soft: new Float32Array(meta.softVertexCount * 3) };
    const b = { pose: new Float32Array(meta.bodies.length * 7), soft: new Float32Array(meta.softVertexCount * 3) };
    this.sample(t0, a.pose, a.soft);
    this.sample(t1, b.pose, b.soft);
    const rect = this.renderer.domElement.getBoundingClientRect();
    const toScreen = (p) => { p.project(this.camera); return new THREE.Vector2((p.x + 1) / 2 * rect.width, (1 - p.y) / 2 * rect.height); };
    if (sel.kind === 'soft') {
      const s = this.soft[sel.index];
      let most = 0;
      for (let v = s.offset; v < s.offset + s.count; ++v) {
        const p = toScreen(new THREE.Vector3(a.soft[3 * v], a.soft[3 * v + 1], a.soft[3 * v + 2]));
        const q = toScreen(new THREE.Vector3(b.soft[3 * v], b.soft[3 * v + 1], b.soft[3 * v + 2]));
        most = Math.max(most, p.distanceTo(q));
      }
      return most;
    }
    const o = sel.index * 7, body = meta.bodies[sel.index];
    const pa = new THREE.Vector3(a.pose[o], a.pose[o + 1], a.pose[o + 2]), pb = new THREE.Vector3(b.pose[o], b.pose[o + 1], b.pose[o + 2]);
    const qa = new THREE.Quaternion(a.pose[o + 3], a.pose[o + 4], a.pose[o + 5], a.pose[o + 6]);
    const qb = new THREE.Quaternion(b.pose[o + 3], b.pose[o + 4], b.pose[o + 5], b.pose[o + 6]);
    const dist = this.camera.position.distanceTo(pa);
    const pxPerMetre = rect.height / (2 * dist * Math.tan(THREE.MathUtils.degToRad(this.camera.fov / 2)));
    return toScreen(pa.clone()).distanceTo(toScreen(pb.clone())) + qa.angleTo(qb) * this.bodyRadius(body) * pxPerMetre;
  }
}
