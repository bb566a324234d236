/**
 * `sparring knobs …`: EAU's knobs of a run from the terminal (core/eau/knobs.ts). Writes go
 * through the lab's checked queue, so a run driven by another process (the app, `sparring run`
 * in another terminal) takes them at its next step or phase boundary. A refused write prints its
 * rule and exits 1.
 */
import type { Command } from 'commander';
import type { KnobWriteResult, KnobWriteView } from '../../../core/eau/view';
import { KNOBS, knobValue } from '../../../core/eau/knobs';
import { knobConsole, knobHistory } from '../../engine/knobs';
import { MetaAgentError, suggestForRun } from '../../eau/meta-agent';
import type { KnobInfo } from '../../eau/meta-agent';
import { resolveChatBackend } from '../../policies/policies';
import { knobStore } from '../../store/knob-store';
import type { KnobStore, WriteResult } from '../../store/knob-store';
import { openSqliteStore } from '../../store/sqlite-store';
import { table } from '../../format/table';
import { UsageError } from '../options';
import type { GlobalOptions } from '../global-options';

const fmt = (x: number | null | undefined, digits = 4) =>
  x === null || x === undefined ? '—' : Number.isInteger(x) ? String(x) : String(Number(x.toPrecision(digits)));

function withStore<T>(g: GlobalOptions, f: (ks: KnobStore) => T): T {
  const store = openSqliteStore(g.db);
  try {
    return f(knobStore(store.db));
  } finally {
    store.close();
  }
}

function writeId(text: string): number {
  const m = /^W?(\d+)$/i.exec(text.trim());
  if (!m) throw new UsageError(`"${text}" is not a write id (W3 or 3)`);
  return Number(m[1]);
}
function proposalId(text: string): number {
  const m = /^P?(\d+)$/i.exec(text.trim());
  if (!m) throw new UsageError(`"${text}" is not a proposal id (P2 or 2)`);
  return Number(m[1]);
}

function where(s: KnobWriteView['state'] | null): string {
  if (!s) return '—';
  return `${s.phase}, ${s.matches} match${s.matches === 1 ? '' : 'es'}${s.gym ? `, ${s.gym} step ${s.gymStep}` : ''}`;
}

function effectLine(w: KnobWriteView): string {
  if (!w.effect) return w.status === 'pending' ? 'pending' : '—';
  const main = w.effect.effects.find((e) => e.noiseFloor !== null && !e.measure.startsWith('CA ')) ?? w.effect.effects[0]!;
  const d = main.delta === null ? 'n/a' : `${main.delta >= 0 ? '+' : ''}${main.delta.toFixed(3)}`;
  return `${w.effect.mark}: ${main.measure} ${d} (noise ±${main.noiseFloor === null ? 'n/a' : main.noiseFloor.toFixed(3)}; n ${main.before.n}/${main.after.n})`;
}

/** Prints an accepted write or the refusal with its rule (exit code 1). */
function report(g: GlobalOptions, r: WriteResult | KnobWriteResult, what: string): void {
  if (g.json) process.stdout.write(JSON.stringify(r, null, 2) + '\n');
  if (!r.ok) {
    process.stderr.write(`refused (${r.rule}): ${r.message}\n`);
    process.exitCode = 1;
    return;
  }
  const w = r.write;
  if (!g.json)
    process.stdout.write(
      `W${w.id} ${what}: ${w.knob} ${fmt(w.requestedFrom)} → ${fmt(w.value)} (${w.by}); queued, the run takes it at its next ${w.knob.startsWith('gym.') && /\.(K|lr|klBeta|clipEps)$/.test(w.knob) ? 'GRPO step' : 'phase'} boundary\n`,
    );
}

