/**
 * Plain words and people in the loop (issue 52 §5–6): what a person reads when a number or a
 * field is refused, what the customer's seat shows of the agent, the judge audit's keyboard and
 * its loop table, and every screen at 1024 px wide with nothing cut off. Runs on its own lab (two
 * scripted matches played by the CLI) behind its own `sparring serve`, so the other specs' labs
 * are untouched; screenshots land in test-results/screenshots/plain-*.png.
 */
import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
import { AnnotatePage } from './pages/annotate-page';
import { openScriptedLab, type ScriptedLab } from './support/scripted-lab';
import type { LabPage, ScreenName } from './pages/lab-page';
import { PlayPage } from './pages/play-page';

test.describe.configure({ mode: 'serial' });

let page: Page;
let lab: LabPage;

/** zod's own wording, which no screen may show. */
const VALIDATOR_TEXT = /Too (small|big)|Invalid input|expected (string|number) to|>=|<=|tool_args/;

let own: ScriptedLab | null = null;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  own = await openScriptedLab(browser, 'plain', ['21', '22'], 1);
  ({ page, lab } = own);
});

test.afterAll(async () => {
  await own?.close();
});

test("customer seat: the goal in plain words, the agent's internals hidden unless asked for, and a hang-up button", async () => {
  const play = new PlayPage(page);
  await lab.go('play');
  await play.start({ player: 'Ada', seat: 'customer', opponent: 'scripted', scenario: 'dispute-unrecognized', seed: 3 });
  const goal = page.getByTestId('play-intent');
  const intent = (await goal.getAttribute('data-intent')) ?? '';
  expect(intent).toMatch(/_/);
  await expect(goal).not.toContainText('_');
  await expect(goal).toHaveText(/^[A-Z][a-z]+( [a-z]+)+$/);

  await play.say('Hi, there is a payment on my card I do not recognise.');
  const turns = page.getByTestId('play-turns');
  await expect(turns.locator('li.turn.agent').first()).toBeVisible();
  // The scripted DA looks the account up and thinks aloud; none of it reaches the caller.
  await expect(turns.getByTestId('tool-result')).toHaveCount(0);
  await expect(turns.locator('.thinking')).toHaveCount(0);
  await expect(turns.locator('.tool-call')).toHaveCount(0);
  await expect(turns).toContainText('The agent looks something up');
  await lab.screenshot('plain-01-customer-hidden');
  await page.getByTestId('play-show-internals').check();
  await expect(turns.getByTestId('tool-result').first()).toBeVisible();
  await page.getByTestId('play-show-internals').uncheck();

  // Hanging up ends the call without storing it.
  const id = await page.getByTestId('play-session').getAttribute('data-session');
  await page.getByTestId('play-hang-up').click();
  await expect(page.getByTestId('play-start')).toBeVisible();
  await expect(page.getByTestId(`play-session-${id}`)).toHaveCount(0);
});

test("agent seat: a move's thinking is cleared after it; bad tool arguments are refused in a sentence", async () => {
  const play = new PlayPage(page);
  await play.start({ player: 'Ada', seat: 'agent', opponent: 'scripted', seed: 4 });
  await page.getByTestId('play-thinking').fill('greet first');
  await play.speak('Hello, how can I help?');
  await expect(page.getByTestId('play-thinking')).toHaveValue('');
  // The next move carries no thinking of its own, so its turn shows none.
  await page.getByTestId('play-tool').selectOption('get_transactions');
  await page.getByTestId('play-arg-account_id').fill('A1');
  await page.getByTestId('play-arg-limit').fill('99');
  await page.getByTestId('play-call-tool').click();
  await expect(play.error).toContainText('get_transactions: Limit must be at most');
  await expect(play.error).not.toContainText(VALIDATOR_TEXT);
  const agentTurns = page.getByTestId('play-turns').locator('li.turn.agent');
  await expect(agentTurns).toHaveCount(1);
  await page.getByTestId('play-arg-limit').fill('3');
  await page.getByTestId('play-call-tool').click();
  await expect(agentTurns).toHaveCount(2);
  // Only the move it was written for carries the thinking.
  await expect(agentTurns.locator('.thinking')).toHaveCount(1);
  await expect(agentTurns.nth(0).locator('.thinking')).toHaveText('greet first');
  await lab.screenshot('plain-02-agent-refused');
  await page.getByTestId('play-leave').click();
});

