import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRunConfig } from '../../core/coevolution/run-config';
import { PRESETS } from '../../core/presets';
import { configFileText } from './config-file';

const dir = mkdtempSync(path.join(os.tmpdir(), 'sparring-config-file-'));
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe('configFileText', () => {
  it('reads a whole config as it is, and merges an overlay over a preset (objects merge, values replace)', () => {
    const whole = file('whole.json', JSON.stringify(PRESETS.quick.config));
    expect(configFileText(whole)).toBe(JSON.stringify(PRESETS.quick.config));
    const over = file('over.json', JSON.stringify({ gym: { ca: { steps: 120 } } }));
    const merged = parseRunConfig(configFileText(over, 'paper'), 'test');
    expect(merged.gym.ca).toEqual({ ...PRESETS.paper.config.gym.ca, steps: 120 });
    expect(merged.gym.da).toEqual(PRESETS.paper.config.gym.da);
    expect(merged.bootstrap).toEqual(PRESETS.paper.config.bootstrap);
  });

  it('names the file and what is wrong: unreadable, not JSON, not an object, an unknown field', () => {
    expect(() => configFileText(path.join(dir, 'missing.json'))).toThrow(/--config .*missing\.json: cannot read \(ENOENT\)/);
    expect(() => configFileText(file('bad.json', '{"gym": '), 'quick')).toThrow(/--config .*bad\.json: not valid JSON/);
    expect(() => configFileText(file('list.json', '[1]'), 'quick')).toThrow(/an overlay must be a JSON object/);
    expect(() => configFileText(file('field.json', '{"gym": {"failurShare": 0.5}}'), 'quick')).toThrow(/failurShare/);
  });
});