export function registerKnobs(program: Command, globals: () => GlobalOptions): void {
  const knobs = program
    .command('knobs')
    .description('EAU: steer a live run through its knobs (checked writes, hot-swapped at the next step), audit log, proposals, history');

  knobs
    .command('list')
    .argument('<run>', 'the run (R1, …)')
    .description('every knob of the run: current value, range, owner, meaning, and its writes')
    .action((runId: string) => {
      const g = globals();
      const c = withStore(g, (ks) => knobConsole(ks, runId));
      if (g.json) return void process.stdout.write(JSON.stringify(c, null, 2) + '\n');
      const writesOf = (id: string) =>
        c.writes
          .filter((w) => w.knob === id)
          .map((w) => `W${w.id}`)
          .join(' ');
      process.stdout.write(
        `run ${runId}: phase ${c.phase}, recent success W_DA ${c.recentSuccess === null ? 'n/a' : c.recentSuccess.toFixed(3)}, difficulty gate ${c.difficultyGate}\n\n`,
      );
      process.stdout.write(
        table(
          ['knob', 'value', 'range', 'unit', 'owner', 'harder', 'applies at', 'writes', 'meaning'],
          c.knobs.map((k) => [
            k.id,
            `${fmt(k.value)}${k.queued !== k.value ? ` (→ ${fmt(k.queued)} queued)` : ''}`,
            `[${fmt(k.min)}, ${fmt(k.max)}]`,
            k.unit,
            k.owner,
            k.raisesDifficulty ?? '—',
            k.boundary === 'step' ? 'GRPO step' : 'phase',
            writesOf(k.id),
            k.meaning,
          ]),
        ) + '\n',
      );
    });

  knobs
    .command('set')
    .argument('<run>', 'the run')
    .argument('<knob>', 'a knob id (sparring knobs list RUN)')
    .argument('<value>', 'the new value')
    .requiredOption('--reason <text>', 'why (kept in the audit log)')
    .option('--by <who>', 'person[:name], diagnostic:<name> or llm:<model>', 'person')
    .description("a checked write, applied at the run's next step boundary; a refusal names its rule and exits 1")
    .action((runId: string, knob: string, value: string, opts: { reason: string; by: string }) => {
      const g = globals();
      report(
        g,
        withStore(g, (ks) => ks.request(runId, { knob, value, reason: opts.reason, by: opts.by })),
        'queued',
      );
    });

  knobs
    .command('revert')
    .argument('<run>', 'the run')
    .argument('<write>', 'the write to revert (W3)')
    .option('--reason <text>', 'why')
    .option('--by <who>', 'who reverts', 'person')
    .description('a write back to the value the write replaced, linked to it')
    .action((runId: string, id: string, opts: { reason?: string; by: string }) => {
      const g = globals();
      report(
        g,
        withStore(g, (ks) => ks.revert(runId, writeId(id), opts.by, opts.reason)),
        `reverts W${writeId(id)}`,
      );
    });

  knobs
    .command('log')
    .argument('<run>', 'the run')
    .description('the audit log: every write with who, why, the run state at write and apply time, and its measured effect')
    .action((runId: string) => {
      const g = globals();
      const c = withStore(g, (ks) => knobConsole(ks, runId));
      if (g.json) return void process.stdout.write(JSON.stringify(c.writes, null, 2) + '\n');
      if (c.writes.length === 0) return void process.stdout.write(`run ${runId}: no knob writes\n`);
      process.stdout.write(
        table(
          ['write', 'knob', 'from → to', 'by', 'status', 'written at', 'applied at', 'effect', 'reason'],
          c.writes.map((w) => [
            `W${w.id}${w.reverts ? ` (reverts W${w.reverts})` : ''}${w.revertedBy ? ` (reverted by W${w.revertedBy})` : ''}`,
            w.knob,
            `${fmt(w.from ?? w.requestedFrom)} → ${fmt(w.value)}`,
            w.by,
            w.status,
            where(w.state),
            where(w.appliedState),
            effectLine(w),
            w.reason,
          ]),
        ) + '\n',
      );
    });

  knobs
    .command('proposals')
    .argument('<run>', 'the run')
    .description('what the diagnostics (or an LLM meta-agent) propose, with their evidence')
    .action((runId: string) => {
      const g = globals();
      const c = withStore(g, (ks) => knobConsole(ks, runId));
      if (g.json) return void process.stdout.write(JSON.stringify(c.proposals, null, 2) + '\n');
      if (c.proposals.length === 0) return void process.stdout.write(`run ${runId}: no proposals\n`);
      process.stdout.write(
        table(
          ['proposal', 'knob', 'value', 'source', 'status', 'figures', 'episodes', 'reason'],
          c.proposals.map((p) => [
            `P${p.id}`,
            p.knob,
            String(p.value),
            p.source.kind === 'diagnostic' ? `diagnostic:${p.source.name}` : `llm:${p.source.model}`,
            `${p.status}${p.writeId ? ` (W${p.writeId})` : ''}`,
            Object.entries(p.evidence.figures)
              .map(([k, v]) => `${k} ${fmt(v, 3)}`)
              .join(', '),
            p.evidence.episodes.length,
            p.reason,
          ]),
        ) + '\n',
      );
    });

  knobs
    .command('accept')
    .argument('<run>', 'the run')
    .argument('<proposal>', 'the proposal (P2)')
    .option('--value <v>', 'an edited value instead of the proposed one')
    .description('accept a proposal: a write through the same checks')
    .action((runId: string, id: string, opts: { value?: string }) => {
      const g = globals();
      report(
        g,
        withStore(g, (ks) => ks.accept(runId, proposalId(id), opts.value !== undefined ? { value: opts.value } : {})),
        `accepts P${proposalId(id)}`,
      );
    });

  knobs
    .command('dismiss')
    .argument('<run>', 'the run')
    .argument('<proposal>', 'the proposal (P2)')
    .description('dismiss a proposal (kept in the lab as dismissed)')
    .action((runId: string, id: string) => {
      const g = globals();
      try {
        withStore(g, (ks) => ks.dismiss(runId, proposalId(id)));
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
      process.stdout.write(`P${proposalId(id)} dismissed\n`);
    });

  knobs
    .command('suggest')
    .argument('<run>', 'the run')
    .requiredOption('--model <name>', 'an LLM endpoint saved in the lab (sparring models add)')
    .description(
      "EAU's optional LLM meta-agent: hand the run's latest diagnostics' evidence and its knobs (current value, range, meaning) to an endpoint; its one proposed write is recorded as a proposal for a person to accept, edit or dismiss — never applied",
    )
    .action(async (runId: string, opts: { model: string }) => {
      const g = globals();
      const backend = resolveChatBackend(opts.model, { db: g.db, seed: g.seed });
      if (!backend) throw new UsageError(`--model ${opts.model}: no LLM endpoint of that name in ${g.db} (sparring models list)`);
      const store = openSqliteStore(g.db);
      try {
        const ks = knobStore(store.db);
        let config;
        try {
          config = ks.effective(runId);
        } catch (e) {
          throw new UsageError((e as Error).message);
        }
        const knobsNow: KnobInfo[] = KNOBS.map((k) => ({ id: k.id, value: knobValue(config, k.id), min: k.min, max: k.max, meaning: k.meaning }));
        let proposal;
        try {
          proposal = await suggestForRun(store.db, runId, backend, knobsNow);
        } catch (e) {
          if (e instanceof MetaAgentError) throw new UsageError(`--model ${opts.model}: ${e.message}`);
          throw e;
        }
        const added = ks.recordProposals(runId, [proposal]);
        const stored = ks.proposals(runId).at(-1)!;
        if (g.json) return void process.stdout.write(JSON.stringify({ added, proposal: stored }, null, 2) + '\n');
        const why = proposal.source.kind === 'llm' ? proposal.source.reasoning : '';
        process.stdout.write(
          `P${stored.id} ${proposal.knob} → ${String(proposal.value)} (llm:${opts.model}): ${proposal.reason}\n  reasoning: ${why}\n${added ? '' : '  (the same proposal was already recorded)\n'}accept with: npx sparring knobs accept ${runId} P${stored.id}\n`,
        );
      } finally {
        store.close();
      }
    });

  knobs
    .command('history')
    .argument('<knob>', 'a knob id')
    .description('the experience pool: what past runs learnt about a knob (from, to, context, effect)')
    .action((knob: string) => {
      const g = globals();
      const rows = withStore(g, (ks) => knobHistory(ks, knob));
      if (g.json) return void process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
      if (rows.length === 0) return void process.stdout.write(`no run has written ${knob}\n`);
      process.stdout.write(
        table(
          ['run', 'preset', 'write', 'from → to', 'applied at', 'by', 'effect', 'reason'],
          rows.map((r) => [
            r.runId,
            r.preset || '—',
            `W${r.write.id}`,
            `${fmt(r.write.from)} → ${fmt(r.write.value)}`,
            where(r.write.appliedState),
            r.write.by,
            effectLine(r.write),
            r.write.reason,
          ]),
        ) + '\n',
      );
    });
}
