// Visage page: sends a photo, or camera frames over a WebSocket, to visage-server and draws
// what comes back. Plain ES2020 with no dependencies: the server serves this file as it is.
// The result objects are those of `visage --output json` (docs/cli.md); the routes are in
// docs/server.md.
'use strict';

const $ = (id) => document.getElementById(id);

/** The test hook (and a handle for the console): the last result drawn, live counts, errors. */
const visage = (window.visage = {
  lastResult: null,
  lastError: null,
  lastRequest: null,   // the URL of the last photo request, so a test can repeat it
  framesAnswered: 0,   // live replies that were results (not dropped, not errors), since startCamera()
  startCamera: () => startCamera(),
  stopCamera: () => stopCamera(),
});

const state = {
  photo: null,        // {blob, name, bitmap}: the photo shown when the camera is off
  shown: null,        // the result drawn now (photo or live)
  request: null,      // AbortController of the photo request in flight
  headPose: true,     // false once the server refused `head-pose` (a server from before it)
  mesh: null,         // mesh-connections.json: {groupName: [[a, b], ...]}
  camera: null,       // the live session while the camera runs (see startCamera)
  panelDrawnAt: 0,
  panelTimer: 0,
  downloadURL: null,
};

const FACE_COLOURS = ['#2456d6', '#d6246e', '#0f9d6b', '#d97706', '#7c3aed', '#0891b2', '#c2410c', '#4d7c0f'];
const faceColour = (i) => FACE_COLOURS[i % FACE_COLOURS.length];
const LIVE_LONG_SIDE = 640;   // frames are scaled down to this before they are sent
const KEY_STORAGE = 'visage.apiKey';

// ---- Options and requests ------------------------------------------------------------

/**
 * The query string of the chosen task's options (`live` adds the stream's own). `pass` is the
 * automatic detector's choice for this request (`everyScale`), or nothing: the controls as set.
 * "automatic" asks for the short range, which a live stream keeps.
 */
function taskQuery(task, live, pass = {}) {
  const q = new URLSearchParams();
  if (live) q.set('task', task);
  const chosen = $('range').value;
  const range = chosen !== 'auto' ? chosen : pass.everyScale ? 'all' : 'short';
  // The every-scale search multiplies three scores: 0.4 balances it (docs/every-face.md); and a
  // group photo has more faces than a portrait's default count.
  const defaults = chosen === 'auto' && pass.everyScale;
  const confidence = defaults && $('min-confidence').value === '0.5' ? '0.4' : $('min-confidence').value || '0.5';
  const faces = defaults ? String(Math.max(100, Number($('num-faces').value) || 0)) : $('num-faces').value || '5';
  if (task === 'landmark') {
    q.set('num-faces', faces);
    q.set('detector-range', range);
    q.set('min-face-detection-confidence', confidence);
    q.set('blendshapes', 'true');
    if (!live) q.set('transformation-matrices', 'true');
    if (state.headPose) q.set('head-pose', 'true');
  } else if (task === 'detect') {
    q.set('range', range);
    q.set('min-detection-confidence', confidence);
  } else {
    q.set('performance', $('performance').value);
    q.set('max-faces', faces);
    q.set('landmarks', 'true');
    q.set('contours', 'true');
    q.set('classification', 'true');
    if (live) q.set('tracking', 'true');
  }
  q.set('any-rotation', $('any-rotation').checked ? 'true' : 'false');
  return q;
}

function storedKey() {
  try { return sessionStorage.getItem(KEY_STORAGE) || ''; } catch (_) { return ''; }
}

function requestHeaders(type) {
  const headers = { 'Content-Type': type === 'image/png' || type === 'image/jpeg' ? type : 'application/octet-stream' };
  const key = storedKey();
  if (key) headers['x-api-key'] = key;
  return headers;
}

/** The server's words from an error envelope, `{"error": {"code", "status", "message"}}`. */
function errorMessage(body) {
  const error = body && body.error;
  if (!error) return null;
  if (typeof error === 'string') return error;
  return error.message || error.status || `error ${error.code}`;
}

/** A response's JSON, or an envelope that says what came instead (a proxy's HTML page, say). */
async function readJSON(response) {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch (_) {
    const what = response.ok ? 'an answer that is not JSON' : `HTTP ${response.status} ${response.statusText}`;
    return { error: { code: response.status, message: `The server sent ${what}.` } };
  }
}

