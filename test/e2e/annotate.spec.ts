/**
 * Humans in the loop, end to end: two annotators label ten CA openings each with the hotkeys, the
 * κ the app shows is checked against one computed here from the same labels, the labels export
 * as CSV, and a judge audit runs with its scores checked against the judge's revealed verdicts.
 * Runs on its own lab (two scripted matches played by the CLI) behind its own `sparring serve`,
 * so the other specs' labs are untouched.
 */
import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
import { AnnotatePage, AuditPage } from './pages/annotate-page';
import type { LabPage } from './pages/lab-page';
import { openScriptedLab, type ScriptedLab } from './support/scripted-lab';

test.describe.configure({ mode: 'serial' });

let page: Page;
let lab: LabPage;

/** Cohen's κ written out here from its definition, independent of core/labels. */
function kappa(a: readonly string[], b: readonly string[]): number {
  const n = a.length;
  const po = a.filter((x, i) => x === b[i]).length / n;
  const cats = [...new Set([...a, ...b])];
  const pe = cats.reduce((s, c) => s + (a.filter((x) => x === c).length / n) * (b.filter((x) => x === c).length / n), 0);
  return (po - pe) / (1 - pe);
}

let own: ScriptedLab | null = null;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  own = await openScriptedLab(browser, 'labels', ['11', '12'], 3);
  ({ page, lab } = own);
});

test.afterAll(async () => {
  await own?.close();
});

const LABELS = ['Direct intent', 'Vague/indirect', 'Contextual camouflage', 'Emotional pressure', 'Multi-intent', 'Other'];
// Hotkeys each annotator presses on items 1–10 (they agree on 6 of 10).
const ANN = [1, 1, 2, 3, 1, 2, 6, 3, 1, 5];
const BO = [1, 2, 2, 3, 1, 1, 6, 4, 3, 5];

