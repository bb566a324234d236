/**
 * `--config FILE` of `run` and `study`: a whole run config, or, with `--preset P` given too, an
 * overlay merged over P (objects merge, other values replace; the result is checked whole, so an
 * unknown field is named).
 */
import { readFileSync } from 'node:fs';
import { overlayConfig } from '../../core/coevolution/arms';
import { PRESETS } from '../../core/presets';
import { UsageError } from './options';

/** The text of the file an option names; one that cannot be read is a usage error led by `what` (the option as given). */
export function readOptionFile(what: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`${what}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

/** The JSON text of the run config `--config file` names, merged over `preset` when one is given. */
export function configFileText(file: string, preset?: keyof typeof PRESETS): string {
  const text = readOptionFile(`--config ${file}`, file);
  if (preset === undefined) return text;
  let overlay: unknown;
  try {
    overlay = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`--config ${file}: not valid JSON (${(e as Error).message})`);
  }
  if (typeof overlay !== 'object' || overlay === null || Array.isArray(overlay)) throw new UsageError(`--config ${file}: an overlay must be a JSON object`);
  return JSON.stringify(overlayConfig(PRESETS[preset].config, overlay as Record<string, unknown>, `--preset ${preset} --config ${file}`));
}