/** POSTs an image to `/v1/<task>`; retries once without `head-pose` if the server predates it. */
async function postImage(task, blob, signal, pass = {}) {
  for (;;) {
    const url = `v1/${task}?${taskQuery(task, false, pass)}`;
    visage.lastRequest = new URL(url, document.baseURI).href;
    const response = await fetch(url, { method: 'POST', body: blob, headers: requestHeaders(blob.type), signal });
    const body = await readJSON(response);
    if (response.status === 400 && task === 'landmark' && state.headPose && /[`'"]head-pose[`'"]/.test(errorMessage(body) || '')) {
      state.headPose = false;
      continue;
    }
    return { status: response.status, ok: response.ok, body };
  }
}

// ---- Errors ----------------------------------------------------------------------------

function showError(message, title = 'Error') {
  visage.lastError = message;
  $('banner-title').textContent = title;
  $('banner-text').textContent = message;
  $('banner').hidden = false;
}

function clearError() {
  $('banner').hidden = true;
}

/** An HTTP failure: the server's message; a 401 also opens the key field. */
function showHTTPError(status, body) {
  const message = errorMessage(body) || `HTTP ${status}`;
  if (status === 401) {
    showKeyForm();
    showError(message, 'API key needed');
  } else {
    showError(message, `Server error ${status}`);
  }
}

function showKeyForm() {
  $('key-form').hidden = false;
  $('api-key').value = storedKey();
  $('api-key').focus();
}

// ---- Photos ----------------------------------------------------------------------------

async function openPhoto(file) {
  if (!file) return;
  if (state.camera) stopCamera();
  clearError();
  // Decoded by the browser only to be shown; the server decodes the same bytes itself. An
  // image the browser cannot decode is still sent, so that the server's message is shown.
  let bitmap = null;
  try {
    bitmap = await createImageBitmap(file, { imageOrientation: 'from-image' });
  } catch (_) {
    try { bitmap = await createImageBitmap(file); } catch (_) { bitmap = null; }
  }
  if (state.photo && state.photo.bitmap) state.photo.bitmap.close();
  state.photo = { blob: file, name: file.name || 'the photo', bitmap };
  show(null);
  layout();
  await runPhoto();
}

/** Sends the current photo with the current options; a newer request supersedes this one. */
async function runPhoto() {
  const photo = state.photo;
  if (!photo || state.camera) return;
  if (state.request) state.request.abort();
  const controller = new AbortController();
  state.request = controller;
  const task = $('task').value;
  photo.result = null;
  setStatus(`${photo.name}: asking /v1/${task}…`);
  show(null);
  const started = performance.now();
  let reply = null;
  let failure = null;
  let used = '';
  try {
    reply = await postImage(task, photo.blob, controller.signal);
    // Automatic: when the short range finds no face, or only faces under a tenth of the
    // picture's width (a group photo's, most of which it misses), every scale is searched.
    if ($('range').value === 'auto' && task !== 'analyze' && reply.ok && !reply.body.error) {
      used = ' · short range';
      if (needsEveryScale(reply.body)) {
        setStatus(`${photo.name}: short range found ${faceCountText(reply.body)}; searching every scale…`);
        reply = await postImage(task, photo.blob, controller.signal, { everyScale: true });
        used = ' · automatic: every scale';
      }
    }
  } catch (error) {
    failure = error;
  }
  if (state.request !== controller) return;   // superseded, or the camera started
  state.request = null;
  if (failure) {
    if (failure.name === 'AbortError') return;
    show(null);
    setStatus(`${photo.name}: no result`);
    showError(`The server could not be reached (${failure.message}).`, 'No connection');
  } else if (!reply.ok || reply.body.error) {
    show(null);
    setStatus(`${photo.name}: no result`);
    showHTTPError(reply.status, reply.body);
  } else {
    clearError();
    const result = reply.body;
    photo.result = result;
    show(result);
    if (!photo.bitmap) layout();  // no picture of its own: size the frame from the result
    const ms = Math.round(performance.now() - started);
    setStatus(`${photo.name} · ${result.width}×${result.height} · ${faceCountText(result)}${used} · ${ms} ms`);
    offerDownload(result);
  }
}

/** Whether a short-range answer calls for the every-scale search: no face, or all small. */
function needsEveryScale(result) {
  const widths = (result.detections || []).map((d) => d.boundingBox.width / result.width);
  for (const face of result.faceLandmarks || []) {
    const xs = face.map((p) => p.x);
    widths.push(Math.max(...xs) - Math.min(...xs));
  }
  return widths.length === 0 || Math.max(...widths) < 0.1;
}

function offerDownload(result) {
  if (state.downloadURL) URL.revokeObjectURL(state.downloadURL);
  state.downloadURL = URL.createObjectURL(new Blob([JSON.stringify(result, null, 1)], { type: 'application/json' }));
  $('download').href = state.downloadURL;
}

// ---- Camera and the live stream --------------------------------------------------------

/**
 * Starts the camera and the WebSocket; resolves once frames are flowing, rejects (after
 * showing why) if the camera or the stream cannot start.
 */
async function startCamera() {
  if (state.camera) return;
  clearError();
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    const message = 'This browser gives no camera to this page: the camera needs https, or http on localhost.';
    showError(message, 'No camera');
    throw new Error(message);
  }
  if (state.request) state.request.abort();
  state.request = null;
  visage.framesAnswered = 0;
  const camera = (state.camera = {
    stream: null, socket: null, inFlight: false, sentAt: 0, stopping: false,
    answered: [], rtt: null, dropped: 0, lastReplyWasError: false,
    grab: document.createElement('canvas'),
  });
  setCameraButton(true);
  try {
    const stream = await navigator.mediaDevices.getUserMedia({
      video: { width: { ideal: 640 }, height: { ideal: 480 } }, audio: false,
    });
    if (state.camera !== camera) {
      // Stopped while the browser asked for the camera: let it go at once.
      stream.getTracks().forEach((track) => track.stop());
      throw new Error('the camera was stopped');
    }
    camera.stream = stream;
    const video = $('video');
    video.srcObject = camera.stream;
    await video.play();
    show(null);
    layout();
    setStatus('Camera on: connecting to the server…');
    await openSocket(camera);
  } catch (error) {
    if (state.camera === camera) {
      if (!(error instanceof SocketError)) showError(cameraErrorText(error), 'Camera');
      stopCamera(true);
    }
    throw error;
  }
}

