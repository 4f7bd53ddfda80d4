// What the pages know of the suite (GET /api/config) and how they call the emulators: straight to each
// emulator's own endpoints, as an administrator (`Bearer owner`), the way the official UI does.

let config = null;

/** The suite's config: `{projectId, emulators: {name: {host, port}}}`, fetched once. */
export async function loadConfig() {
  if (!config) {
    const response = await fetch('/api/config');
    if (!response.ok) throw new Error(`GET /api/config answered ${response.status}`);
    config = await response.json();
  }
  return config;
}

/** The config, once loaded. */
export function currentConfig() { return config; }

/** Whether `name` runs. */
export function runs(name) { return Boolean(config && config[name]); }

/** `http://host:port` of a running emulator; a wildcard host is reached through the page's own host. */
export function origin(name) {
  const emulator = config && config[name];
  if (!emulator) throw new Error(`The ${name} emulator is not running.`);
  let host = emulator.host;
  if (host === '0.0.0.0' || host === '::' || host === '[::]') host = location.hostname;
  if (host.includes(':') && !host.startsWith('[')) host = `[${host}]`;
  return `http://${host}:${emulator.port}`;
}

/** An error an emulator answered, with its message. */
export class APIError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

/**
 * Calls `path` on emulator `name` as an administrator; JSON in and out. Throws `APIError` with the
 * emulator's own message when it answers an error.
 */
export async function call(name, path, { method = 'GET', body, headers = {}, raw = false } = {}) {
  const init = { method, headers: { Authorization: 'Bearer owner', ...headers } };
  if (body !== undefined) {
    if (body instanceof Blob || body instanceof ArrayBuffer || typeof body === 'string') {
      init.body = body;
    } else {
      init.body = JSON.stringify(body);
      init.headers['Content-Type'] = 'application/json';
    }
  }
  const response = await fetch(origin(name) + path, init);
  if (raw) return response;
  const text = await response.text();
  if (!response.ok) throw new APIError(response.status, answerMessage(text, response.statusText));
  return text ? JSON.parse(text) : null;
}

/**
 * The message of an error answer's text: Google's envelope (`{"error": {"message"}}`), the Realtime Database's
 * (`{"error": "…"}`) or a plain `{"message"}`; else the text itself, else `fallback`.
 */
export function answerMessage(text, fallback) {
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = null; }
  const message = (json && (json.error?.message || json.error || json.message)) || text || fallback;
  return typeof message === 'string' ? message : JSON.stringify(message);
}

/** Saves `blob` as a file named `name` (a download from a blob: URL, revoked once the download has it). */
export function saveBlob(blob, name) {
  const url = URL.createObjectURL(blob);
  Object.assign(document.createElement('a'), { href: url, download: name }).click();
  // The download reads the URL after this task: revoked at once, it would find nothing.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** Escapes text for HTML. */
export function escapeHTML(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

/** Tagged template that escapes every interpolated value unless it is `html.raw(...)`. */
export function html(strings, ...values) {
  let out = strings[0];
  values.forEach((value, index) => {
    out += (value && value.__html !== undefined) ? value.__html
      : Array.isArray(value) ? value.map((v) => (v && v.__html !== undefined ? v.__html : escapeHTML(v))).join('')
      : escapeHTML(value ?? '');
    out += strings[index + 1];
  });
  return { __html: out };
}
html.raw = (text) => ({ __html: text });

/** Shows a short message in the corner; `bad` for errors. */
export function toast(message, bad = false) {
  const box = document.getElementById('toast');
  const item = document.createElement('div');
  item.textContent = message;
  if (bad) item.className = 'bad';
  box.append(item);
  setTimeout(() => item.remove(), bad ? 8000 : 4000);
}

/**
 * Opens a modal dialog with `content` (an `html` value) and resolves with its form's values, or null.
 * `validate(values, form)` may answer a message that keeps it open; `commit(values)`, when given, is awaited
 * before it closes, and what it throws is shown in the dialog, which stays open with what was typed.
 */
export function dialog(title, content, { submit = 'Save', validate, commit } = {}) {
  return new Promise((resolve) => {
    const element = document.createElement('dialog');
    element.innerHTML = html`<form method="dialog"><h2>${title}</h2>${content}
      <p class="error" role="alert" data-error></p>
      <div class="actions"><button type="button" value="cancel" data-cancel>Cancel</button>
      <button class="primary" value="ok">${submit}</button></div></form>`.__html;
    document.body.append(element);
    const form = element.querySelector('form');
    const finish = (value) => { element.close(); element.remove(); resolve(value); };
    element.querySelector('[data-cancel]').addEventListener('click', () => finish(null));
    element.addEventListener('cancel', (event) => { event.preventDefault(); finish(null); });
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const values = Object.fromEntries(new FormData(form).entries());
      form.querySelectorAll('input[type=checkbox]').forEach((box) => { values[box.name] = box.checked; });
      const error = element.querySelector('[data-error]');
      const problem = validate ? validate(values, form) : null;
      if (problem) { error.textContent = problem; return; }
      if (commit) {
        const buttons = form.querySelectorAll('button');
        buttons.forEach((button) => { button.disabled = true; });
        try {
          await commit(values);
        } catch (thrown) {
          error.textContent = thrown.message;
          return;
        } finally {
          buttons.forEach((button) => { button.disabled = false; });
        }
      }
      finish(values);
    });
    element.showModal();
    const first = form.querySelector('[autofocus]') || form.querySelector('input:not([readonly]), select, textarea');
    if (first) first.focus();
  });
}

