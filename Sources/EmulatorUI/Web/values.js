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

/**
 * Maps and arrays are edited as JSON. A value inside them that JSON cannot say exactly is written as an
 * object with one `$` key: `{"$timestamp": "2024-05-01T10:00:00Z"}`, `{"$geopoint": [52.37, 4.9]}`,
 * `{"$reference": "users/alice"}`, `{"$bytes": "aGk="}`, `{"$integer": "9007199254740993"}` (past 2^53),
 * `{"$double": 1}` (a double with an integral value, or `"NaN"`, `"Infinity"`, `"-Infinity"`) and
 * `{"$map": {…}}` (a map whose only key is one of these names), so saving a map unchanged stores exactly
 * what was there.
 */
export const tagsHelp = 'Inside maps and arrays: {"$timestamp": "2024-05-01T10:00:00Z"}, {"$geopoint": [lat, lng]}, '
  + '{"$reference": "users/alice"}, {"$bytes": "base64"}, {"$integer": "…"} past 2^53, {"$double": 1}, '
  + 'and {"$map": {…}} for a map whose only key is one of these.';

const tags = ['$timestamp', '$geopoint', '$reference', '$bytes', '$integer', '$double', '$map'];

/** The editable JSON of a value (see `tagsHelp`); references are shown relative to `databaseRoot`. */
export function toEditable(value, databaseRoot) {
  if ('mapValue' in value) {
    const entries = Object.entries(value.mapValue.fields || {});
    const map = Object.fromEntries(entries.map(([k, v]) => [k, toEditable(v, databaseRoot)]));
    return entries.length === 1 && tags.includes(entries[0][0]) ? { $map: map } : map;
  }
  if ('arrayValue' in value) return (value.arrayValue.values || []).map((v) => toEditable(v, databaseRoot));
  if ('integerValue' in value) {
    const number = Number(value.integerValue);
    return Number.isSafeInteger(number) ? number : { $integer: String(value.integerValue) };
  }
  if ('doubleValue' in value) {
    const number = Number(value.doubleValue);
    if (!Number.isFinite(number)) return { $double: String(number) };
    return Number.isInteger(number) ? { $double: number } : number;
  }
  if ('booleanValue' in value) return value.booleanValue;
  if ('nullValue' in value) return null;
  if ('stringValue' in value) return value.stringValue;
  if ('timestampValue' in value) return { $timestamp: value.timestampValue };
  if ('geoPointValue' in value) return { $geopoint: [value.geoPointValue.latitude || 0, value.geoPointValue.longitude || 0] };
  if ('referenceValue' in value) return { $reference: relativeReference(value.referenceValue, databaseRoot) };
  if ('bytesValue' in value) return { $bytes: value.bytesValue };
  return null;
}

/** A reference's path below `databaseRoot`, or its whole name when it points into another database. */
function relativeReference(name, databaseRoot) {
  return name.startsWith(databaseRoot + '/') ? name.slice(databaseRoot.length + 1) : name;
}

/**
 * Parses JSON keeping what `JSON.parse` alone would lose: integers past 2^53 become `{"$integer": text}` and
 * numbers written with a point or an exponent `{"$double": n}`, so `1.0` stays a double.
 */
export function parseExactJSON(text) {
  return JSON.parse(text, (key, value, context) => {
    if (typeof value !== 'number' || !context?.source) return value;
    if (/[.eE]/.test(context.source)) return { $double: value };
    return Number.isSafeInteger(value) ? value : { $integer: context.source };
  });
}

/** The proto3 JSON value of editable JSON (see `tagsHelp`); throws an Error saying what is wrong. */
export function fromEditable(plain, databaseRoot) {
  if (plain === null) return { nullValue: null };
  if (Array.isArray(plain)) {
    if (plain.some(Array.isArray)) throw new Error('An array cannot hold an array: put the inner one in a map.');
    return { arrayValue: { values: plain.map((v) => fromEditable(v, databaseRoot)) } };
  }
  if (typeof plain === 'object') {
    const keys = Object.keys(plain);
    if (keys.length === 1 && tags.includes(keys[0])) return fromTag(keys[0], plain[keys[0]], databaseRoot);
    return mapOf(plain, databaseRoot);
  }
  if (typeof plain === 'boolean') return { booleanValue: plain };
  if (typeof plain === 'number') return Number.isInteger(plain) ? { integerValue: String(plain) } : { doubleValue: plain };
  return { stringValue: String(plain) };
}

/** A map value of a plain object's entries, its keys checked as production checks field names. */
function mapOf(plain, databaseRoot) {
  const keys = Object.keys(plain);
  for (const key of keys) {
    if (key === '') throw new Error('A map key cannot be empty.');
    if (/^__.*__$/.test(key)) throw new Error(`The key ${key} is reserved: keys cannot start and end with "__".`);
  }
  return { mapValue: { fields: Object.fromEntries(keys.map((k) => [k, fromEditable(plain[k], databaseRoot)])) } };
}

/** The text of a number `parseExactJSON` may have wrapped in a tag. */
function numberText(content) {
  return String(content !== null && typeof content === 'object' ? (content.$double ?? content.$integer) : content).trim();
}