function cameraErrorText(error) {
  switch (error && error.name) {
    case 'NotAllowedError': return 'The camera was not allowed: allow it in the browser\'s site settings and try again.';
    case 'NotFoundError': return 'No camera was found.';
    case 'NotReadableError': return 'The camera is in use by another program, or could not be opened.';
    default: return `The camera could not start (${error && error.message ? error.message : error}).`;
  }
}

/** A live-stream failure that was already shown in the banner. */
class SocketError extends Error {}

/** Opens `/v1/live` for the current task; resolves when open, rejects if refused. */
function openSocket(camera) {
  const task = $('task').value;
  const query = taskQuery(task, true);
  const key = storedKey();
  // Browsers cannot set headers on a WebSocket: the key goes in the query.
  if (key) query.set('key', key);
  const url = new URL(`v1/live?${query}`, document.baseURI);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url.href);
    camera.socket = socket;
    let opened = false;
    socket.onopen = () => {
      opened = true;
      setStatus('Camera on: waiting for the first answer…');
      resolve();
      sendFrame(camera);
    };
    socket.onmessage = (event) => { if (camera.socket === socket) onReply(camera, event.data); };
    socket.onclose = async (event) => {
      if (camera.socket !== socket || camera.stopping) return;
      if (opened) {
        // The stream ended under us: a server error was already shown, else say why.
        if (!camera.lastReplyWasError) showError(closeText(event), 'Live stream closed');
        stopCamera(true);
        return;
      }
      // Refused at the upgrade (a bare 400): the same query on the POST route says why.
      try {
        const retry = await explainRefusal(task, query);
        if (retry && state.camera === camera) {
          openSocket(camera).then(resolve, reject);
          return;
        }
      } catch (_) {
        showError('The server refused the live stream, and could not be asked why.', 'Live stream refused');
      }
      if (state.camera === camera) stopCamera(true);
      reject(new SocketError(visage.lastError || 'the live stream was refused'));
    };
  });
}

/**
 * Asks the POST route why a stream was refused, with an empty body (options and the key are
 * checked before the body): shows the reason; returns true if the stream should be retried
 * (the server predates `head-pose`).
 */
