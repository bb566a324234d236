/**
 * Human play end to end on the real engine (`sparring serve`, temporary lab) in Chromium: one
 * full episode in each seat, refused bad moves, a take-over from the Transcripts screen, and an
 * unfinished session that survives its window. Screenshots go to test-results/screenshots/.
 */
import { expect, test } from '@playwright/test';
import { CA_TERMS, DA_TERMS } from '../../core/rewards/terms';
import type { Page } from '@playwright/test';
import { LabPage } from './pages/lab-page';
import { PlayPage } from './pages/play-page';
import { TranscriptsPage } from './pages/transcripts-page';

test.describe.configure({ mode: 'serial' });

let page: Page;
let lab: LabPage;
let play: PlayPage;
/** The customer-seat episode of the first test; the take-over test forks it. */
let customerEpisode = '';

test.beforeAll(async ({ browser }) => {
  lab = await LabPage.openNew(browser);
  page = lab.page;
  play = new PlayPage(page);
});

test.afterAll(async () => {
  await page.close();
});

/** The finished episode's DA terms add up to the r_DA shown, and the judge's verdict is there. */
async function expectScored(): Promise<void> {
  const result = page.getByTestId('play-result');
  await expect(result.getByTestId('judge-rationale')).not.toBeEmpty();
  const terms = await new TranscriptsPage(page).rewardTerms();
  expect(Object.keys(terms.da)).toEqual([...DA_TERMS]);
  expect(Object.keys(terms.ca)).toEqual([...CA_TERMS]);
  const sum = (r: Record<string, number>) => Object.values(r).reduce((s, x) => s + x, 0);
  expect(Math.abs(sum(terms.da) - terms.rDa)).toBeLessThan(0.02);
  expect(Math.abs(sum(terms.ca) - terms.rCa)).toBeLessThan(0.02);
}

test('plays one full episode as the customer against the scripted DA', async () => {
  await lab.go('play');
  await expect(page.getByTestId('play-sessions-empty')).toBeVisible();
  await lab.screenshot('play-01-setup');

  await play.start({ player: 'Ada', seat: 'customer', opponent: 'scripted', scenario: 'dispute-unrecognized', seed: 3 });
  const merchant = (await page.locator('[data-fact="merchant"]').textContent()) ?? '';
  await expect(page.getByTestId('play-intent')).not.toBeEmpty();

  await play.say('   ');
  await expect(play.error).toContainText('the message is empty');
  await expect(play.turns()).toHaveCount(0);
  await lab.screenshot('play-02-customer-empty-message');

  await play.say(`Hi, I see a charge from ${merchant} that I really do not recognise.`);
  // The DA's internals are hidden from the caller by default (plain-words.spec.ts checks that);
  // with the researcher's toggle its tool calls and their results show as they come back.
  await page.getByTestId('play-show-internals').check();
  await expect(page.getByTestId('tool-result').first()).toBeVisible();
  await lab.screenshot('play-03-customer-chat');
  for (const line of ['Yes please, go ahead.', 'Thanks, that is all.', 'Bye.']) {
    if ((await play.status()) === 'finished') break;
    await play.say(line);
  }
  await expect(play.session).toHaveAttribute('data-status', 'finished');
  await expectScored();
  customerEpisode = await play.resultEpisodeId();
  expect(customerEpisode).toMatch(/^H\d+:0$/);
  await lab.screenshot('play-04-customer-verdict');
});

test('plays one full episode as the agent with the tool panel; a bad tool call is refused', async () => {
  await page.getByTestId('play-leave').click();
  await play.start({ player: 'Bo', seat: 'agent', opponent: 'scripted', seed: 5 });
  await expect(page.getByTestId('play-intent')).toHaveCount(0); // hidden from the agent until the call ends
  await expect(play.turns()).toHaveCount(1); // the customer spoke first

  await play.callTool('lookup_account', { phone: await play.callerPhone() });
  const account = ((await play.lastToolData()).accounts as { account_id: string }[])[0]!.account_id;

  await play.callTool('get_transactions', { account_id: account, limit: '9' });
  await expect(play.error).toContainText('get_transactions: Limit must be at most 5');
  await expect(play.turns()).toHaveCount(2);
  await lab.screenshot('play-05-agent-refused-tool-call');

  await play.callTool('get_transactions', { account_id: account, limit: '5' });
  await expect(play.turns()).toHaveCount(3);
  await play.speak('I can see your five most recent transactions; nothing looks out of place.');
  await lab.screenshot('play-06-agent-chat');
  await play.endCall();
  await expect(page.getByTestId('play-intent')).not.toBeEmpty(); // revealed after the call
  await expectScored();
  await lab.screenshot('play-07-agent-verdict');
});

test('takes over a stored episode at a turn from the Transcripts screen', async () => {
  await page.getByTestId('play-leave').click();
  await page.getByTestId(`human-episode-${customerEpisode}`).click();
  await expect(page.getByTestId('episode-view')).toHaveAttribute('data-episode', customerEpisode);
  const stored = await page
    .getByTestId('turns')
    .locator('li.turn')
    .evaluateAll((lis) => lis.slice(0, 2).map((li) => (li.querySelector('.said') ?? li.querySelector('.tool-name'))?.textContent));
  await page.locator('[data-turn="2"]').getByTestId('take-over').click();
  await expect(page.getByTestId('play-fork')).toContainText(`Take over ${customerEpisode} at turn 2`);

  // The stored episode had a person as the customer: the agent seat needs a CA policy chosen.
  await page.getByTestId('play-player').fill('Cy');
  await page.getByTestId('play-seat').selectOption('agent');
  await page.getByTestId('play-fork-button').click();
  await expect(page.getByTestId('play-error')).toContainText('choose a policy');
  await page.getByTestId('play-opponent').selectOption('scripted');
  await page.getByTestId('play-fork-button').click();
  await expect(play.session).toBeVisible();
  await expect(play.session).toContainText(`fork of ${customerEpisode} at turn 2`);
  const replayed = await play
    .turns()
    .evaluateAll((lis) => lis.slice(0, 2).map((li) => (li.querySelector('.said') ?? li.querySelector('.tool-name'))?.textContent));
  expect(replayed).toEqual(stored);
  await lab.screenshot('play-08-takeover');

  await play.endCall('Sorry, I have to end the call here.');
  await expectScored();
  await page.getByTestId('play-leave').click();
  await expect(page.getByTestId('play-episodes')).toContainText(`fork of ${customerEpisode} @2`);
  await lab.screenshot('play-09-human-episodes');
});

test('keeps an unfinished episode when its window closes, to resume or discard', async ({ browser }) => {
  await play.start({ player: 'Di', seat: 'customer', opponent: 'scripted', seed: 8 });
  await play.say('Hello, I need some help with my account please.');
  const turns = await play.turns().count();
  const sessionId = (await play.session.getAttribute('data-session'))!;
  await page.close(); // mid-episode

  page = await browser.newPage();
  lab = new LabPage(page);
  play = new PlayPage(page);
  await lab.open();
  await lab.go('play');
  const row = page.getByTestId(`play-session-${sessionId}`);
  await expect(row).toContainText(`${turns} turns`);
  await lab.screenshot('play-10-unfinished-sessions');
  await row.getByRole('button', { name: 'Resume' }).click();
  await expect(play.session).toHaveAttribute('data-session', sessionId);
  await expect(play.turns()).toHaveCount(turns);
  await page.getByTestId('play-leave').click();
  await page.getByTestId(`play-session-${sessionId}`).getByRole('button', { name: 'Discard' }).click();
  await expect(page.getByTestId('play-sessions-empty')).toBeVisible();
});