/**
 * Replaces what `element` holds with `content` (an `html` value), keeping the keyboard focus on the control
 * that had it when that control is drawn again (found by its id, else by its tag, data attributes, name,
 * label and link), so live redraws never throw a keyboard user back to the top of the page.
 */
export function replaceHTML(element, content) {
  const focused = document.activeElement;
  let selector = null;
  if (focused && focused !== element && element.contains(focused)) {
    selector = focused.id ? `#${CSS.escape(focused.id)}`
      : focused.tagName.toLowerCase() + [...focused.attributes]
        .filter((a) => a.name.startsWith('data-') || ['name', 'aria-label', 'href'].includes(a.name))
        .map((a) => `[${a.name}="${CSS.escape(a.value)}"]`).join('');
  }
  element.innerHTML = content.__html;
  if (selector) element.querySelector(selector)?.focus({ preventScroll: true });
}

/**
 * Follows a live log of the UI API (`/api/requests`, `/api/logs`): each server-sent `event` is parsed and
 * appended to `entries` (the newest 5,000 kept), and `redraw` runs once per animation frame at most. It
 * stops by itself once `scope` (the page's element) has left the document. Returns the EventSource, to
 * close when the page is left.
 */
export function followLog(url, event, entries, redraw, scope) {
  let pending = false;
  const source = new EventSource(url);
  source.addEventListener(event, (message) => {
    if (!scope.isConnected) { source.close(); return; }
    entries.push(JSON.parse(message.data));
    if (entries.length > 5000) entries.splice(0, entries.length - 5000);
    if (!pending) {
      pending = true;
      requestAnimationFrame(() => { pending = false; redraw(); });
    }
  });
  return source;
}

/**
 * Runs `refresh` again and again, `interval` ms apart, or further apart when it takes long (at most a quarter
 * of the time is spent in it), skipping turns while a dialog is open (a redraw would take its input away).
 * It stops by itself once `scope` (the page's element) has left the document, so a page left before its
 * first draw finished leaves nothing running. Returns the function that stops it, for when the page is left.
 */
export function refreshEvery(interval, refresh, scope) {
  let timer = null;
  let stopped = false;
  const next = (delay) => {
    timer = setTimeout(async () => {
      if (!scope.isConnected) stopped = true;
      if (stopped) return;
      const started = performance.now();
      if (!document.querySelector('dialog[open]')) await refresh().catch(() => {});
      if (!stopped) next(Math.max(interval, 4 * (performance.now() - started)));
    }, delay);
  };
  next(interval);
  return () => { stopped = true; clearTimeout(timer); };
}