async function explainRefusal(task, liveQuery) {
  const query = new URLSearchParams(liveQuery);
  for (const name of ['task', 'tracking', 'key']) query.delete(name);
  const response = await fetch(`v1/${task}?${query}`, { method: 'POST', headers: requestHeaders(''), body: '' });
  const body = await readJSON(response);
  const message = errorMessage(body) || '';
  if (response.status === 400 && state.headPose && /[`'"]head-pose[`'"]/.test(message)) {
    state.headPose = false;
    return true;
  }
  if (response.status === 401 || (response.status === 400 && !/empty/i.test(message))) {
    showHTTPError(response.status, body);
  } else {
    // Options and key are fine: the likely cause is the limit on open streams.
    showError('The server refused the live stream: it may have as many streams open as it allows (--max-live-streams). Try again shortly.', 'Live stream refused');
  }
  return false;
}

function closeText(event) {
  const reason = event.reason ? ` (${event.reason})` : '';
  switch (event.code) {
    case 1000: return `The server ended the live stream${reason}.`;
    case 1001: return `The server is shutting down or restarting${reason}.`;
    case 1006: return 'The connection to the server was lost.';
    case 1009: return `A frame was too large for the server${reason}.`;
    case 1011: return `The server hit an internal error${reason}.`;
    default: return `The live stream closed (code ${event.code})${reason}.`;
  }
}

function stopCamera(keepError = false) {
  const camera = state.camera;
  if (!camera) return;
  camera.stopping = true;
  state.camera = null;
  if (camera.socket && camera.socket.readyState <= WebSocket.OPEN) camera.socket.close(1000, 'camera stopped');
  if (camera.stream) camera.stream.getTracks().forEach((track) => track.stop());
  const video = $('video');
  video.pause();
  video.srcObject = null;
  setCameraButton(false);
  if (!keepError) clearError();
  // Back to the photo, with the result it had.
  const photo = state.photo;
  setStatus(photo && photo.result ? `${photo.name} · ${faceCountText(photo.result)}` : '');
  show(photo ? photo.result : null);
  layout();
}

function setCameraButton(on) {
  const button = $('camera');
  button.textContent = on ? 'Stop camera' : 'Start camera';
  button.classList.toggle('live', on);
}

/** Grabs the video's current picture, scaled down, and sends it as a JPEG: one in flight. */
async function sendFrame(camera) {
  const video = $('video');
  const socket = camera.socket;
  if (state.camera !== camera || camera.inFlight || !socket || socket.readyState !== WebSocket.OPEN) return;
  if (!video.videoWidth) {
    setTimeout(() => sendFrame(camera), 50);
    return;
  }
  camera.inFlight = true;
  const scale = Math.min(1, LIVE_LONG_SIDE / Math.max(video.videoWidth, video.videoHeight));
  const grab = camera.grab;
  grab.width = Math.round(video.videoWidth * scale);
  grab.height = Math.round(video.videoHeight * scale);
  grab.getContext('2d').drawImage(video, 0, 0, grab.width, grab.height);
  const blob = await new Promise((resolve) => grab.toBlob(resolve, 'image/jpeg', 0.8));
  if (state.camera !== camera || camera.socket !== socket) return;  // stopped, or a new stream owns the flow
  if (!blob || socket.readyState !== WebSocket.OPEN) {
    camera.inFlight = false;
    if (socket.readyState === WebSocket.OPEN) scheduleFrame(camera);  // no JPEG this time: try again
    return;
  }
  camera.sentAt = performance.now();
  socket.send(blob);
}

/** Waits for the next display frame (or 40 ms, in a tab that draws none), then sends. */
function scheduleFrame(camera) {
  let sent = false;
  const go = () => { if (!sent) { sent = true; sendFrame(camera); } };
  requestAnimationFrame(go);
  setTimeout(go, 40);
}

function onReply(camera, data) {
  if (state.camera !== camera) return;
  const now = performance.now();
  camera.inFlight = false;
  const rtt = now - camera.sentAt;
  camera.rtt = camera.rtt === null ? rtt : camera.rtt * 0.8 + rtt * 0.2;
  let reply;
  try {
    reply = JSON.parse(data);
  } catch (_) {
    reply = { error: { message: 'The server sent a reply that is not JSON.' } };
  }
  camera.lastReplyWasError = Boolean(reply.error);
  if (reply.error) {
    showError(errorMessage(reply), `Server error${reply.error.code ? ` ${reply.error.code}` : ''} (live)`);
  } else if (reply.dropped) {
    camera.dropped += 1;
  } else {
    visage.framesAnswered += 1;
    camera.answered.push(now);
    if (!$('banner').hidden && $('banner-title').textContent.endsWith('(live)')) clearError();
    show(reply, { live: true });
  }
  // Frames per second: results answered over the last two seconds.
  while (camera.answered.length && now - camera.answered[0] > 2000) camera.answered.shift();
  const span = camera.answered.length > 1 ? (now - camera.answered[0]) / 1000 : 0;
  const fps = span > 0 ? (camera.answered.length - 1) / span : 0;
  const dropped = camera.dropped ? ` · ${camera.dropped} dropped` : '';
  const faces = reply.error ? 'frame refused' : reply.dropped ? 'frame dropped' : faceCountText(reply);
  setStatus(`Live · ${fps.toFixed(1)} frames/s · round trip ${Math.round(camera.rtt)} ms · ${faces}${dropped}`);
  scheduleFrame(camera);
}

/** New options: restart the stream, or ask again about the photo. */
function optionsChanged() {
  updateTaskControls();
  const camera = state.camera;
  if (camera) {
    const old = camera.socket;
    camera.socket = null;          // its close is ours: not reported
    if (old) old.close(1000, 'options changed');
    camera.inFlight = false;
    camera.lastReplyWasError = false;
    openSocket(camera).catch(() => {});
  } else {
    runPhoto();
  }
}

// ---- Layout and drawing ----------------------------------------------------------------

/** Shows `result` (or nothing): the overlay, the panel, the test hook. */
function show(result, { live = false } = {}) {
  state.shown = result;
  if (result) visage.lastResult = result;
  drawOverlay();
  renderPanelSoon(live);
}

/** The picture's own size: the video's, the photo's, or the result's. */
function pictureSize() {
  if (state.camera) {
    const video = $('video');
    return video.videoWidth ? { w: video.videoWidth, h: video.videoHeight } : null;
  }
  if (state.photo && state.photo.bitmap) return { w: state.photo.bitmap.width, h: state.photo.bitmap.height };
  if (state.shown) return { w: state.shown.width, h: state.shown.height };
  return null;
}

/** Sizes a canvas to `w`×`h` CSS pixels at the screen's pixel density; returns its context. */
function sizeCanvas(canvas, w, h) {
  const dpr = window.devicePixelRatio || 1;
  const pw = Math.round(w * dpr);
  const ph = Math.round(h * dpr);
  if (canvas.width !== pw || canvas.height !== ph) {
    canvas.width = pw;
    canvas.height = ph;
  }
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);  // draw in CSS pixels
  return ctx;
}