test('Studies: seeds as the CLI reads them, every refusal said, a large study warned about, a bad custom arm named', async () => {
  await lab.go('studies');
  const seeds = page.getByTestId('study-seeds');
  const note = page.getByTestId('study-seeds-note');
  const start = page.getByTestId('start-study');
  for (const [text, why] of [
    ['0', 'Seeds must be 1..1000'],
    ['2.5', 'Seeds must be a count (10), a list of integer seeds (1,2,5) or ranges (11-20), got "2.5"'],
    ['20-11', 'the range "20-11" must run upwards'],
  ] as const) {
    await seeds.fill(text);
    await expect(note).toContainText(why);
    await expect(start).toBeDisabled();
  }
  await seeds.fill('11-20');
  await expect(note).toHaveText('10 seeds (11–20) × 2 arms = 20 runs');
  await expect(start).toBeEnabled();
  await expect(page.getByTestId('study-size-warning')).toHaveCount(0);
  await seeds.fill('1-50');
  await expect(page.getByTestId('study-size-warning')).toContainText('A large study: 100 runs (50 seeds × 2 arms)');
  await lab.screenshot('plain-03-study-seeds');

  await seeds.fill('2');
  await page.getByTestId('add-custom-arm').click();
  await start.click();
  const error = page.getByTestId('study-start-error');
  await expect(error).toContainText('Custom arm 1 › name must not be empty.');
  await expect(error).not.toContainText(VALIDATOR_TEXT);
  await expect(error).not.toContainText('customArms.0');
  await lab.screenshot('plain-04-custom-arm-refused');
});

test('Robustness: 0 and 99999 episodes are refused with the reason, never run as 1 or 100', async () => {
  await lab.go('evaluation');
  const panel = page.getByTestId('robustness');
  const episodes = panel.getByTestId('robustness-episodes');
  await episodes.fill('0');
  await expect(panel.getByTestId('robustness-episodes-problem')).toHaveText('Episodes per scenario must be at least 1 (0 would play nothing); 0 is too small.');
  await expect(panel.getByTestId('robustness-run')).toBeDisabled();
  await episodes.fill('99999');
  await expect(panel.getByTestId('robustness-episodes-problem')).toHaveText('Episodes per scenario must be at most 100; 99999 is too large.');
  await expect(episodes).toHaveValue('99999');
  await episodes.fill('2');
  await expect(panel.getByTestId('robustness-episodes-problem')).toHaveCount(0);
  await expect(panel.getByTestId('robustness-run')).toBeEnabled();
});

test('Judge audit: 0 items per match is refused; Enter names what is missing; one H is "no"; unaudited matches claim nothing', async () => {
  await lab.go('audit');
  const au = new AnnotatePage(page);
  await au.addAnnotator('ann');
  await page.getByTestId('queue-per-match').fill('0');
  await expect(page.getByTestId('queue-problem')).toContainText('Items per match must be at least 1');
  await expect(page.getByTestId('queue-create')).toBeDisabled();
  await au.createQueue(1, 1);
  await expect(page.getByTestId('audit-transcript')).toBeVisible();

  await page.keyboard.press('y');
  await page.keyboard.press('Enter');
  const missing = page.getByTestId('audit-missing');
  await expect(missing).toHaveText('Not saved: choose quality tier (1–4), hallucination (H).');
  await page.keyboard.press('3');
  await page.keyboard.press('h');
  await expect(page.getByTestId('audit-halluc-false')).toHaveAttribute('aria-pressed', 'true');
  await page.keyboard.press('h');
  await expect(page.getByTestId('audit-halluc-true')).toHaveAttribute('aria-pressed', 'true');
  await page.keyboard.press('h');
  await expect(page.getByTestId('audit-halluc-false')).toHaveAttribute('aria-pressed', 'true');
  await expect(missing).toHaveCount(0);
  await page.keyboard.press('Enter');
  await expect(page.locator('[data-testid="reveal"][data-pos="0"]')).toContainText('the judge said');

  // One episode audited: one match has evidence, the other none, and says so instead of "holds".
  const rows = page.getByTestId('audit-impact').locator('tbody tr');
  await expect(rows).toHaveCount(2);
  for (const row of await rows.all()) {
    const audited = Number(await row.locator('td').nth(1).textContent());
    if (audited === 0) await expect(row.locator('.badge')).toHaveText('not audited');
    else await expect(row.locator('.badge')).toHaveText(/holds|changes/);
  }
  await expect(rows.locator('.badge', { hasText: 'not audited' })).toHaveCount(1);
  await lab.screenshot('plain-05-audit');
});

