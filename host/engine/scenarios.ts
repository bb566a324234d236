/**
 * Scenarios in the app: the shipped ones and the lab's custom ones (host/store/scenario-store.ts)
 * in one list; custom ones are written, replaced and deleted here. A scenario with problems comes
 * back with every problem by field and nothing stored.
 */
import type { Handlers, ScenarioInfo } from '../../core/contract/contract';
import type { ScenarioDraft } from '../../core/domain/schema';
import {
  COMPLEXITIES,
  CONVERSATIONAL_ADVERSITIES,
  DETAIL_SLOTS,
  DOMAIN_TOOLS,
  EXECUTION_ADVERSITIES,
  FALLBACK_BEHAVIORS,
  SITUATIONS,
  TOOL_NAMES,
  complexityOf,
} from '../../core/domain/types';
import type { Domain, Scenario } from '../../core/domain/types';
import type { CustomScenarioStore } from '../store/scenario-store';

export function scenarioInfo(s: Scenario, custom: boolean): ScenarioInfo {
  return {
    id: s.id,
    title: s.title,
    set: s.set,
    description: s.description,
    fraudReference: s.fraudReference,
    expectedTool: s.expectedTool,
    intents: s.intents,
    task: s.task,
    persona: s.persona,
    adversities: s.adversities,
    impossible: s.impossible,
    complexity: complexityOf(s),
    referenceActions: s.referenceActions?.length ?? 0,
    custom,
  };
}

export function scenarioHandlers(
  builtin: () => Domain,
  custom: CustomScenarioStore,
): Pick<Handlers, 'scenarios/list' | 'scenarios/get' | 'scenarios/save' | 'scenarios/remove' | 'scenarios/vocabulary' | 'scenarios/check'> {
  return {
    'scenarios/vocabulary': () => ({
      tools: [...TOOL_NAMES],
      domainTools: [...DOMAIN_TOOLS],
      situations: [...SITUATIONS],
      complexities: [...COMPLEXITIES],
      conversationalAdversities: [...CONVERSATIONAL_ADVERSITIES],
      executionAdversities: [...EXECUTION_ADVERSITIES],
      detailSlots: [...DETAIL_SLOTS],
      fallbackBehaviors: [...FALLBACK_BEHAVIORS],
      intents: builtin().taxonomy.map((e) => ({ intent: e.intent, tool: e.tool })),
    }),

    'scenarios/list': () => [...builtin().scenarios.map((s) => scenarioInfo(s, false)), ...custom.list().map((s) => scenarioInfo(s, true))],

    'scenarios/get': ({ id }): ScenarioDraft => {
      const s = builtin().scenarios.find((x) => x.id === id) ?? custom.get(id);
      if (!s) throw new Error(`scenarios/get: no scenario "${id}" in this lab`);
      const { set: _set, ...draft } = s;
      return draft;
    },

    'scenarios/save': ({ scenario, replaces }) => {
      const r = custom.save(scenario, replaces !== undefined ? { replaces } : {});
      return r.ok ? { ok: true, scenario: scenarioInfo(r.scenario, true) } : r;
    },

    'scenarios/check': ({ scenario, replaces }) => {
      const r = custom.check(scenario, replaces !== undefined ? { replaces } : {});
      return { problems: r.ok ? [] : r.problems };
    },

    'scenarios/remove': ({ id }) => {
      if (builtin().scenarios.some((s) => s.id === id))
        throw new Error(`scenarios/remove: "${id}" is a shipped scenario (an asset file); only custom scenarios can be deleted`);
      if (!custom.remove(id)) throw new Error(`scenarios/remove: no custom scenario "${id}" in this lab`);
      return { ok: true };
    },
  };
}