/** Fits the picture to the stage (the width, and the window's height below the stage's top). */
function layout() {
  const size = pictureSize();
  const frame = $('frame');
  const placeholder = $('placeholder');
  placeholder.hidden = Boolean(size || state.camera);
  placeholder.textContent = state.photo && !state.photo.bitmap
    ? `The browser cannot show ${state.photo.name}` : 'Drop a photo here';
  frame.hidden = !size;
  $('video').hidden = !state.camera;
  $('photo').hidden = Boolean(state.camera);
  if (!size) return;
  const stage = $('stage');
  const top = stage.getBoundingClientRect().top + window.scrollY;
  const maxW = stage.clientWidth;
  // Room below for the status line and the legend, so the page does not scroll.
  const maxH = Math.max(280, window.innerHeight - top - 76);
  const scale = Math.min(maxW / size.w, maxH / size.h, 3);
  const w = Math.max(1, Math.floor(size.w * scale));
  const h = Math.max(1, Math.floor(size.h * scale));
  frame.style.width = `${w}px`;
  frame.style.height = `${h}px`;
  const ctx = sizeCanvas($('photo'), w, h);
  ctx.clearRect(0, 0, w, h);
  if (!state.camera && state.photo && state.photo.bitmap) {
    ctx.imageSmoothingQuality = 'high';
    ctx.drawImage(state.photo.bitmap, 0, 0, w, h);
  }
  drawOverlay();
}

const colourCache = new Map();

/** A colour from style.css's custom properties (`--mesh-left`, ...). */
function cssColour(name) {
  if (!colourCache.has(name)) {
    colourCache.set(name, getComputedStyle(document.documentElement).getPropertyValue(name).trim());
  }
  return colourCache.get(name);
}

function drawOverlay() {
  const frame = $('frame');
  const w = parseFloat(frame.style.width) || 0;
  const h = parseFloat(frame.style.height) || 0;
  const ctx = sizeCanvas($('overlay'), w, h);
  ctx.clearRect(0, 0, w, h);
  const r = state.shown;
  if (!r || !w || !r.width) return;
  const view = { ctx, w, h, sx: w / r.width, sy: h / r.height };
  (r.detections || []).forEach((d, i) => drawDetection(view, d, i));
  (r.faceLandmarks || []).forEach((points, i) => drawMesh(view, points, i));
  (r.faces || []).forEach((face, i) => drawAnalyzedFace(view, face, i));
}

/** A number in a rounded tag at (x, y): the face's number, as in the panel. */
function drawTag(view, text, x, y, colour) {
  const { ctx } = view;
  ctx.font = '600 12px system-ui, sans-serif';
  const tw = ctx.measureText(text).width + 10;
  const tx = Math.min(Math.max(0, x), view.w - tw);
  const ty = Math.min(Math.max(0, y - 20), view.h - 18);
  ctx.fillStyle = colour;
  ctx.beginPath();
  if (ctx.roundRect) ctx.roundRect(tx, ty, tw, 18, 4); else ctx.rect(tx, ty, tw, 18);
  ctx.fill();
  ctx.fillStyle = '#fff';
  ctx.textBaseline = 'middle';
  ctx.fillText(text, tx + 5, ty + 9.5);
}

function drawDetection(view, d, i) {
  const { ctx, sx, sy } = view;
  const box = d.boundingBox;
  const colour = faceColour(i);
  const size = Math.min(box.width * sx, box.height * sy);
  ctx.lineWidth = Math.max(1.5, Math.min(3, size / 60));
  ctx.strokeStyle = colour;
  ctx.strokeRect(box.originX * sx, box.originY * sy, box.width * sx, box.height * sy);
  ctx.fillStyle = '#fff';
  for (const k of d.keypoints || []) {
    ctx.beginPath();
    ctx.arc(k.x * view.w, k.y * view.h, Math.max(1.5, Math.min(4, size / 40)), 0, 2 * Math.PI);
    ctx.fill();
    ctx.strokeStyle = colour;
    ctx.lineWidth = 1;
    ctx.stroke();
  }
  const score = d.categories && d.categories[0] ? ` · ${d.categories[0].score.toFixed(2)}` : '';
  drawTag(view, `${i + 1}${score}`, box.originX * sx, box.originY * sy, colour);
}

