// Firestore values (proto3 JSON, as REST answers them): shown by type, edited through typed inputs.
import { html } from './api.js';

/** The types a field can be given in the editor, with their proto3 JSON keys. */
export const types = [
  ['string', 'stringValue'], ['number', null], ['boolean', 'booleanValue'], ['null', 'nullValue'],
  ['timestamp', 'timestampValue'], ['geopoint', 'geoPointValue'], ['reference', 'referenceValue'],
  ['bytes', 'bytesValue'], ['map', 'mapValue'], ['array', 'arrayValue'],
];

/** The editor's type name of a value. */
export function typeOf(value) {
  if ('integerValue' in value || 'doubleValue' in value) return 'number';
  for (const [name, key] of types) if (key && key in value) return name;
  return 'null';
}

/** A plain JavaScript value for a map or array value (timestamps and the like become text). */
export function toPlain(value) {
  if ('mapValue' in value) return Object.fromEntries(Object.entries(value.mapValue.fields || {}).map(([k, v]) => [k, toPlain(v)]));
  if ('arrayValue' in value) return (value.arrayValue.values || []).map(toPlain);
  if ('integerValue' in value) return Number(value.integerValue);
  if ('doubleValue' in value) return Number(value.doubleValue);
  if ('booleanValue' in value) return value.booleanValue;
  if ('nullValue' in value) return null;
  if ('geoPointValue' in value) return { latitude: value.geoPointValue.latitude || 0, longitude: value.geoPointValue.longitude || 0 };
  return Object.values(value)[0];
}

/** The proto3 JSON value of plain JSON (numbers that are integers become integers). */
export function fromPlain(plain) {
  if (plain === null) return { nullValue: null };
  if (Array.isArray(plain)) return { arrayValue: { values: plain.map(fromPlain) } };
  if (typeof plain === 'object') return { mapValue: { fields: Object.fromEntries(Object.entries(plain).map(([k, v]) => [k, fromPlain(v)])) } };
  if (typeof plain === 'boolean') return { booleanValue: plain };
  if (typeof plain === 'number') return Number.isInteger(plain) ? { integerValue: String(plain) } : { doubleValue: plain };
  return { stringValue: String(plain) };
}

/** The text an input shows for a value of `type`. */
export function editText(value, type) {
  switch (type) {
    case 'string': return value.stringValue ?? '';
    case 'number': return value.integerValue ?? String(value.doubleValue ?? 0);
    case 'boolean': return String(Boolean(value.booleanValue));
    case 'timestamp': return value.timestampValue ?? new Date().toISOString();
    case 'geopoint': return `${value.geoPointValue?.latitude || 0}, ${value.geoPointValue?.longitude || 0}`;
    case 'reference': return value.referenceValue ?? '';
    case 'bytes': return value.bytesValue ?? '';
    case 'map': case 'array': return JSON.stringify(toPlain(value), null, 2);
    default: return '';
  }
}

/** Parses the editor's text as a value of `type`; throws an Error saying what is wrong. */
export function parse(text, type, databaseRoot) {
  switch (type) {
    case 'string': return { stringValue: text };
    case 'number': {
      const trimmed = text.trim();
      if (/^-?\d+$/.test(trimmed)) return { integerValue: trimmed };
      const number = Number(trimmed);
      if (trimmed === '' || Number.isNaN(number) && trimmed !== 'NaN') throw new Error('Enter a number.');
      return { doubleValue: number };
    }
    case 'boolean': return { booleanValue: text === 'true' };
    case 'null': return { nullValue: null };
    case 'timestamp': {
      const date = new Date(text);
      if (Number.isNaN(date.getTime())) throw new Error('Enter a date and time, like 2024-05-01T10:00:00Z.');
      return { timestampValue: /T.*(Z|[+-]\d\d:\d\d)$/.test(text) ? text : date.toISOString() };
    }
    case 'geopoint': {
      const parts = text.split(',').map((p) => Number(p.trim()));
      if (parts.length !== 2 || parts.some(Number.isNaN) || Math.abs(parts[0]) > 90 || Math.abs(parts[1]) > 180) {
        throw new Error('Enter latitude, longitude (from -90 to 90, and -180 to 180).');
      }
      return { geoPointValue: { latitude: parts[0], longitude: parts[1] } };
    }
    case 'reference': {
      const path = text.trim().replace(/^\/+/, '');
      if (path.startsWith('projects/')) return { referenceValue: path };
      if (!path || path.split('/').length % 2 !== 0) throw new Error('Enter a document path, like users/alice.');
      return { referenceValue: `${databaseRoot}/${path}` };
    }
    case 'bytes': {
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text.trim())) throw new Error('Enter the bytes in base64.');
      return { bytesValue: text.trim() };
    }
    case 'map': case 'array': {
      let plain;
      try { plain = JSON.parse(text); } catch { throw new Error(`Enter the ${type} as JSON.`); }
      if (type === 'map' && (plain === null || typeof plain !== 'object' || Array.isArray(plain))) throw new Error('Enter a JSON object.');
      if (type === 'array' && !Array.isArray(plain)) throw new Error('Enter a JSON array.');
      return fromPlain(plain);
    }
    default: throw new Error(`Unknown type ${type}.`);
  }
}

/** A field path segment as the REST API wants it (backquoted unless a simple name). */
export function quoteField(name) {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : '`' + name.replace(/[`\\]/g, '\\$&') + '`';
}

/** HTML of one value: scalars as text, maps and arrays as nested rows. */
export function show(value) {
  const type = typeOf(value);
  if (type === 'map') {
    const entries = Object.entries(value.mapValue.fields || {}).sort(([a], [b]) => a.localeCompare(b));
    return entries.length ? html`<div class="nested">${entries.map(([k, v]) => html`<div><span class="mono">${k}</span>: ${show(v)}</div>`)}</div>` : html`<span class="muted">{}</span>`;
  }
  if (type === 'array') {
    const values = value.arrayValue.values || [];
    return values.length ? html`<div class="nested">${values.map((v, i) => html`<div><span class="muted">${i}</span>: ${show(v)}</div>`)}</div>` : html`<span class="muted">[]</span>`;
  }
  if (type === 'string') return html`<span>"${value.stringValue}"</span> <span class="type">string</span>`;
  if (type === 'reference') return html`<span class="mono">${value.referenceValue.replace(/^projects\/[^/]+\/databases\/[^/]+\/documents\//, '')}</span> <span class="type">reference</span>`;
  return html`<span class="mono">${editText(value, type)}</span> <span class="type">${type}</span>`;
}
