/** `sparring export-model`: a checkpoint as a standalone `.onnx` inference model that plain onnxruntime runs. */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { Option } from 'commander';
import { exportCheckpointOnnx, readExportInfo } from '../../../models/export';
import { assertBuiltin, CheckpointError, checkpointStore } from '../../store/checkpoint-store';
import type { CheckpointRole } from '../../store/checkpoint-store';
import { openSqliteStore } from '../../store/sqlite-store';
import { UsageError } from '../options';
import type { GlobalOptions } from '../global-options';

interface ExportModelOptions {
  out?: string;
  role: CheckpointRole;
  force: boolean;
}

export function registerExportModel(program: Command, globals: () => GlobalOptions): void {
  program
    .command('export-model')
    .argument('<checkpoint>', 'a checkpoint name (DA2, CA0, …) or "latest"')
    .description('write a checkpoint as a standalone .onnx inference model (weights baked in, model JSON as metadata)')
    .option('--out <file>', 'where to write it (default: <checkpoint>.onnx in the current folder)')
    .addOption(new Option('--role <role>', 'which role "latest" means').choices(['DA', 'CA']).default('DA'))
    .option('--force', 'overwrite an existing file', false)
    .action(async (spec: string, opts: ExportModelOptions) => {
      const g = globals();
      const lab = openSqliteStore(g.db);
      try {
        const store = checkpointStore(lab.db);
        let role = opts.role;
        if (spec !== 'latest') role = store.get(spec)?.role ?? (/^(DA|CA)\d+$/.exec(spec)?.[1] as CheckpointRole | undefined) ?? role;
        let c;
        try {
          c = store.resolve(spec, role);
          assertBuiltin(c);
        } catch (e) {
          if (e instanceof CheckpointError) throw new UsageError(`${g.db}: ${e.message}`, { cause: e });
          throw e;
        }
        const out = opts.out ?? `${c.name}.onnx`;
        if (existsSync(out) && !opts.force) throw new UsageError(`--out ${out} exists; pass --force to overwrite it`);
        const bytes = await exportCheckpointOnnx(c.snapshot, { name: c.name, role: c.role, source: c.source, generation: c.generation });
        mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
        writeFileSync(out, bytes);
        const info = readExportInfo(bytes);
        const doc = {
          checkpoint: c.name,
          role: c.role,
          source: c.source,
          generation: c.generation,
          out,
          bytes: bytes.byteLength,
          inputs: info.inputs,
          outputs: info.outputs,
        };
        if (g.json) {
          process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
          return;
        }
        process.stdout.write(
          `wrote ${out} (${(bytes.byteLength / 1e6).toFixed(2)} MB): ${c.role} checkpoint ${c.name} (${c.source}, generation ${c.generation})\n` +
            `inputs ${info.inputs.join(', ')}; outputs ${info.outputs.join(', ')}; the model JSON is in the metadata as sparring.model_json\n`,
        );
      } finally {
        lab.close();
      }
    });
}
