/**
 * What the editor can say before the engine sees the config: whether it is JSON, and where it
 * breaks (line and column — V8's JSON.parse does not always say). Field-level checks are the
 * engine's: `runs/start` answers with the field it rejects.
 */
export type ConfigCheck = { ok: true } | { ok: false; message: string; line: number | null; column: number | null };

export function checkConfigText(text: string): ConfigCheck {
  if (text.trim() === '') return { ok: false, message: 'the config is empty', line: null, column: null };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const at = jsonErrorOffset(text);
    const { line, column } = lineColumn(text, at.offset);
    return { ok: false, message: at.message, line, column };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, message: 'the config must be a JSON object', line: 1, column: 1 };
  return { ok: true };
}

export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

/** Where a JSON text first goes wrong: a small recursive-descent scan that only locates errors. */
export function jsonErrorOffset(text: string): { offset: number; message: string } {
  let i = 0;
  class Stop extends Error {
    constructor(
      readonly offset: number,
      message: string,
    ) {
      super(message);
    }
  }
  const fail = (message: string): never => {
    throw new Stop(i, message);
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const describe = () => (i >= text.length ? 'the text ends too early' : `unexpected ${JSON.stringify(text[i])}`);
  const str = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') i++;
      else if (text[i]! < ' ') fail('control character in a string');
      i++;
    }
    if (i >= text.length) fail('unterminated string');
    i++;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail(`${describe()}: expected a quoted field name`);
        str();
        ws();
        if (text[i] !== ':') fail(`${describe()}: expected ":"`);
        i++;
        value();
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') return void i++;
        fail(`${describe()}: expected "," or "}"`);
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') return void i++;
        fail(`${describe()}: expected "," or "]"`);
      }
    }
    if (c === '"') return str();
    const lit = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i));
    if (lit) return void (i += lit[0].length);
    fail(`${describe()}: expected a value`);
  };
  try {
    value();
    ws();
    if (i < text.length) fail(`${describe()} after the end of the config`);
    return { offset: 0, message: 'not valid JSON' };
  } catch (e) {
    if (e instanceof Stop) return { offset: e.offset, message: e.message };
    throw e;
  }
}

/** The seed field's problem in words, or null: the engine takes a whole number in ±2^31 (host/engine/validate.ts). */
export function seedProblem(seed: number): string | null {
  if (Number.isNaN(seed)) return 'Enter a seed: a whole number such as 1.';
  if (!Number.isInteger(seed)) return `The seed must be a whole number (not ${seed}).`;
  if (seed < -(2 ** 31) || seed > 2 ** 31 - 1) return 'The seed must lie between −2,147,483,648 and 2,147,483,647.';
  return null;
}
