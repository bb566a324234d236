/**
 * The layer boundaries are enforced by lint at error level (eslint.config.js): a planted import
 * across one fails, and the same file without it passes.
 */
import path from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '..');
// The project's config, without type information: a planted file belongs to no tsconfig, and the
// boundary rules need none (the type-checked rules are linted over the real tree by `npm run lint`).
const eslint = new ESLint({ cwd: root, overrideConfig: [tseslint.configs.disableTypeChecked] });

async function problems(file: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return r!.messages.filter((m) => m.severity === 2).map((m) => m.message);
}

describe('layer boundaries in lint', () => {
  it.each([
    ['models/planted.ts', "import { bankingDomain } from '../host/domain-files';\nexport const d = bankingDomain;\n", /models\/ sits below the hosts/],
    ['models/planted.test.ts', "import { bankingDomain } from '../host/domain-files';\nexport const d = bankingDomain;\n", /models\/ sits below the hosts/],
    ['host/engine/planted.ts', "import { resolveDa } from '../cli/policies';\nexport const r = resolveDa;\n", /must not import the CLI/],
    ['host/report/planted.ts', "import { progressBar } from '../cli/progress';\nexport const p = progressBar;\n", /must not import the CLI/],
    ['host/store/planted.ts', "import { fakeMatch } from '../../test/support/store-contract';\nexport const f = fakeMatch;\n", /only tests import it/],
  ])('%s: a planted import fails', async (file, code, message) => {
    expect(await problems(file, code)).toEqual([expect.stringMatching(message)]);
  });

  it('allows what the layers may import', async () => {
    expect(
      await problems('models/planted.test.ts', "import { bankingDomain } from '../test/support/banking-domain';\nexport const d = bankingDomain;\n"),
    ).toEqual([]);
    expect(await problems('host/engine/planted.ts', "import { resolveDa } from '../policies/policies';\nexport const r = resolveDa;\n")).toEqual([]);
    expect(await problems('host/cli/planted.ts', "import { resolveDa } from '../policies/policies';\nexport const r = resolveDa;\n")).toEqual([]);
  });
});
