#!/usr/bin/env python3
"""Drive visage-server's web page in headless Chromium, end to end.

From the repository root, after `swift build -c release --package-path Server` and
`python3 -m venv .venv-server && .venv-server/bin/pip install selenium`:

    .venv-server/bin/python Server/Tools/browser_check.py \\
        --binary Server/.build/release/visage-server --screenshots /tmp/visage-shots

It starts the server on a free port, opens `/` in Chromium (Debian's /usr/bin/chromium and
/usr/bin/chromedriver; Selenium Manager is never used, so nothing is downloaded) and checks:

- photo: a photo given to the file input gets a result drawn, and the face count the page
  shows is the one the server answers the same request with over plain HTTP (`photo.png`);
- group photo (unless --skip-group): with the page's defaults, the automatic detector falls
  back from the short range to every scale (the request and the status line say so); then the
  "Group photo" preset on a crowd picture, the same
  comparison (`group.png`);
- broken file: garbage bytes named broken.jpg put the server's own message in the error banner;
- camera: Chromium's fake camera plays a clip made here from a test photo (a slow pan and zoom
  over a face, YUV4MPEG2); the page streams it to /v1/live and must get 30 answered frames
  with the face found (`camera.png`);
- the browser console has no SEVERE entry, other than the HTTP errors the checks provoke.

Exit status 0 when every check passes, 1 otherwise (the failure is named), 2 for usage errors.
Screenshots are PNGs of the window at 0.75 scale, given a 256-colour palette when over 100 KB.
No third-party package but Selenium: PNG decoding and encoding (in server_harness.py beside
this script, which also starts and stops the servers) and the clip's YUV conversion are done
in plain Python. Takes about 20 s.
"""
import argparse
import atexit
import base64
import json
import math
import operator
import os
import shutil
import sys
import tempfile
import time
import urllib.error
import urllib.request

import server_harness

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PHOTO = os.path.join(ROOT, "Tests/Fixtures/images/astronaut.png")
CROWD = os.path.join(ROOT, "Tests/Fixtures/crowd/crowd_00.jpg")
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
SCREENSHOT_SCALE = 0.75


class CheckFailed(Exception):
    pass


def check(condition, message):
    if not condition:
        raise CheckFailed(message)


def passed(message):
    print(f"PASS  {message}", flush=True)


# ---- A test clip, in plain Python ---------------------------------------------------------

def yuv_planes(width, height, rgb):
    """Full-resolution Y, Cb, Cr planes (BT.601, video range), as bytes."""
    y_plane, u_plane, v_plane = bytearray(width * height), bytearray(width * height), bytearray(width * height)
    for i in range(width * height):
        r, g, b = rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]
        y_plane[i] = (66 * r + 129 * g + 25 * b + 128 >> 8) + 16
        u_plane[i] = (-38 * r - 74 * g + 112 * b + 128 >> 8) + 128
        v_plane[i] = (112 * r - 94 * g - 18 * b + 128 >> 8) + 128
    return bytes(y_plane), bytes(u_plane), bytes(v_plane)


