#!/usr/bin/python3
"""Checks of `coulomb view` (viewer/README.md), two modes:

  replay_test.py data    COULOMB_EXE SOURCE_DIR   the page's data against the run's own files,
                                                  and the command's errors on broken folders
  replay_test.py browser COULOMB_EXE SOURCE_DIR   headless Chromium loads the replays of wall.json,
                                                  box_on_torus.json and sliding_box.json: screenshots at two times
                                                  are not blank, differ where the scene moved on
                                                  screen and nowhere else in the 3D view, the plots'
                                                  time cursor moved, and the page reports no errors;
                                                  and a run with a residual of 1e-105 and
                                                  penetrations near 1e-5 m plots with distinct labels

Exit 0 on success, 1 on a failed check, 77 (ctest: skipped) when Chromium or PIL is missing.
Runs with Debian's /usr/bin/python3 (python3-pil).
"""
import base64
import html
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL", what)
    return ok


def run(cmd, expect=0, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != expect:
        print("command:", " ".join(cmd))
        print(r.stdout[-2000:], r.stderr[-2000:])
        raise SystemExit(f"FAIL exit code {r.returncode}, expected {expect}")
    return r


def read_replay(path):
    text = open(path, encoding="utf-8").read()
    meta = json.loads(re.search(r'<script type="application/json" id="coulomb-meta">(.*?)</script>', text, re.S).group(1))
    blob = base64.b64decode(re.search(r'<script type="application/octet-stream" id="coulomb-bin">(.*?)</script>', text, re.S).group(1))
    arrays = {}
    for name, b in meta["buffers"].items():
        fmt = {"f32": "f", "f64": "d", "u32": "I"}[b["type"]]
        size = struct.calcsize(fmt)
        arrays[name] = struct.unpack_from("<%d%s" % (b["length"], fmt), blob, b["offset"])
        check(b["offset"] % 8 == 0 and b["offset"] + b["length"] * size <= len(blob), f"buffer {name} within the blob")
    return text, meta, arrays


def data_mode(exe, src, tmp):
    # a wall that records contacts: 60 steps, a frame every 5
    out = os.path.join(tmp, "wall")
    run([exe, "run", f"{src}/scenes/wall.json", "--out", out, "--steps", "60", "--set", "/output/every=5",
         "--set", "/output/contacts=true", "--view", "--quiet"])
    text, meta, a = read_replay(os.path.join(out, "replay.html"))
    final = json.load(open(os.path.join(out, "final_state.json")))
    stats = [json.loads(l) for l in open(os.path.join(out, "stats.jsonl"))]
    frames = [json.loads(l) for l in open(os.path.join(out, "frames.jsonl"))]
    nb = len(final["bodies"])
    check(meta["frames"]["count"] == 13, f"13 frames (step 0 and 12 recorded), got {meta['frames']['count']}")
    check(meta["frames"]["step"] == list(range(0, 61, 5)), "frame steps 0, 5, ..., 60")
    check(len(meta["bodies"]) == nb == 81, "81 bodies")
    check(len(a["poses"]) == 13 * nb * 7, "poses: frames x bodies x 7")
    # the last frame's poses are final_state.json's, in float32 (x, y, z, qx, qy, qz, qw)
    worst = 0.0
    for i, b in enumerate(final["bodies"]):
        o = (12 * nb + i) * 7
        p, q = b["position"], b["orientation"]
        want = p + [q[1], q[2], q[3], q[0]]
        worst = max(worst, max(abs(x - y) for x, y in zip(a["poses"][o:o + 7], want)))
    check(worst < 1e-6, f"last frame = final_state.json within float32 (worst {worst:.2e})")
    # contacts: per frame, stats.jsonl's count for that step, each with a unit normal
    offs = a["contact_offsets"]
    check(len(offs) == 14 and offs[0] == 0 and offs[1] == 0, "contact offsets: 14, none at step 0")
    for k in range(1, 13):
        step = 5 * k
        check(offs[k + 1] - offs[k] == stats[step - 1]["contacts"], f"frame {k}: contacts {offs[k + 1] - offs[k]} = stats {stats[step - 1]['contacts']}")
        check(offs[k + 1] - offs[k] == len(frames[k - 1]["contacts"]) // 6, f"frame {k}: contacts = frames.jsonl")
    c = a["contacts"]
    norms = [abs((c[6 * i + 3] ** 2 + c[6 * i + 4] ** 2 + c[6 * i + 5] ** 2) ** 0.5 - 1) for i in range(len(c) // 6)]
    check(len(norms) > 0 and max(norms) < 1e-6, "contact normals are unit vectors")
    # stats columns hold stats.jsonl exactly (float64)
    cols, ns = meta["stats"]["columns"], meta["stats"]["count"]
    check(ns == 60, "60 stats rows")
    for name in ["time", "kinetic_energy", "contacts", "residual", "merit", "max_penetration", "solve_ms", "joint_error_linear"]:
        if not check(name in cols, f"stats column {name}"):
            continue
        col = a["stats"][cols.index(name) * ns:(cols.index(name) + 1) * ns]
        key = name.split("_error_")
        want = [s["joint_error"][key[1]] if len(key) == 2 and key[0] == "joint" else s[name] for s in stats]
        check(list(col) == [float(x) for x in want], f"stats column {name} = stats.jsonl")
    check(meta["scene"]["name"] == "wall" and meta["shapes"][meta["bodies"][1]["shape"]]["type"] == "box", "scene name and brick shape")

    # text that would end or confuse a <script> block reaches the page intact
    tricky = 'a </script><!-- b <script> "c"'
    scene = json.load(open(f"{src}/scenes/sliding_box.json"))
    scene["name"], scene["description"] = tricky, tricky
    json.dump(scene, open(os.path.join(tmp, "tricky.json"), "w"))
    run([exe, "run", os.path.join(tmp, "tricky.json"), "--out", os.path.join(tmp, "tricky"), "--steps", "2", "--view", "--quiet"])
    _, mt, _ = read_replay(os.path.join(tmp, "tricky", "replay.html"))
    check(mt["scene"]["name"] == tricky and mt["scene"]["description"] == tricky, "a name with </script> and <!-- survives")

    # --every 3 keeps step 0 and every third recorded frame
    r = run([exe, "view", out, "--every", "3", "--out", os.path.join(tmp, "every3.html")])
    _, m3, _ = read_replay(os.path.join(tmp, "every3.html"))
    check(m3["frames"]["step"] == [0, 15, 30, 45, 60], f"--every 3: steps {m3['frames']['step']}")
    check("5 frames of 81 bodies" in r.stdout, "view prints a summary")

    # a soft body: its surface and vertices reach the page
    soft = os.path.join(tmp, "torus")
    run([exe, "run", f"{src}/scenes/box_on_torus.json", "--out", soft, "--steps", "4", "--view", "--quiet"])
    _, ms, s = read_replay(os.path.join(soft, "replay.html"))
    geo = json.load(open(os.path.join(soft, "geometry.json")))
    nv = geo["soft_bodies"][0]["vertex_count"]
    check(len(ms["soft_bodies"]) == 1 and ms["soft_bodies"][0]["vertex_count"] == nv > 0, "one soft body with its vertices")
    check(len(s["soft"]) == 5 * nv * 3, "soft: frames x vertices x 3")
    last = json.loads(open(os.path.join(soft, "frames.jsonl")).read().splitlines()[-1])["soft_bodies"][0]
    check(max(abs(x - y) for x, y in zip(s["soft"][4 * nv * 3:], last)) < 1e-6, "last soft frame = frames.jsonl")
    check(max(ms["soft_bodies"][0]["faces"]) < nv, "surface faces index the vertices")

    # a run that fails (a body faster than --max-speed at step 1) keeps exit code 3 and still
    # gets its replay, up to the failed step
    fast = os.path.join(tmp, "fast")
    r = subprocess.run([exe, "run", f"{src}/scenes/sliding_box.json", "--out", fast, "--max-speed", "1", "--view", "--quiet"],
                       capture_output=True, text=True)
    check(r.returncode == 3, f"failed run with --view: exit 3, got {r.returncode}")
    if check(os.path.exists(os.path.join(fast, "replay.html")), "failed run: replay.html written"):
        _, mf, _ = read_replay(os.path.join(fast, "replay.html"))
        check(mf["frames"]["step"] == [0, 1], f"failed run: frames of steps 0 and 1, got {mf['frames']['step']}")

    # broken folders: exit 2, the file (and line) named, no page written
    def broken(name, setup, expect_text):
        d = os.path.join(tmp, name)
        shutil.copytree(out, d)
        os.remove(os.path.join(d, "replay.html"))
        setup(d)
        r = subprocess.run([exe, "view", d], capture_output=True, text=True)
        check(r.returncode == 2, f"{name}: exit 2, got {r.returncode} ({r.stderr.strip()})")
        check(expect_text in r.stderr, f"{name}: message names '{expect_text}': {r.stderr.strip()}")
        check(not os.path.exists(os.path.join(d, "replay.html")), f"{name}: no page written")

    def truncate_frames(d):
        lines = open(os.path.join(d, "frames.jsonl")).read().splitlines()
        lines[2] = lines[2][: len(lines[2]) // 2]
        open(os.path.join(d, "frames.jsonl"), "w").write("\n".join(lines) + "\n")

    def fewer_bodies(d):
        lines = open(os.path.join(d, "frames.jsonl")).read().splitlines()
        f = json.loads(lines[4])
        f["bodies"].pop()
        lines[4] = json.dumps(f)
        open(os.path.join(d, "frames.jsonl"), "w").write("\n".join(lines) + "\n")

    def bad_visual(d):
        g = json.load(open(os.path.join(d, "geometry.json")))
        g["bodies"][3]["visual"] = [{"shape": len(g["shapes"]), "position": [0, 0, 0], "orientation": [1, 0, 0, 0]}]
        json.dump(g, open(os.path.join(d, "geometry.json"), "w"))

    broken("bad_visual", bad_visual, "/bodies/3/visual/0")
    broken("no_geometry", lambda d: os.remove(os.path.join(d, "geometry.json")), "geometry.json")
    broken("no_stats", lambda d: os.remove(os.path.join(d, "stats.jsonl")), "stats.jsonl")
    broken("truncated_frames", truncate_frames, "frames.jsonl:3")
    broken("fewer_bodies", fewer_bodies, "frames.jsonl:5/bodies")
    broken("bad_geometry", lambda d: open(os.path.join(d, "geometry.json"), "w").write("{\"format\": 1"), "geometry.json")
    broken("stats_not_object", lambda d: open(os.path.join(d, "stats.jsonl"), "a").write("[1, 2]\n"), "stats.jsonl:61")
    r = subprocess.run([exe, "view", os.path.join(tmp, "nowhere")], capture_output=True, text=True)
    check(r.returncode == 2 and "no such output folder" in r.stderr, f"missing folder: exit 2 ({r.stderr.strip()})")
    visual_data_case(exe, src, tmp)


KUKA = "../shared/robots/urdf/kuka_iiwa/model.urdf"


def run_kuka(exe, src, tmp):
    """The KUKA arm's URDF run for 3 steps with its replay: its links carry visual meshes and
    colours; None when ../shared/robots is not beside the checkout."""
    model = os.path.join(src, KUKA)
    if not os.path.exists(model):
        print(f"SKIP visual shapes: {model} is missing")
        return None
    out = os.path.join(tmp, "kuka")
    run([exe, "run", model, "--out", out, "--steps", "3", "--view", "--quiet"])
    return out


def visual_data_case(exe, src, tmp):
    """Visual shapes reach the page: each link's mesh by shape index, with its colour."""
    out = run_kuka(exe, src, tmp)
    if out is None:
        return
    _, meta, _ = read_replay(os.path.join(out, "replay.html"))
    links = [b for b in meta["bodies"] if b["name"].startswith("lbr_iiwa_link_")]
    check(len(links) == 8 and all(len(b.get("visual", [])) == 1 for b in links), "every KUKA link has one visual shape")
    for b in links:
        v = b["visual"][0]
        s = meta["shapes"][v["shape"]]
        check(s["type"] == "mesh" and len(s["triangles"]) > 0, f"{b['name']}: its visual is a mesh with triangles")
        check(len(v.get("color", [])) == 4 and all(0 <= c <= 1 for c in v["color"]), f"{b['name']}: a colour")
    blue = [b for b in links if b["name"] == "lbr_iiwa_link_1"][0]["visual"][0]["color"]
    check(max(abs(x - y) for x, y in zip(blue, [0.5, 0.7, 1.0, 1.0])) < 1e-6, f"link 1 is the URDF's Blue: {blue}")


# ---- browser ----

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
                  "--hide-scrollbars", "--window-size=1280,1000", "--enable-logging=stderr", "--v=0",
                  "--virtual-time-budget=2000", "--no-first-run", "--disable-extensions"]


def chromium(browser, url, shot, tmp):
    """Screenshot of url into shot and the report the page writes (one browser run); errors on
    the console from stderr."""
    env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS="disabled:", HOME=tmp)
    profile = tempfile.mkdtemp(dir=tmp)
    r = subprocess.run([browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", f"--screenshot={shot}", "--dump-dom", url],
                       capture_output=True, text=True, env=env, timeout=120)
    m = re.search(r'<pre id="replay-report" hidden="">(.*?)</pre>', r.stdout, re.S)
    report = json.loads(html.unescape(m.group(1))) if m and m.group(1) else {"status": "no report"}
    console = [l for l in r.stderr.splitlines() if "CONSOLE" in l and ("Uncaught" in l or "Error" in l)]
    return report, console


def browser_mode(exe, src, tmp):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        from PIL import Image, ImageChops
    except ImportError:
        print("SKIP: python3-pil is not installed (tools/test installs it)")
        raise SystemExit(77)
    if not browser:
        print("SKIP: chromium is not installed (tools/test installs it)")
        raise SystemExit(77)

    # (scene, steps, the two times): the wall stands, so between t = 0 and 2 s its picture may
    # change only in the plots; the box rests on the soft torus (nothing moves by 2 px in 0.3 s
    # either); the sliding box moves 4.6 m in its first second (SCENE_FORMAT's contract scene
    # sliding_box.json, 0.1 s of compute), so that the test sees a picture change where the
    # scene moved
    cases = [("wall", 200, 0.0, 2.0), ("box_on_torus", 30, 0.0, 0.3), ("sliding_box", 100, 0.0, 1.0)]
    for scene, steps, ta, tb in cases:
        out = os.path.join(tmp, scene)
        run([exe, "run", f"{src}/scenes/{scene}.json", "--out", out, "--steps", str(steps), "--view", "--quiet",
             "--set", "/output/contacts=true"])
        page = "file://" + os.path.join(out, "replay.html")
        t0 = time.time()
        # a fixed view height: the report's rectangles then hold for the screenshot too
        rep_a, con_a = chromium(browser, f"{page}#t={ta}&report=1&height=540&compare={tb}", os.path.join(tmp, f"{scene}_a.png"), tmp)
        rep_b, con_b = chromium(browser, f"{page}#t={tb}&report=1&height=540", os.path.join(tmp, f"{scene}_b.png"), tmp)
        print(f"{scene}: chromium {time.time() - t0:.1f} s; moved on screen: "
              + ", ".join(f"{m['name']} {m['px']:.0f} px" for m in rep_a.get("moved", [])[:8]))
        for rep, con, t in [(rep_a, con_a, ta), (rep_b, con_b, tb)]:
            check(rep.get("status") == "ready", f"{scene} t={t}: page ready ({rep.get('status')}, {rep.get('errors')})")
            check(rep.get("errors") == [], f"{scene} t={t}: no JavaScript errors reported by the page: {rep.get('errors')}")
            check(con == [], f"{scene} t={t}: no errors on the console: {con}")
            check(rep.get("webgl") is True, f"{scene} t={t}: WebGL view")
            check(rep.get("charts", 0) >= 5, f"{scene} t={t}: at least 5 plots, got {rep.get('charts')}")
        if failures:
            continue
        a = Image.open(os.path.join(tmp, f"{scene}_a.png")).convert("RGB")
        b = Image.open(os.path.join(tmp, f"{scene}_b.png")).convert("RGB")
        view = rep_a["view"]
        check(rep_a["viewport"][0] == a.size[0] and abs(view["y1"] - view["y0"] - 540) < 1,
              f"{scene}: the report's layout is the screenshot's (width {rep_a['viewport'][0]}, view {view})")
        # the controls bar's top border (#e3e6ea) lies right below the view in the picture too
        check(a.getpixel((5, int(round(view["y1"])))) == (227, 230, 234), f"{scene}: the view ends where the report says")
        box = tuple(int(round(v)) for v in (view["x0"], view["y0"], view["x1"], view["y1"]))
        for name, img in [("a", a), ("b", b)]:
            region = img.crop(box)
            colours = len(set(region.getdata()))
            background = (243, 245, 247)
            covered = sum(1 for p in region.getdata() if max(abs(p[i] - background[i]) for i in range(3)) > 12) / (region.width * region.height)
            lum = region.convert("L").getdata()
            mean = sum(lum) / len(lum)
            spread = (sum((v - mean) ** 2 for v in lum) / len(lum)) ** 0.5
            print(f"  {scene} {name}: {colours} colours, {100 * covered:.1f}% of the view drawn, luminance spread {spread:.1f}")
            check(colours > 20 and spread > 10, f"{scene} {name}: the 3D view is not blank ({colours} colours, spread {spread:.1f})")
            check(covered > 0.05, f"{scene} {name}: bodies cover more than 5% of the view ({100 * covered:.1f}%)")
        diff = ImageChops.difference(a, b).convert("L").point(lambda v: 255 if v > 24 else 0)
        # where bodies moved (their rectangles at both times, 3 px wider) and where they did not
        mask = Image.new("L", a.size, 0)
        moved = rep_a.get("moved", [])
        for m in moved:
            for r in (m["a"], m["b"]):
                mask.paste(255, (int(r["x0"]) - 3, int(r["y0"]) - 3, int(r["x1"]) + 4, int(r["y1"]) + 4))
        view_mask = Image.new("L", a.size, 0)
        view_mask.paste(255, box)
        still = ImageChops.subtract(view_mask, mask)
        changed_still = sum(1 for v in ImageChops.multiply(diff, still).getdata() if v) / max(1, sum(1 for v in still.getdata() if v))
        print(f"  {scene}: {len(moved)} bodies moved; {100 * changed_still:.2f}% of the still part of the view changed")
        check(changed_still < 0.003, f"{scene}: the view changes only where bodies moved ({100 * changed_still:.2f}% elsewhere)")
        if moved:
            inside = ImageChops.multiply(diff, ImageChops.multiply(mask, view_mask))
            n_in = sum(1 for v in inside.getdata() if v)
            print(f"  {scene}: {n_in} pixels changed where bodies moved")
            check(n_in > 200, f"{scene}: the picture changed where bodies moved ({n_in} pixels)")
        plots = rep_a["plots"]
        pbox = tuple(int(round(v)) for v in (plots["x0"], plots["y0"], plots["x1"], min(plots["y1"], a.size[1])))
        n_plots = sum(1 for v in diff.crop(pbox).getdata() if v)
        check(n_plots > 100, f"{scene}: the plots' time cursor moved ({n_plots} pixels changed)")
    tiny_values_case(exe, src, tmp, browser)
    visual_browser_case(exe, src, tmp, browser)


def visual_browser_case(exe, src, tmp, browser):
    """The page draws the KUKA's visual meshes in place of its collision hulls, and the hulls
    over them when asked (collision=1)."""
    out = run_kuka(exe, src, tmp)
    if out is None:
        return
    page = "file://" + os.path.join(out, "replay.html")
    for extra, want_collision in (("", False), ("&collision=1", True)):
        rep, con = chromium(browser, f"{page}#t=0&report=1{extra}", os.path.join(tmp, f"kuka{extra[1:10]}.png"), tmp)
        drawn = rep.get("drawn") or {}
        print(f"  kuka{extra}: drawn {drawn}")
        check(rep.get("status") == "ready" and rep.get("errors") == [] and con == [],
              f"kuka{extra}: the page is ready without errors ({rep.get('status')}, {rep.get('errors')}, {con})")
        check(drawn.get("visual", 0) == 8, f"kuka{extra}: 8 visual meshes drawn ({drawn})")
        check(drawn.get("shape", 0) == 1, f"kuka{extra}: the ground, which has no visual, by its shape ({drawn})")
        check((drawn.get("collision", 0) == 8) == want_collision, f"kuka{extra}: collision shapes shown: {want_collision} ({drawn})")


def tiny_values_case(exe, src, tmp, browser):
    """A run whose residual falls to 1e-105 and whose penetration stays near 1e-5 m: the plots
    draw (no RangeError), and the penetration axis labels tell their ticks apart."""
    out = os.path.join(tmp, "tiny")
    run([exe, "run", f"{src}/scenes/sliding_box.json", "--out", out, "--steps", "40", "--quiet"])
    path = os.path.join(out, "stats.jsonl")
    stats = [json.loads(l) for l in open(path)]
    for i, s in enumerate(stats):
        s["residual"] = 10.0 ** (-3 - 102 * i / (len(stats) - 1))
        s["max_penetration"] = 1e-5 * (1 + 0.5 * (i % 7) / 6)
    with open(path, "w") as f:
        f.writelines(json.dumps(s) + "\n" for s in stats)
    run([exe, "view", out])
    page = "file://" + os.path.join(out, "replay.html")
    t0 = time.time()
    rep, con = chromium(browser, f"{page}#t=0.2&report=1", os.path.join(tmp, "tiny.png"), tmp)
    print(f"tiny values: chromium {time.time() - t0:.1f} s; axis labels {rep.get('axis_labels')}")
    check(rep.get("status") == "ready" and rep.get("errors") == [] and con == [],
          f"tiny values: the page is ready without errors ({rep.get('status')}, {rep.get('errors')}, {con})")
    labels = rep.get("axis_labels", {})
    check("Residual and merit" in labels, f"tiny values: the residual plot is drawn ({list(labels)})")
    pen = [l for l in labels.get("Penetration", []) if l]
    check(len(pen) >= 2 and len(set(pen)) == len(pen) and any(l not in ("0", "0.0") for l in pen),
          f"tiny values: the penetration axis labels differ ({pen})")


def main():
    mode, exe, src = sys.argv[1:4]
    tmp = tempfile.mkdtemp(prefix="coulomb-replay-")
    try:
        (data_mode if mode == "data" else browser_mode)(exe, src, tmp)
    finally:
        if not os.environ.get("COULOMB_KEEP_TEST_FILES"):
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("files kept in", tmp)
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)
    print("all checks passed")


if __name__ == "__main__":
    main()