// Mesh groups in drawing order: the faint tesselation first, the features over it.
const MESH_STYLE = [
  ['tesselation', '--mesh-tesselation', 0.5],
  ['faceOval', '--mesh-oval', 1.4],
  ['leftEyebrow', '--mesh-left', 1.4],
  ['rightEyebrow', '--mesh-right', 1.4],
  ['leftEye', '--mesh-left', 1.4],
  ['rightEye', '--mesh-right', 1.4],
  ['lips', '--mesh-lips', 1.4],
  ['leftIris', '--mesh-iris-left', 1.4],
  ['rightIris', '--mesh-iris-right', 1.4],
];

function drawMesh(view, points, i) {
  const { ctx, w, h } = view;
  let minX = Infinity, minY = Infinity, maxX = -Infinity;
  for (const p of points) {
    minX = Math.min(minX, p.x); maxX = Math.max(maxX, p.x); minY = Math.min(minY, p.y);
  }
  // Lines thin with the face, so a crowd's small faces are not buried in ink.
  const faceWidth = (maxX - minX) * w;
  const weight = Math.max(0.6, Math.min(1.8, faceWidth / 120));
  if (state.mesh) {
    ctx.lineJoin = 'round';
    for (const [group, colour, width] of MESH_STYLE) {
      const edges = state.mesh[group];
      if (!edges) continue;
      ctx.beginPath();
      for (const [a, b] of edges) {
        const p = points[a], q = points[b];
        if (!p || !q) continue;
        ctx.moveTo(p.x * w, p.y * h);
        ctx.lineTo(q.x * w, q.y * h);
      }
      ctx.strokeStyle = cssColour(colour);
      ctx.lineWidth = width * weight;
      ctx.stroke();
    }
  } else {
    // No edge tables (mesh-connections.json did not load): the points alone.
    ctx.fillStyle = cssColour('--mesh-oval');
    for (const p of points) ctx.fillRect(p.x * w - 0.75, p.y * h - 0.75, 1.5, 1.5);
  }
  drawTag(view, String(i + 1), minX * w, minY * h, faceColour(i));
}

// ML Kit contours: which are closed loops, and their colours.
const CONTOUR_STYLE = {
  face: ['--mesh-oval', true],
  leftEye: ['--mesh-left', true], rightEye: ['--mesh-right', true],
  leftEyebrowTop: ['--mesh-left', false], leftEyebrowBottom: ['--mesh-left', false],
  rightEyebrowTop: ['--mesh-right', false], rightEyebrowBottom: ['--mesh-right', false],
  upperLipTop: ['--mesh-lips', false], upperLipBottom: ['--mesh-lips', false],
  lowerLipTop: ['--mesh-lips', false], lowerLipBottom: ['--mesh-lips', false],
};

function drawAnalyzedFace(view, face, i) {
  const { ctx, sx, sy } = view;
  const colour = faceColour(i);
  const f = face.frame;
  const weight = Math.max(0.8, Math.min(2, (f.width * sx) / 100));
  ctx.strokeStyle = colour;
  ctx.lineWidth = 1.5 * weight;
  ctx.strokeRect(f.x * sx, f.y * sy, f.width * sx, f.height * sy);
  for (const [name, points] of Object.entries(face.contours || {})) {
    const [colourName, closed] = CONTOUR_STYLE[name] || ['--mesh-tesselation', false];
    ctx.beginPath();
    if (points.length === 1) {
      ctx.arc(points[0].x * sx, points[0].y * sy, 1.5 * weight, 0, 2 * Math.PI);   // a cheek: one point
    } else {
      points.forEach((p, j) => (j ? ctx.lineTo(p.x * sx, p.y * sy) : ctx.moveTo(p.x * sx, p.y * sy)));
      if (closed) ctx.closePath();
    }
    ctx.strokeStyle = cssColour(colourName) || '#fff';
    ctx.lineWidth = weight;
    ctx.stroke();
  }
  ctx.fillStyle = colour;
  for (const p of Object.values(face.landmarks || {})) {
    ctx.beginPath();
    ctx.arc(p.x * sx, p.y * sy, 2 * weight, 0, 2 * Math.PI);
    ctx.fill();
  }
  const id = face.trackingID !== undefined && face.trackingID !== null ? ` · id ${face.trackingID}` : '';
  drawTag(view, `${i + 1}${id}`, f.x * sx, f.y * sy, colour);
}

// ---- The faces panel -------------------------------------------------------------------

function faceCount(r) {
  if (!r) return 0;
  return (r.faceLandmarks || r.detections || r.faces || []).length;
}