function fromTag(tag, content, databaseRoot) {
  const text = numberText(content);
  switch (tag) {
    case '$timestamp': return parse(text, 'timestamp', databaseRoot);
    case '$geopoint':
      if (!Array.isArray(content) || content.length !== 2) throw new Error('A $geopoint is [latitude, longitude].');
      return parse(content.map(numberText).join(','), 'geopoint', databaseRoot);
    case '$reference': return parse(text, 'reference', databaseRoot);
    case '$bytes': return parse(text, 'bytes', databaseRoot);
    case '$integer':
      if (!/^-?\d+$/.test(text.trim())) throw new Error('An $integer is written as its digits.');
      return parse(text, 'number', databaseRoot);
    case '$double': {
      if (['NaN', 'Infinity', '-Infinity'].includes(text)) return { doubleValue: text };
      const number = Number(text);
      if (!decimalPattern.test(text) || !Number.isFinite(number)) throw new Error('A $double is a number, or "NaN", "Infinity", "-Infinity".');
      return { doubleValue: number };
    }
    case '$map':
      if (content === null || typeof content !== 'object' || Array.isArray(content)) throw new Error('A $map holds a JSON object.');
      return mapOf(content, databaseRoot);
    default: throw new Error(`Unknown tag ${tag}.`);
  }
}

/** The text an input shows for a value of `type`. */
export function editText(value, type, databaseRoot = '') {
  switch (type) {
    case 'string': return value.stringValue ?? '';
    case 'number': return value.integerValue ?? doubleText(value.doubleValue ?? 0);
    case 'boolean': return String(Boolean(value.booleanValue));
    case 'timestamp': return value.timestampValue ?? new Date().toISOString();
    case 'geopoint': return `${value.geoPointValue?.latitude || 0}, ${value.geoPointValue?.longitude || 0}`;
    case 'reference': return value.referenceValue ? relativeReference(value.referenceValue, databaseRoot) : '';
    case 'bytes': return value.bytesValue ?? '';
    case 'map': case 'array': return JSON.stringify(toEditable(value, databaseRoot), null, 2);
    default: return '';
  }
}

/** A double as the editor shows it: with a point when it is integral, so saving it keeps it a double. */
function doubleText(double) {
  const number = Number(double);
  if (typeof double === 'string' && !Number.isFinite(number)) return double;  // "NaN", "Infinity", "-Infinity"
  return Number.isInteger(number) && !/e/.test(String(number)) ? number.toFixed(1) : String(number);
}

/** The text a new value of `type` starts with in the editor. */
export function exampleText(type) {
  return { number: '0', boolean: 'true', timestamp: new Date().toISOString(), geopoint: '0, 0', map: '{}', array: '[]' }[type] ?? '';
}

const int64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };
/** A number written in decimal, as the SDKs' number fields take it (no hexadecimal, no leading +). */
const decimalPattern = /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const timestampPattern = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/** Parses the editor's text as a value of `type`; throws an Error saying what is wrong. */
export function parse(text, type, databaseRoot) {
  switch (type) {
    case 'string': return { stringValue: text };
    case 'number': {
      const trimmed = text.trim();
      if (/^-?\d+$/.test(trimmed)) {
        if (BigInt(trimmed) < int64.min || BigInt(trimmed) > int64.max) {
          throw new Error('An integer is 64-bit, from -9223372036854775808 to 9223372036854775807; write a larger number with a decimal point.');
        }
        return { integerValue: String(BigInt(trimmed)) };
      }
      if (['NaN', 'Infinity', '-Infinity'].includes(trimmed)) return { doubleValue: trimmed };
      const number = Number(trimmed);
      if (!decimalPattern.test(trimmed) || !Number.isFinite(number)) throw new Error('Enter a number (or NaN, Infinity, -Infinity).');
      return { doubleValue: number };
    }
    case 'boolean': {
      const word = text.trim();
      if (word !== 'true' && word !== 'false') throw new Error('Enter true or false.');
      return { booleanValue: word === 'true' };
    }
    case 'null': return { nullValue: null };
    case 'timestamp': {
      const trimmed = text.trim();
      const date = new Date(trimmed);
      if (!timestampPattern.test(trimmed) || Number.isNaN(date.getTime())) {
        throw new Error('Enter a date and time, like 2024-05-01T10:00:00Z.');
      }
      return { timestampValue: /T.*(Z|[+-]\d\d:\d\d)$/.test(trimmed) ? trimmed : date.toISOString() };
    }
    case 'geopoint': {
      const parts = text.split(',').map((p) => p.trim());
      const numbers = parts.map(Number);
      if (parts.length !== 2 || parts.some((p) => p === '') || numbers.some((n) => !Number.isFinite(n))
        || Math.abs(numbers[0]) > 90 || Math.abs(numbers[1]) > 180) {
        throw new Error('Enter latitude, longitude (from -90 to 90, and -180 to 180).');
      }
      return { geoPointValue: { latitude: numbers[0], longitude: numbers[1] } };
    }
    case 'reference': {
      const path = text.trim().replace(/^\/+/, '');
      if (path.startsWith('projects/')) return { referenceValue: path };
      if (!path || path.split('/').length % 2 !== 0 || path.split('/').some((s) => !s)) throw new Error('Enter a document path, like users/alice.');
      return { referenceValue: `${databaseRoot}/${path}` };
    }
    case 'bytes': {
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text.trim()) || text.trim().length % 4 === 1) throw new Error('Enter the bytes in base64.');
      return { bytesValue: text.trim() };
    }
    case 'map': case 'array': {
      let plain;
      try { plain = parseExactJSON(text); } catch { throw new Error(`Enter the ${type} as JSON.`); }
      if (type === 'map' && (plain === null || typeof plain !== 'object' || Array.isArray(plain))) throw new Error('Enter a JSON object.');
      if (type === 'array' && !Array.isArray(plain)) throw new Error('Enter a JSON array.');
      const value = fromEditable(plain, databaseRoot);
      if (type === 'map' && !('mapValue' in value)) throw new Error('Enter a JSON object (a single $ key is a value, not a map).');
      return value;
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