test('Models: a failed test names the URL and the cause, saving tests, stale errors clear, a disabled Save says what is missing', async () => {
  await lab.go('models');
  await page.getByTestId('model-name').fill('');
  await page.getByTestId('model-model').fill('');
  await expect(page.getByTestId('model-add')).toBeDisabled();
  await expect(page.getByTestId('model-add-missing')).toHaveText('To save, give a name, the model.');
  // A refusal goes once the form changes.
  await page.getByTestId('model-name').fill('DA9');
  await page.getByTestId('model-model').fill('x');
  await page.getByTestId('model-add').click();
  await expect(page.getByTestId('model-add-error')).toContainText('looks like a checkpoint name');
  await page.getByTestId('model-name').fill('down');
  await expect(page.getByTestId('model-add-error')).toHaveCount(0);
  // Saving tests it: nothing listens on port 9.
  await page.getByTestId('model-base-url').fill('http://127.0.0.1:9/v1');
  await page.getByTestId('model-add').click();
  const check = page.getByTestId('model-check-down');
  await expect(check).toContainText('Test failed', { timeout: 60_000 });
  await expect(check).toContainText('http://127.0.0.1:9/v1');
  await expect(check).toContainText('(bad port)');
  await lab.screenshot('plain-06-models');
});

/**
 * Elements whose content is cut: an element that clips (overflow hidden or clip) with content
 * wider than its box, unless it ends the text with an ellipsis on purpose; and the page itself
 * scrolling sideways. Scrolling boxes (`overflow: auto`, the tables' wraps) show all of it.
 */
async function cutOff(p: Page): Promise<string[]> {
  // Browser code as text: this folder's tsconfig has no DOM lib (as pages/scroll-measure.ts notes).
  return p.evaluate<string[]>(`(() => {
    const out = [];
    const doc = document.scrollingElement || document.documentElement;
    if (doc.scrollWidth > window.innerWidth + 1) out.push('the page scrolls sideways: ' + doc.scrollWidth + ' px in ' + window.innerWidth + ' px');
    for (const el of document.querySelectorAll('body *')) {
      const cs = getComputedStyle(el);
      if (cs.display === 'none' || cs.visibility === 'hidden') continue;
      const clips = cs.overflowX === 'hidden' || cs.overflowX === 'clip';
      if (!clips || cs.textOverflow === 'ellipsis') continue;
      if (el.scrollWidth > el.clientWidth + 1) {
        const id = el.dataset.testid || el.className || el.tagName;
        out.push(el.tagName.toLowerCase() + '.' + String(id) + ': ' + el.scrollWidth + ' px in ' + el.clientWidth + ' px');
      }
    }
    // Texts outside an SVG chart's own box (a row label running off its left edge).
    for (const svg of document.querySelectorAll('svg')) {
      const box = svg.getBoundingClientRect();
      if (box.width === 0) continue;
      for (const t of svg.querySelectorAll('text')) {
        const r = t.getBoundingClientRect();
        if (r.width > 0 && (r.left < box.left - 1 || r.right > box.right + 1)) out.push('svg text "' + t.textContent + '" runs outside its chart');
      }
    }
    return out;
  })()`);
}

test('at 1024 px wide no screen cuts anything off', async () => {
  await page.setViewportSize({ width: 1024, height: 800 });
  const screens: ScreenName[] = ['experiments', 'studies', 'runs', 'arena', 'transcripts', 'evaluation', 'export', 'play', 'annotate', 'audit', 'models'];
  const found: string[] = [];
  for (const s of screens) {
    await lab.go(s);
    await expect(page.getByTestId('loading-state')).toHaveCount(0);
    for (const c of await cutOff(page)) found.push(`${s}: ${c}`);
    await lab.screenshot(`plain-1024-${s}`);
  }
  expect(found).toEqual([]);
});