function faceCountText(r) {
  const n = faceCount(r);
  return n === 1 ? '1 face' : `${n} faces`;
}

/** Live results arrive 20-100 times a second: the panel is rebuilt at most 8 times. */
function renderPanelSoon(live) {
  clearTimeout(state.panelTimer);
  const wait = live ? Math.max(0, 125 - (performance.now() - state.panelDrawnAt)) : 0;
  if (wait === 0) renderPanel();
  else state.panelTimer = setTimeout(renderPanel, wait);
}

/** A DOM element with properties and children (strings become text: nothing is parsed as HTML). */
function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (name === 'style') node.style.cssText = value;
    else node[name] = value;
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) node.append(child);
  }
  return node;
}

function renderPanel() {
  state.panelDrawnAt = performance.now();
  const r = state.shown;
  const summary = $('summary');
  const list = $('faces');
  const n = faceCount(r);
  summary.dataset.faces = String(n);
  // The JSON download is offered for a photo's result (a live one changes too fast).
  $('download').hidden = !(r && state.photo && r === state.photo.result && !state.camera);
  if (!r) {
    summary.textContent = state.camera ? 'Camera' : state.request ? 'Working…' : state.photo ? 'No result' : 'No picture yet';
    list.replaceChildren();
    return;
  }
  summary.textContent = n ? faceCountText(r) : 'No face found';
  const cards = [];
  if (r.faceLandmarks) {
    r.faceLandmarks.forEach((_, i) => cards.push(landmarkCard(r, i)));
  } else if (r.detections) {
    r.detections.forEach((d, i) => cards.push(detectionCard(d, i)));
  } else if (r.faces) {
    r.faces.forEach((face, i) => cards.push(analyzedCard(face, i)));
  }
  list.replaceChildren(...cards);
}

function cardHead(i, note) {
  return el('h3', {},
    el('span', { className: 'badge', style: `--c: ${faceColour(i)}` }, String(i + 1)),
    `Face ${i + 1}`,
    note ? el('small', {}, note) : null);
}

/** Pitch, yaw and roll in degrees (ML Kit's signs: x up, y toward the camera's right, z counter-clockwise). */
function anglesBlock(x, y, z) {
  const cell = (name, value, hint) => el('div', { title: hint },
    el('dt', {}, name), el('dd', {}, `${value < 0 ? '\u2212' : '+'}${Math.abs(value).toFixed(1)}°`));
  return el('dl', { className: 'angles' },
    cell('pitch', x, 'x: positive when the face looks up'),
    cell('yaw', y, 'y: positive when the face turns toward the camera\'s right'),
    cell('roll', z, 'z: positive when the face turns counter-clockwise in the picture'));
}

/** Score bars: `rows` are [name, score 0...1]; `strong` marks the highest. */
function barsBlock(rows, compact, strong = 0) {
  const cells = [];
  rows.forEach(([name, score], j) => {
    const cls = j < strong ? ' strong' : '';
    cells.push(
      el('span', { className: `name${cls}`, title: name }, name),
      el('span', { className: 'bar' }, el('i', { style: `width: ${(Math.max(0, Math.min(1, score)) * 100).toFixed(1)}%` })),
      el('span', { className: `value${cls}` }, score.toFixed(2)));
  });
  return el('div', { className: compact ? 'bars compact' : 'bars' }, cells);
}

function landmarkCard(r, i) {
  const pose = r.faceHeadPoses && r.faceHeadPoses[i];
  const shapes = r.faceBlendshapes && r.faceBlendshapes[i];
  // `faceBlendshapes[i]` is the list of categories (`--output json`), or MediaPipe's
  // `{categories: [...]}`: both are read.
  const categories = Array.isArray(shapes) ? shapes : (shapes && shapes.categories) || [];
  const rows = categories.map((c) => [c.categoryName || c.displayName || `#${c.index}`, c.score]);
  let bars = null;
  let more = null;
  if (rows.length) {
    if ($('all-blendshapes').checked) {
      bars = barsBlock(rows, true);
    } else {
      // The ten strongest, without `_neutral` (the absence of the others).
      const top = rows.filter(([name]) => name !== '_neutral').sort((a, b) => b[1] - a[1]).slice(0, 10);
      bars = barsBlock(top, false, 3);
      more = el('p', { className: 'more' }, `the 10 strongest of ${rows.length} blendshapes`);
    }
  }
  return el('article', { className: 'face' },
    cardHead(i, `${r.faceLandmarks[i].length} landmarks`),
    pose ? anglesBlock(pose.x, pose.y, pose.z) : null,
    bars, more);
}