test('two annotators label ten openings with hotkeys; the κ shown is the κ of their labels', async () => {
  await lab.go('annotate');
  const an = new AnnotatePage(page);
  await expect(page.getByTestId('empty-state')).toContainText('Who is labelling?');
  await an.addAnnotator('ann');
  await an.createQueue(5, 3); // 5 openings from each of the 2 matches
  await expect(an.position).toContainText('Item 1 of 10');
  await expect(page.getByTestId('utterance')).not.toBeEmpty();

  const seen: { pos: number; text: string }[] = [];
  for (const [i, key] of ANN.entries()) {
    if (i === 2) await page.getByTestId('note').fill('asks about two things at once'); // a note travels with the label
    if (i === 2) await page.getByTestId('note').blur(); // leave the field: keys are hotkeys again
    seen.push(await an.labelWithHotkey(key));
    // The source is revealed only once labelled.
    await expect(page.locator(`[data-testid="reveal"][data-pos="${seen.at(-1)!.pos}"]`)).toContainText(/came from M[12], CA scripted/);
  }
  expect(seen.map((s) => s.pos)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  await expect(page.getByTestId('queue-done')).toBeVisible();
  await lab.screenshot('annotate-01-ann-done');

  // The second annotator sees the same openings in the same order, blind.
  await an.addAnnotator('bo');
  await expect(an.position).toContainText('Item 1 of 10 · 0 labelled by you');
  await expect(page.getByTestId('reveal')).toHaveCount(0);
  for (const [i, key] of BO.entries()) {
    const got = await an.labelWithHotkey(key);
    expect(got).toEqual(seen[i]);
    if (i === 4) {
      // Undo takes back the last label and shows that item again; label it again.
      await page.keyboard.press('u');
      await expect(page.locator('[data-testid="utterance"][data-pos="4"]')).toBeVisible();
      await an.labelWithHotkey(key);
    }
  }
  await expect(page.getByTestId('queue-done')).toBeVisible();

  const expected = kappa(
    ANN.map((k) => LABELS[k - 1]!),
    BO.map((k) => LABELS[k - 1]!),
  );
  await expect.poll(() => an.cohenKappa('ann', 'bo')).toBe(expected.toFixed(3));
  console.log(`[annotate] Cohen's κ shown ${await an.cohenKappa('ann', 'bo')}, computed in the test ${expected.toFixed(6)}`);
  await expect(page.getByTestId('fleiss-kappa')).toBeVisible();
  await expect(page.getByTestId('kripp-alpha')).toBeVisible();
  await expect(page.getByTestId('auto-kappa')).toContainText('n = ');
  await expect(page.getByTestId('tactic-bars').locator('svg rect').first()).toBeVisible();
  await expect(page.getByTestId('measure-strip').locator('svg circle').first()).toBeVisible();
  await lab.screenshot('annotate-02-results');

  // The export holds both annotators' rows, with time spent and item ids.
  const { filename, content } = await an.export('csv');
  expect(filename).toBe('sparring-labels-T1.csv');
  const lines = content.trim().split(/\r?\n/);
  expect(lines[0]).toMatch(/^queue_id,kind,item_id,pos,match_id,episode_id,turn_idx,text,annotator,skipped,tactic,.*ms_spent/);
  expect(lines).toHaveLength(21);
  expect(content).toContain('asks about two things at once');
});

test('a judge audit: verdicts by keyboard, the judge revealed after each, scores and per-match impact', async () => {
  await lab.go('audit');
  const au = new AuditPage(page);
  await au.chooseAnnotator('ann');
  await au.createQueue(2, 1); // 2 episodes from each match
  await expect(au.position).toContainText('Episode 1 of 4');
  await expect(page.getByTestId('audit-transcript')).toBeVisible();
  await expect(page.getByTestId('audit-bench')).not.toContainText('rationale');
  // The written tier rubric beside the tier choice (the same words as docs/people.md).
  const rubric = page.getByTestId('tier-rubric');
  await rubric.locator('summary').click();
  await expect(rubric).toContainText('4 exemplary');
  await expect(rubric).toContainText('1 failed');
  await lab.screenshot('audit-01-bench');
  await rubric.locator('summary').click();

  const mine = [
    { resolved: true, tier: 4 as const, hallucination: false },
    { resolved: false, tier: 2 as const, hallucination: false },
    { resolved: true, tier: 3 as const, hallucination: true },
    { resolved: false, tier: 1 as const, hallucination: false },
  ];
  const judged: { resolved: boolean; tier: number; hallucination: boolean }[] = [];
  for (const v of mine) judged.push(await au.audit(v));
  await expect(page.getByTestId('queue-done')).toBeVisible();

  // Resolution F1 from the same labels: people are the reference, the judge the prediction.
  const tp = mine.filter((m, i) => m.resolved && judged[i]!.resolved).length;
  const fp = mine.filter((m, i) => !m.resolved && judged[i]!.resolved).length;
  const fn = mine.filter((m, i) => m.resolved && !judged[i]!.resolved).length;
  const f1 = 2 * tp + fp + fn === 0 ? 1 : (2 * tp) / (2 * tp + fp + fn);
  await expect(page.getByTestId('audit-resolution-f1').locator('td').nth(1)).toHaveText(f1.toFixed(3));
  const disagreements = mine.reduce(
    (s, m, i) => s + Number(m.resolved !== judged[i]!.resolved) + Number(m.tier !== judged[i]!.tier) + Number(m.hallucination !== judged[i]!.hallucination),
    0,
  );
  await expect(page.getByTestId('audit-disagreements').locator('h3')).toHaveText(`Disagreements (${disagreements})`);
  for (const m of ['M1', 'M2']) await expect(page.getByTestId(`impact-${m}`)).toContainText(/holds|changes/);
  console.log(`[audit] judge resolution F1 ${f1.toFixed(3)} over 4 audited episodes; ${disagreements} field disagreements`);
  await lab.screenshot('audit-02-results');

  // Any judge against the same people: the rule judge re-judges the audited transcripts (the
  // matches were judged by it, so the scores hold); a SPEC that names no judge is an error.
  const picker = page.getByTestId('audit-judge');
  await picker.getByLabel('judge SPEC').fill('rule');
  await picker.getByRole('button', { name: 'Compare' }).click();
  await expect(page.getByTestId('audit-scores').locator('h3')).toContainText('judge rule');
  await expect(page.getByTestId('audit-resolution-f1').locator('td').nth(1)).toHaveText(f1.toFixed(3));
  await picker.getByLabel('judge SPEC').fill('no-such-judge');
  await picker.getByRole('button', { name: 'Compare' }).click();
  await expect(page.getByText(/judge "no-such-judge": not "rule" and no LLM endpoint/)).toBeVisible();
  await lab.screenshot('audit-03-judge-picker');
});