def write_clip(path, source, out_w=640, out_h=480, fps=15, seconds=3.0):
    """A YUV4MPEG2 clip of slow pan-and-zoom crops of `source`, looping smoothly (Chromium
    replays the file). The astronaut's face stays whole in every crop."""
    with open(source, "rb") as f:
        width, height, rgb = server_harness.decode_png_rgb(f.read())
    planes = yuv_planes(width, height, rgb)
    frames = int(round(fps * seconds))
    face_x, face_y = 225.0, 130.0   # the face's centre in astronaut.png
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{out_w} H{out_h} F{fps}:1 Ip A1:1 C420jpeg\n".encode())
        for n in range(frames):
            phase = 2 * math.pi * n / frames
            crop_w = 400 + 70 * math.sin(phase)           # zoom
            crop_h = crop_w * out_h / out_w
            cx = face_x + 40 * math.cos(phase)            # pan
            cy = face_y + 40 + 25 * math.sin(2 * phase)
            left = min(max(0.0, cx - crop_w / 2), width - crop_w)
            top = min(max(0.0, cy - crop_h / 2), height - crop_h)
            f.write(b"FRAME\n")
            sizes = [(out_w, out_h), (out_w // 2, out_h // 2), (out_w // 2, out_h // 2)]
            for plane, (pw, ph) in zip(planes, sizes):
                step_x, step_y = crop_w / pw, crop_h / ph
                columns = [min(width - 1, int(left + (i + 0.5) * step_x)) for i in range(pw)]
                pick = operator.itemgetter(*columns)
                for j in range(ph):
                    row = min(height - 1, int(top + (j + 0.5) * step_y))
                    f.write(bytes(pick(plane[row * width:(row + 1) * width])))
    return frames


def palette_png(path, colours=256):
    """Re-encodes a PNG with a palette of `colours` (median cut over 15-bit colours, no
    dithering): a page screenshot keeps its text crisp at a third of the size."""
    with open(path, "rb") as f:
        width, height, rgb = server_harness.decode_png_rgb(f.read())
    keys = [((rgb[i] >> 3) << 10) | ((rgb[i + 1] >> 3) << 5) | (rgb[i + 2] >> 3) for i in range(0, len(rgb), 3)]
    count = [0] * 32768
    for k in keys:
        count[k] += 1
    boxes = [[k for k in range(32768) if count[k]]]

    def widest(box):   # (range, shift) of the channel the box spans most
        return max((max((k >> shift) & 31 for k in box) - min((k >> shift) & 31 for k in box), shift)
                   for shift in (10, 5, 0))
    while len(boxes) < colours:
        # Split the box with the most pixels times its widest channel range, at its median.
        candidates = []
        for i, box in enumerate(boxes):
            span, shift = widest(box) if len(box) > 1 else (0, 0)
            if span:
                candidates.append((sum(count[k] for k in box) * span, i, shift))
        if not candidates:
            break
        _, i, shift = max(candidates)
        box = sorted(boxes[i], key=lambda k: (k >> shift) & 31)
        half, seen, cut = sum(count[k] for k in box) / 2, 0, 1
        for j, k in enumerate(box):
            seen += count[k]
            if seen >= half:
                cut = max(1, min(len(box) - 1, j + 1))
                break
        boxes[i:i + 1] = [box[:cut], box[cut:]]
    index = [0] * 32768
    for n, box in enumerate(boxes):
        for k in box:
            index[k] = n
    sums = [[0, 0, 0, 0] for _ in boxes]   # each entry is its pixels' mean colour
    for i, k in enumerate(keys):
        entry = sums[index[k]]
        entry[0] += rgb[3 * i]
        entry[1] += rgb[3 * i + 1]
        entry[2] += rgb[3 * i + 2]
        entry[3] += 1
    palette = b"".join(bytes(v // max(1, e[3]) for v in e[:3]) for e in sums)
    pixels = bytes(index[k] for k in keys)
    rows = [pixels[y * width:(y + 1) * width] for y in range(height)]
    with open(path, "wb") as f:
        f.write(server_harness.encode_png(width, height, 1, rows, palette=palette, level=9))


# ---- The server ---------------------------------------------------------------------------

def post(url, body, content_type):
    """POSTs `body`; returns (status, parsed JSON)."""
    request = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def face_count(result):
    for key in ("faceLandmarks", "detections", "faces"):
        if key in result:
            return len(result[key])
    return 0


# ---- The browser --------------------------------------------------------------------------

def start_browser(clip, profile):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900",
                "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                f"--use-file-for-fake-video-capture={clip}", f"--user-data-dir={profile}",
                "--no-first-run", "--disable-extensions", "--force-device-scale-factor=1"]:
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # An explicit driver path: Selenium Manager (which downloads drivers) is not run.
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_script_timeout(60)
    return driver


def wait_for(driver, script, timeout, what, interval=0.2):
    """Polls `script` (a JS expression) until it is truthy; returns its value."""
    deadline = time.time() + timeout
    while True:
        value = driver.execute_script(f"return ({script});")
        if value:
            return value
        if time.time() > deadline:
            error = driver.execute_script("return window.visage && window.visage.lastError;")
            raise CheckFailed(f"timed out after {timeout} s waiting for {what}" + (f" (page error: {error})" if error else ""))
        time.sleep(interval)


def screenshot(driver, directory, name, scale=SCREENSHOT_SCALE):
    if not directory:
        return
    os.makedirs(directory, exist_ok=True)
    width, height = driver.execute_script("return [window.innerWidth, window.innerHeight];")
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png",
        "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": scale},
    })
    path = os.path.join(directory, name)
    with open(path, "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    if os.path.getsize(path) > 100_000:
        palette_png(path)
    print(f"      screenshot {path} ({os.path.getsize(path) // 1024} KB)", flush=True)


def open_page(driver, base):
    driver.get(base + "/")
    wait_for(driver, "window.visage && document.readyState === 'complete'", 20, "the page's script")


def give_file(driver, path):
    driver.execute_script("window.visage.lastResult = null; window.visage.lastError = null;")
    driver.find_element("id", "file").send_keys(path)


def page_and_server_agree(driver, path, content_type, what):
    """The result the page drew against the server's answer to the same request over HTTP."""
    result = wait_for(driver, "window.visage.lastResult || (window.visage.lastError && {error: window.visage.lastError})",
                      120, f"the {what}'s result")
    check("error" not in result or not isinstance(result["error"], str),
          f"{what}: the page shows an error: {result.get('error')}")
    shown = int(driver.execute_script("return document.getElementById('summary').dataset.faces;"))
    url = driver.execute_script("return window.visage.lastRequest;")
    with open(path, "rb") as f:
        status, direct = post(url, f.read(), content_type)
    check(status == 200, f"{what}: the direct request {url} answered {status}: {direct}")
    check(face_count(result) == face_count(direct),
          f"{what}: the page's result has {face_count(result)} faces, the server's direct answer {face_count(direct)}")
    check(shown == face_count(direct), f"{what}: the page shows {shown} faces, the server answers {face_count(direct)}")
    check(shown >= 1, f"{what}: no face found")
    return url, result


def log_entries(driver):
    return driver.get_log("browser")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", required=True, help="the visage-server executable")
    parser.add_argument("--screenshots", help="a folder for photo.png, group.png, broken.png, camera.png")
    parser.add_argument("--page-dir", help="pass --page-dir to the server (serve the page from this folder)")
    parser.add_argument("--skip-group", action="store_true", help="skip the group-photo check")
    parser.add_argument("--live-frames", type=int, default=30, help="answered live frames to wait for (30)")
    parser.add_argument("--screenshot-scale", type=float, default=SCREENSHOT_SCALE,
                        help=f"the screenshots' scale of the 1280×900 window ({SCREENSHOT_SCALE})")
    args = parser.parse_args()
    for path in (args.binary, CHROMIUM, CHROMEDRIVER):
        if not os.path.exists(path):
            parser.error(f"{path} not found")
    # Stop cleanly (and so stop the server and browser) on SIGTERM as on Ctrl-C.
    server_harness.exit_on_sigterm(1)

    started = time.time()
    work = tempfile.mkdtemp(prefix="visage-browser-")
    atexit.register(shutil.rmtree, work, True)
    driver = None
    try:
        clip = os.path.join(work, "clip.y4m")
        frames = write_clip(clip, PHOTO)
        passed(f"made a {frames}-frame 640×480 clip from {os.path.relpath(PHOTO, ROOT)} in {time.time() - started:.1f} s")

        page_args = ["--page-dir", args.page_dir] if args.page_dir else []
        base = server_harness.start_server(args.binary, page_args, "browser", timeout=60).base
        passed(f"server up at {base}")
        # A server from before `head-pose` answers 400 to it; the page then asks again without,
        # and Chromium logs that 400. Allowed only then.
        with open(PHOTO, "rb") as f:
            status, body = post(base + "/v1/landmark?head-pose=true", f.read(), "image/png")
        head_pose = status == 200
        if not head_pose:
            print(f"NOTE  the server refuses head-pose ({body.get('error', {}).get('message', status)}): "
                  "the page's fallback is exercised, its 400s allowed", flush=True)
        # The page the server serves: the source tree's, or a stale copy from an older build?
        page_source = args.page_dir or os.path.join(ROOT, "Server/Sources/VisageServer/Page")
        for name in ("index.html", "app.js", "style.css"):
            with urllib.request.urlopen(base + ("/" if name == "index.html" else "/" + name), timeout=10) as response:
                served = response.read()
            with open(os.path.join(page_source, name), "rb") as f:
                if served != f.read():
                    print(f"NOTE  the server's {name} differs from {os.path.relpath(page_source, ROOT)}/{name}: "
                          "a build from before the last edit? (rebuild, or pass --page-dir)", flush=True)
        allowed = []   # (source, substring, status) of console entries the checks provoke
        if not head_pose:
            allowed.append(("network", "/v1/landmark?", "400"))

        driver = start_browser(clip, os.path.join(work, "profile"))
        open_page(driver, base)
        check(driver.title == "Visage", f"the page's title is {driver.title!r}")
        passed("page loaded, title Visage")

        # Photo.
        t = time.time()
        give_file(driver, PHOTO)
        url, result = page_and_server_agree(driver, PHOTO, "image/png", "photo")
        points = len(result["faceLandmarks"][0])
        shapes = result.get("faceBlendshapes") or []
        check(points == 478, f"photo: {points} landmarks, not 478")
        check(shapes and len(shapes[0]) == 52, "photo: no 52 blendshapes in the result")
        bars = driver.execute_script("return document.querySelectorAll('#faces .bars .bar').length;")
        check(bars >= 10, f"photo: the panel shows {bars} blendshape bars")
        if head_pose:
            check("faceHeadPoses" in result, "photo: no faceHeadPoses, though the server takes head-pose")
            angles = driver.execute_script("return document.querySelectorAll('#faces .angles').length;")
            check(angles >= 1, "photo: the panel shows no head angles")
        passed(f"photo: the page shows {face_count(result)} face(s), as the server answers {url.split('?')[0]} "
               f"directly; 478 landmarks, 52 blendshapes ({time.time() - t:.1f} s)")
        screenshot(driver, args.screenshots, "photo.png", args.screenshot_scale)

        # A broken file: the server's words in the banner.
        t = time.time()
        broken = os.path.join(work, "broken.jpg")
        with open(broken, "wb") as f:
            f.write(b"\xff\xd8\xff\xe0" + bytes((i * 97 + 13) % 256 for i in range(2000)))
        give_file(driver, broken)
        message = wait_for(driver, "window.visage.lastError", 30, "the broken file's error")
        banner = driver.find_element("id", "banner")
        check(banner.is_displayed(), "broken file: the error banner is not shown")
        shown_text = driver.find_element("id", "banner-text").text
        with open(broken, "rb") as f:
            status, body = post(driver.execute_script("return window.visage.lastRequest;"), f.read(), "image/jpeg")
        expected = body.get("error", {}).get("message")
        check(status >= 400 and expected, f"broken file: the server answered {status} {body}")
        check(shown_text == expected == message,
              f"broken file: the banner says {shown_text!r}, the server {expected!r}")
        allowed.append(("network", "/v1/landmark?", str(status)))
        passed(f"broken file: the banner shows the server's {status} message {expected!r} ({time.time() - t:.1f} s)")
        screenshot(driver, args.screenshots, "broken.png", args.screenshot_scale)

        # Camera: Chromium's fake camera plays the clip.
        t = time.time()
        outcome = driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "window.visage.startCamera().then(() => done('ok'), (e) => done('error: ' + (e && e.message || e)));")
        check(outcome == "ok", f"camera: startCamera() failed: {outcome}")
        want = args.live_frames
        wait_for(driver, f"window.visage.framesAnswered >= {want} && window.visage.lastResult"
                         " && (window.visage.lastResult.faceLandmarks || []).length >= 1", 90,
                 f"{want} answered live frames with the face found", interval=0.5)
        answered = driver.execute_script("return window.visage.framesAnswered;")
        status_line = driver.find_element("id", "status").text
        live = driver.execute_script("return window.visage.lastResult;")
        check(str(live.get("source", "")).startswith("frame#"), f"camera: the last result is not a live frame: {live.get('source')}")
        check(max(live["width"], live["height"]) <= 640, f"camera: frames sent at {live['width']}×{live['height']}")
        check("frames/s" in status_line and "round trip" in status_line, f"camera: no live statistics shown ({status_line!r})")
        passed(f"camera: {answered} frames answered in {time.time() - t:.1f} s, face found; "
               f"{live['width']}×{live['height']} frames; page says {status_line!r}")
        screenshot(driver, args.screenshots, "camera.png", args.screenshot_scale)
        driver.execute_script("window.visage.stopCamera();")
        check(not driver.find_element("id", "banner").is_displayed(),
              f"camera: an error is shown after stopping: {driver.find_element('id', 'banner-text').text!r}")

        entries = log_entries(driver)

        # API key: a server with keys; the page asks for one on 401, then works with it.
        t = time.time()
        key_file = os.path.join(work, "keys.txt")
        with open(key_file, "w") as f:
            f.write("browser-check-key\n")
        keyed_server = server_harness.start_server(args.binary, page_args + ["--api-key-file", key_file],
                                                   "browser-keyed", timeout=60)
        keyed = keyed_server.base
        open_page(driver, keyed)
        give_file(driver, PHOTO)
        message = wait_for(driver, "window.visage.lastError", 30, "the 401's message")
        check(driver.find_element("id", "key-form").is_displayed(), "API key: no key field after a 401")
        status, body = post(driver.execute_script("return window.visage.lastRequest;"), b"", "image/png")
        check(status == 401 and body["error"]["message"] == message,
              f"API key: the banner says {message!r}; the server answers {status} {body}")
        field = driver.find_element("id", "api-key")
        field.clear()
        field.send_keys("browser-check-key\n")
        result = wait_for(driver, "window.visage.lastResult", 30, "the photo's result with the key")
        check(face_count(result) >= 1, "API key: no face with the key")
        outcome = driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "window.visage.startCamera().then(() => done('ok'), (e) => done('error: ' + (e && e.message || e)));")
        check(outcome == "ok", f"API key: the live stream did not open with ?key=: {outcome}")
        wait_for(driver, "window.visage.framesAnswered >= 3", 30, "live frames with the key", interval=0.3)
        driver.execute_script("window.visage.stopCamera();")
        stored = driver.execute_script("return sessionStorage.getItem('visage.apiKey');")
        check(stored == "browser-check-key", f"API key: sessionStorage holds {stored!r}")
        allowed.append(("network", "/v1/landmark?", "401"))
        entries += log_entries(driver)
        keyed_server.stop()
        passed(f"API key: 401 opens the key field with the server's message {message!r}; with the key, "
               f"photo and live stream work ({time.time() - t:.1f} s)")

        # Group photo with the page's defaults: the automatic detector finds no face at short
        # range and searches every scale; the status line says so.
        if not args.skip_group:
            t = time.time()
            open_page(driver, base)
            give_file(driver, CROWD)
            url, result = page_and_server_agree(driver, CROWD, "image/jpeg", "group photo with the defaults")
            status_line = driver.find_element("id", "status").text
            check("detector-range=all" in url and "automatic: every scale" in status_line,
                  f"group photo with the defaults: not searched at every scale ({url}; {status_line!r})")
            check(face_count(result) >= 2, f"group photo with the defaults: {face_count(result)} faces")
            passed(f"group photo with the defaults: short range found none, every scale {face_count(result)} "
                   f"faces, and the status says so ({time.time() - t:.1f} s)")
            screenshot(driver, args.screenshots, "group-automatic.png", args.screenshot_scale)
            entries += log_entries(driver)

        # Group photo, on a fresh page with the preset.
        if not args.skip_group:
            t = time.time()
            open_page(driver, base)
            driver.find_element("id", "preset-group").click()
            give_file(driver, CROWD)
            url, result = page_and_server_agree(driver, CROWD, "image/jpeg", "group photo")
            check("detector-range=all" in url and "any-rotation=true" in url,
                  f"group photo: the preset did not ask for every scale and any rotation: {url}")
            passed(f"group photo: the page shows {face_count(result)} faces, as the server answers "
                   f"({time.time() - t:.1f} s)")
            screenshot(driver, args.screenshots, "group.png", args.screenshot_scale)
            entries += log_entries(driver)

        # The console: nothing SEVERE beyond what the checks provoked.
        severe = []
        for entry in entries:
            if entry.get("level") != "SEVERE":
                continue
            text = entry.get("message", "")
            if any(entry.get("source") == source and part in text and code in text for source, part, code in allowed):
                continue
            severe.append(f"[{entry.get('source')}] {text}")
        check(not severe, "the browser console has SEVERE entries:\n  " + "\n  ".join(severe))
        passed(f"browser console: no unexpected SEVERE entry ({len(entries)} entries in all)")
    except (CheckFailed, server_harness.ServerError) as failure:
        print(f"FAIL  {failure}", flush=True)
        if driver is not None:
            try:
                for entry in log_entries(driver):
                    print(f"      console {entry.get('level')} [{entry.get('source')}] {entry.get('message')}")
                screenshot(driver, args.screenshots, "failure.png", args.screenshot_scale)
            except Exception:  # noqa: BLE001 — the failure is already reported
                pass
        return 1
    finally:
        if driver is not None:
            driver.quit()
    print(f"all checks passed in {time.time() - started:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