function detectionCard(d, i) {
  const facts = [];
  if (d.categories && d.categories[0]) facts.push(`score ${d.categories[0].score.toFixed(2)}`);
  if (typeof d.rotation === 'number') facts.push(`in-plane turn ${d.rotation.toFixed(1)}°`);
  if (typeof d.facePresence === 'number') facts.push(`presence ${d.facePresence.toFixed(2)}`);
  const b = d.boundingBox;
  facts.push(`box ${b.width}×${b.height} px at (${b.originX}, ${b.originY})`);
  return el('article', { className: 'face' }, cardHead(i), el('p', { className: 'facts' }, facts.join(' · ')));
}

function analyzedCard(face, i) {
  const rows = [];
  if (typeof face.smilingProbability === 'number') rows.push(['smiling', face.smilingProbability]);
  if (typeof face.leftEyeOpenProbability === 'number') rows.push(['left eye open', face.leftEyeOpenProbability]);
  if (typeof face.rightEyeOpenProbability === 'number') rows.push(['right eye open', face.rightEyeOpenProbability]);
  const f = face.frame;
  const note = face.trackingID !== undefined && face.trackingID !== null ? `tracking id ${face.trackingID}` : null;
  return el('article', { className: 'face' },
    cardHead(i, note),
    anglesBlock(face.headEulerAngleX, face.headEulerAngleY, face.headEulerAngleZ),
    rows.length ? barsBlock(rows, false) : null,
    el('p', { className: 'facts' }, `frame ${Math.round(f.width)}×${Math.round(f.height)} px at (${Math.round(f.x)}, ${Math.round(f.y)})`));
}

// ---- Controls --------------------------------------------------------------------------

function setStatus(text) {
  $('status').textContent = text;
}

/** Shows the controls that apply to the chosen task (`data-tasks="detect landmark"`). */
function updateTaskControls() {
  const task = $('task').value;
  for (const node of document.querySelectorAll('[data-tasks]')) {
    node.hidden = !node.dataset.tasks.split(' ').includes(task);
  }
}

function applyPreset(group) {
  $('range').value = group ? 'all' : 'short';
  $('performance').value = group ? 'accurate' : 'fast';
  $('any-rotation').checked = group;
  $('num-faces').value = group ? '100' : '5';
  // The every-scale search multiplies three scores: 0.4 balances it (docs/every-face.md).
  $('min-confidence').value = group ? '0.4' : '0.5';
  optionsChanged();
}

function setUp() {
  $('file').addEventListener('change', (event) => {
    const file = event.target.files[0];
    event.target.value = '';   // so that choosing the same file again is a change
    openPhoto(file);
  });
  $('camera').addEventListener('click', () => {
    if (state.camera) stopCamera();
    else startCamera().catch(() => {});  // shown in the banner already
  });
  for (const id of ['task', 'range', 'performance', 'num-faces', 'min-confidence', 'any-rotation']) {
    $(id).addEventListener('change', optionsChanged);
  }
  $('all-blendshapes').addEventListener('change', () => renderPanel());
  $('preset-portrait').addEventListener('click', () => applyPreset(false));
  $('preset-group').addEventListener('click', () => applyPreset(true));
  $('banner-close').addEventListener('click', clearError);
  $('key-form').addEventListener('submit', (event) => {
    event.preventDefault();
    try { sessionStorage.setItem(KEY_STORAGE, $('api-key').value.trim()); } catch (_) { /* storage off */ }
    clearError();
    if (state.camera) optionsChanged();
    else runPhoto();
  });
  if (storedKey()) $('key-form').hidden = false;

  // A photo dropped anywhere on the page.
  document.addEventListener('dragover', (event) => {
    event.preventDefault();
    document.body.classList.add('dragging');
  });
  document.addEventListener('dragleave', (event) => {
    if (!event.relatedTarget) document.body.classList.remove('dragging');
  });
  document.addEventListener('drop', (event) => {
    event.preventDefault();
    document.body.classList.remove('dragging');
    const file = event.dataTransfer && event.dataTransfer.files[0];
    if (file) openPhoto(file);
  });

  // Re-fit when the stage's width changes (the window, or the panel moving below). Only the
  // width: the stage's height follows the picture, and reacting to it would loop.
  let stageWidth = 0;
  const refit = () => {
    const width = $('stage').clientWidth;
    if (width !== stageWidth) { stageWidth = width; layout(); }
  };
  window.addEventListener('resize', layout);
  if (window.ResizeObserver) new ResizeObserver(() => requestAnimationFrame(refit)).observe($('stage'));
  $('video').addEventListener('resize', layout);   // the camera's size is known, or changed

  updateTaskControls();
  renderPanel();
  fetch('mesh-connections.json')
    .then((response) => (response.ok ? response.json() : Promise.reject(new Error(`HTTP ${response.status}`))))
    .then((mesh) => { state.mesh = mesh; drawOverlay(); })
    .catch((error) => showError(`The mesh's drawing tables did not load (${error.message}): landmarks are drawn as points.`, 'Page'));
}

setUp();
