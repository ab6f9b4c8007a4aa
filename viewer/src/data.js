// The replay's data, as `coulomb view` writes it into the page (viewer/README.md "Data"):
//   <script type="application/json" id="coulomb-meta">  scene, shapes, bodies, soft bodies,
//       frame times, stats columns, and where each binary array lies in the blob below
//   <script type="application/octet-stream" id="coulomb-bin">  one base64 blob of
//       little-endian arrays, each starting on an 8-byte boundary
// Arrays (nf frames, nb rigid bodies, nv soft vertices of all soft bodies, nc contacts):
//   poses            f32 (nf x nb x 7)  shape-frame position x, y, z and quaternion x, y, z, w
//   soft             f32 (nf x nv x 3)  soft vertex positions, soft bodies one after another
//   contact_offsets  u32 (nf + 1)       contacts of frame k: [offsets[k], offsets[k + 1])
//   contacts         f32 (nc x 6)       point x, y, z and unit normal x, y, z
//   stats            f64 (ncol x ns)    stats.jsonl, one column after another

const kinds = { f32: Float32Array, f64: Float64Array, u32: Uint32Array };

function decodeBase64(text) {
  const s = atob(text.trim());
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; ++i) bytes[i] = s.charCodeAt(i);
  return bytes;
}

// Reads the page's data. Throws an Error naming what is missing or inconsistent.
export function loadReplay(doc = document) {
  const metaEl = doc.getElementById('coulomb-meta');
  const binEl = doc.getElementById('coulomb-bin');
  if (!metaEl || !binEl) throw new Error('this page holds no replay data (is it the bare template? run `coulomb view OUT_DIR`)');
  const meta = JSON.parse(metaEl.textContent);
  if (meta.format !== 'coulomb-replay/1') throw new Error(`unknown replay format ${meta.format}`);
  const bytes = decodeBase64(binEl.textContent);
  const arrays = {};
  for (const [name, b] of Object.entries(meta.buffers)) {
    const Kind = kinds[b.type];
    if (!Kind) throw new Error(`buffer ${name}: unknown type ${b.type}`);
    if (b.offset % 8 !== 0 || b.offset + b.length * Kind.BYTES_PER_ELEMENT > bytes.byteLength)
      throw new Error(`buffer ${name} lies outside the data (${bytes.byteLength} bytes)`);
    arrays[name] = new Kind(bytes.buffer, b.offset, b.length);
  }
  const nf = meta.frames.count, nb = meta.bodies.length;
  let nv = 0;
  meta.softOffsets = meta.soft_bodies.map((s) => { const o = nv; nv += s.vertex_count; return o; });
  meta.softVertexCount = nv;
  if (arrays.poses.length !== nf * nb * 7) throw new Error('poses do not match frames x bodies');
  if (arrays.soft.length !== nf * nv * 3) throw new Error('soft vertices do not match frames x vertices');
  // stats columns by name
  const stats = {};
  const ns = meta.stats.count;
  meta.stats.columns.forEach((name, c) => { stats[name] = arrays.stats.subarray(c * ns, (c + 1) * ns); });
  return { meta, arrays, stats };
}
