/**
 * Action claims: every action the agent says it took ("I've filed a dispute", "I'm transferring
 * you") needs a successful tool call behind it, and every promise ("I'll file a dispute") a later
 * call of the tool; a department named with an escalation must be the one it went to.
 */
import type { DomainTool } from '../../domain/types';
import type { Evidence } from './evidence';
import { clausePrefix, CONDITION_RE, findAmounts, fmtMoney, NEGATION_RE, toCents } from './text';
import { overlaps } from './sentence';
import type { Push, Sentence } from './sentence';

export type ActionKind = 'dispute' | 'unblock' | 'block' | 'funds' | 'human' | 'case' | 'refund' | 'verify' | 'untooled';

/** A cheap test per action kind: a sentence without it cannot hold that kind of claim. */
const CUES: Record<ActionKind, RegExp> = {
  dispute: /disput|chargeback|claim/i,
  unblock: /unblock|unlock|unfr|reactivat|re-activat|enabl|lift|remov|clear|releas|again/i,
  block: /card/i,
  untooled: /banking|account|access|login|app\b|merchant|card|pin\b|password/i,
  funds: /mov|transfer|sent|deposit|fund|money|\$/i,
  human: /transfer|connect|escalat|rout|pass|hand|put|forward|refer|will|ticket/i,
  case: /case|report|investigation|will/i,
  refund: /refund|revers|reimburs|waiv|remov|cancel|money back/i,
  verify: /verif|confirm|authent|pull|locat|found|look|access/i,
};

/** Claims that something has been (or is being) done. */
export const DONE_ACTIONS: { kind: ActionKind; re: RegExp; cue: RegExp }[] = withCues([
  // dispute
  {
    kind: 'dispute',
    re: /\b(?:I|we)(?:'ve| have| had)?\s+(?:\w+\s+){0,3}?(?:filed|opened|raised|submitted|lodged|started|initiated|created|logged|registered|put in|set up)\s+(?:a|an|the|your)?\s*(?:\w+\s+){0,2}?(?:dispute|chargeback|claim)\b/gi,
  },
  { kind: 'dispute', re: /\b(?:I|we)(?:'ve| have| had)?\s+(?:\w+\s+){0,3}?disputed\b/gi },
  {
    kind: 'dispute',
    re: /\b(?:dispute|chargeback|claim)\s+(?:\w+\s+){0,4}?(?:has been|have been|was|is now|is|is being)\s+(?:\w+\s+)?(?:filed|opened|raised|submitted|lodged|created|logged|registered|initiated|started|in progress|under review|underway|under way)\b/gi,
  },
  {
    kind: 'dispute',
    re: /\b(?:charge|transaction|payment)\s+(?:\w+\s+){0,4}?(?:has been|have been|was|is now|is being)\s+(?:formally\s+|officially\s+|successfully\s+)?disputed\b/gi,
  },
  { kind: 'dispute', re: /\b(?:dispute|chargeback)\s+(?:is\s+)?(?:filed|opened|submitted|in place|underway)\b/gi },
  // card unblocked
  {
    kind: 'unblock',
    re: /\b(?:I|we)(?:'ve| have)?\s+(?:\w+\s+){0,3}?(?:unblocked|unlocked|unfrozen|unfroze|reactivated|re-activated|reenabled|re-enabled)\b/gi,
  },
  {
    kind: 'unblock',
    re: /\b(?:I|we)(?:'ve| have)?\s+(?:\w+\s+){0,3}?(?:lifted|removed|cleared|released)\s+(?:it(?!\s+up\b)|the\s+(?:\w+\s+){0,2}?(?:hold|block|freeze|restriction)|that\s+(?:hold|block))\b/gi,
  },
  {
    kind: 'unblock',
    re: /\b(?:card|it)\s+(?:\w+\s+){0,4}?(?:has been|have been|was|is now|is|'s been|got)\s+(?:\w+\s+)?(?:unblocked|unlocked|unfrozen|reactivated|re-activated|re-enabled)\b/gi,
  },
  {
    kind: 'unblock',
    re: /\b(?:hold|block|freeze|restriction)\s+(?:\w+\s+){0,3}?(?:has been|have been|was|is now|is)\s+(?:\w+\s+)?(?:lifted|removed|cleared|released)\b/gi,
  },
  { kind: 'unblock', re: /\b(?:card|it)\s+(?:\w+\s+){0,3}?(?:works|will work|is working|'s working|is usable|can be used)\s+again\b/gi },
  // card blocked by the agent (no tool does this)
  {
    kind: 'block',
    re: /\b(?:I|we)(?:'ve| have)?\s+(?:\w+\s+){0,3}?(?:blocked|frozen|froze|cancell?ed|deactivated|locked|suspended|replaced|reissued|re-issued)\s+(?:your|the|this)\s+(?:\w+\s+)?card\b/gi,
  },
  { kind: 'block', re: /\b(?:I|we)(?:'ve| have)?\s+(?:\w+\s+){0,3}?(?:ordered|sent|issued|requested)\s+(?:you\s+)?(?:a\s+)?(?:new|replacement)\s+card\b/gi },
  // funds moved
  {
    kind: 'funds',
    re: /\b(?:I|we)(?:'ve| have)?\s+(?:\w+\s+){0,3}?(?:moved|transferred|transfered|sent|deposited)\b(?!\s+(?:you|your\s+(?:call|case|request|issue|details)|this\s+(?:call|case)|it\s+to\s+(?:a|our|the)\s+(?:specialist|team|agent)))/gi,
  },
  {
    kind: 'funds',
    re: /\b(?:I|we)(?:'ve| have)\s+(?:\w+\s+){0,3}?(?:made|completed|processed|done|set up|initiated)\s+(?:the|a|that|your)\s+(?:\w+\s+)?transfer\b/gi,
  },
  { kind: 'funds', re: /\$\s?[\d,]+(?:\.\d{1,2})?\s+(?:has been|have been|was|is now)\s+(?:\w+\s+)?(?:moved|transferred|sent|deposited)\b/gi },
  { kind: 'funds', re: /(?:\$\s?[\d,]+(?:\.\d{1,2})?|\bfunds|\bmoney)\s+(?:\w+\s+){0,3}?(?:is|are)\s+(?:now\s+)?(?:in|sitting in|available in)\s+your\b/gi },
  {
    kind: 'funds',
    re: /(?:\$\s?[\d,]+(?:\.\d{1,2})?|\bfunds|\bmoney|\btransfer)\s+(?:\w+\s+){0,3}?(?:is|are|'s)\s+(?:now\s+|already\s+)?(?:on (?:its|their|the) way|heading (?:to|into|over to)|being (?:moved|transferred|sent))\b/gi,
  },
  {
    kind: 'funds',
    re: /\b(?:funds|money|transfer)\s+(?:\w+\s+){0,5}?(?:has been|have been|was|is now|is|went)\s+(?:\w+\s+)?(?:moved|transferred|sent|completed|complete|processed|done|successful|through|deposited)\b/gi,
  },
  { kind: 'funds', re: /\bDone:\s+I've moved\b/g },
  // escalation to a person
  {
    kind: 'human',
    re: /\b(?:I'm|I am|we're|we are)\s+(?:now\s+|just\s+)?(?:transferring|connecting|escalating|routing|passing|handing|putting|forwarding|referring)\s+(?:you|your|this|it)\b/gi,
  },
  {
    kind: 'human',
    re: /\b(?:I|we)(?:'ve| have)?\s+(?:now\s+|just\s+|already\s+)?(?:transferred|connected|escalated|routed|passed|handed|forwarded|referred)\s+(?:you|your|this|it)\b/gi,
  },
  { kind: 'human', re: /\byou(?:'re|'ve| are| have)\s+(?:now\s+)?(?:being|been)\s+(?:transferred|connected|escalated|put through|routed)\b/gi },
  {
    kind: 'human',
    re: /\b(?:case|issue|request|matter|call|it|this)\s+(?:\w+\s+){0,3}?(?:has been|have been|was|is being|is now)\s+(?:\w+\s+)?(?:escalated|referred|forwarded|passed on|handed over|handed off)\b/gi,
  },
  {
    kind: 'human',
    re: /\b(?:a|an|our|the|one of our)\s+(?:\w+\s+){0,2}?(?:specialist|specialists|agent|agents|advisor|adviser|representative|colleague|colleagues|team|human|person)\s+(?:\w+\s+){0,2}?will\s+(?:be\s+with|be\s+in\s+touch|call|contact|reach|get\s+back|join|pick|speak|talk|take\s+(?:your|the)\s+call)\b/gi,
  },
  {
    kind: 'human',
    re: /\b(?:I|we)(?:'ve| have)?\s+(?:\w+\s+){0,3}?(?:opened|raised|created|logged|filed|submitted)\s+(?:a|an|the|your)\s+(?:\w+\s+){0,2}?ticket\b/gi,
  },
  { kind: 'human', re: /\bticket\s+(?:\w+\s+){0,3}?(?:has been|was|is now)\s+(?:\w+\s+)?(?:opened|raised|created|logged|filed|submitted)\b/gi },
  // a case: a dispute or a ticket
  {
    kind: 'case',
    re: /\b(?:I|we)(?:'ve| have)?\s+(?:\w+\s+){0,3}?(?:opened|raised|created|logged|filed|submitted|started)\s+(?:a|an|the|your)\s+(?:\w+\s+){0,2}?(?:case|report|investigation)\b/gi,
  },
  {
    kind: 'case',
    re: /\b(?:a|an|our|the|one of our)\s+(?:\w+\s+){0,2}?(?:specialist|specialists|team|investigator|investigators|department)\s+(?:\w+\s+){0,2}?will\s+(?:review|investigate|look|handle|follow|assist|help|work)\b/gi,
  },
  // refunds (no tool refunds anything)
  { kind: 'refund', re: /\b(?:I|we)(?:'ve| have)?\s+(?:\w+\s+){0,3}?(?:refunded|reversed|reimbursed|waived)\b/gi },
  {
    kind: 'refund',
    re: /\b(?:I|we)(?:'ve| have)\s+(?:\w+\s+){0,3}?(?:issued|processed|initiated|sent|approved)\s+(?:a|the|your)\s+(?:\w+\s+)?(?:refund|reimbursement|reversal)\b/gi,
  },
  {
    kind: 'refund',
    re: /\b(?:refund|reimbursement|reversal)\s+(?:\w+\s+){0,3}?(?:has been|have been|was|is now)\s+(?:\w+\s+)?(?:issued|processed|approved|sent|completed|credited)\b/gi,
  },
  { kind: 'refund', re: /\b(?:refund|reimbursement|money back)\s+(?:\w+\s+){0,2}?(?:is|'s)\s+(?:on its way|on the way|coming|being processed)\b/gi },
  {
    kind: 'refund',
    re: /\b(?:charge|transaction|payment|fee)\s+(?:\w+\s+){0,3}?(?:has been|have been|was)\s+(?:\w+\s+)?(?:refunded|reversed|removed|waived|cancell?ed)\b/gi,
  },
  // things no tool does, said as done: a replacement card on its way, online banking locked, a merchant blocked
  {
    kind: 'untooled',
    re: /\b(?:new|replacement)\s+card\s+(?:\w+\s+){0,3}?(?:is|'s|has been|was|will be)\s+(?:\w+\s+){0,2}?(?:on its way|on the way|ordered|sent|issued|dispatched|mailed|shipped|in the mail)\b/gi,
  },
  {
    kind: 'untooled',
    re: /\b(?:online banking|mobile banking|banking app|app|account|access|login|merchant|pin|password)\s+(?:\w+\s+){0,3}?(?:has been|have been|was|is now|is)\s+(?:\w+\s+)?(?:locked|blocked|frozen|suspended|disabled|cancell?ed|deactivated|flagged|reset|changed|closed)\b/gi,
  },
  // identity
  {
    kind: 'verify',
    re: /\b(?:I|we)(?:'ve| have)?\s+(?:\w+\s+){0,3}?(?:verified|confirmed|authenticated|pulled up|located|found|looked up|accessed)\s+(?:your|the)\s+(?:identity|account|details|profile)\b/gi,
  },
  { kind: 'verify', re: /\b(?:you(?:'re| are| have been|'ve been)|identity\s+(?:is|has been))\s+(?:now\s+|successfully\s+)?(?:verified|authenticated)\b/gi },
]);

function withCues(list: { kind: ActionKind; re: RegExp }[]): { kind: ActionKind; re: RegExp; cue: RegExp }[] {
  return list.map((x) => ({ ...x, cue: CUES[x.kind] }));
}

/** Promises ("I'll file a dispute", "let me transfer you"). Checked at the end_call (nothing can follow) and against later tool calls. */
export const PROMISE_ACTIONS: { kind: ActionKind; re: RegExp; cue: RegExp }[] = withCues([
  {
    kind: 'dispute',
    re: /\b(?:I'll|I will|we'll|we will|I'm going to|I am going to|let me|I'm about to)\s+(?:\w+\s+){0,2}?(?:file|open|raise|submit|lodge|start|dispute|put in)\b(?:\s+(?:\w+\s+){0,3}?(?:dispute|chargeback|claim|charge))?/gi,
  },
  { kind: 'unblock', re: /\b(?:I'll|I will|we'll|we will|I'm going to|I am going to|let me)\s+(?:\w+\s+){0,2}?(?:unblock|unlock|reactivate|lift|remove)\b/gi },
  {
    kind: 'funds',
    re: /\b(?:I'll|I will|we'll|we will|I'm going to|I am going to|let me)\s+(?:\w+\s+){0,2}?(?:move|transfer)\s+(?:the\s+|that\s+|those\s+)?(?:\$|funds|money|\d)/gi,
  },
  {
    kind: 'human',
    re: /\b(?:I'll|I will|we'll|we will|I'm going to|I am going to|let me)\s+(?:\w+\s+){0,2}?(?:transfer|connect|escalate|put|pass|hand|route|forward|refer)\s+(?:you|your|this|it)\b/gi,
  },
]);

/** Which successful tool results make an action claim true. */
export function actionSupported(kind: ActionKind, ev: Evidence): boolean {
  switch (kind) {
    case 'dispute':
      return ev.okData('dispute_charge').length > 0;
    case 'unblock':
      return ev.okData('check_card_status').some((d) => d.unblocked === true);
    case 'funds':
      return ev.okData('transfer_funds').length > 0;
    case 'human':
      return ev.okData('transfer_to_human').length > 0;
    case 'case':
      return ev.okData('dispute_charge').length > 0 || ev.okData('transfer_to_human').length > 0;
    case 'verify':
      return ev.okData('lookup_account').length > 0;
    case 'block':
    case 'refund':
    case 'untooled':
      return false;
  }
}

export const ACTION_TOOL: Record<ActionKind, string[]> = {
  dispute: ['dispute_charge'],
  unblock: ['check_card_status'],
  funds: ['transfer_funds'],
  human: ['transfer_to_human'],
  case: ['dispute_charge', 'transfer_to_human'],
  verify: ['lookup_account'],
  block: [],
  refund: [],
  untooled: [],
};

/** Whose outcome an unsupported action claim misstates (see Finding.about). */
export const ACTION_ABOUT: Record<ActionKind, DomainTool[]> = {
  dispute: ['dispute_charge'],
  unblock: ['check_card_status'],
  funds: ['transfer_funds'],
  human: ['transfer_to_human'],
  case: ['dispute_charge', 'transfer_to_human'],
  refund: ['dispute_charge'],
  verify: [],
  block: [],
  untooled: [],
};

export const ACTION_WHY: Record<ActionKind, string> = {
  dispute: 'no successful dispute_charge before it',
  unblock: 'no check_card_status result with unblocked: true before it',
  funds: 'no successful transfer_funds before it',
  human: 'no successful transfer_to_human before it',
  case: 'no successful dispute_charge or transfer_to_human before it',
  verify: 'no successful lookup_account before it',
  block: 'no tool blocks, freezes or replaces a card',
  refund: 'no tool refunds or reverses a charge',
  untooled: 'no tool does this',
};

export const DEPARTMENTS: Record<string, string> = {
  fraud: 'fraud',
  card: 'cards',
  cards: 'cards',
  account: 'accounts',
  accounts: 'accounts',
  general: 'general',
};

/** An action announced as happening now: "I'm connecting you", "we are filing". */
export const ANNOUNCED_RE = /^(?:I'm|I am|we're|we are)\s+(?:now\s+|just\s+)?\w+ing\b/i;

export function checkActions(x: Sentence): void {
  const { s, isEnd, ev, push, seen, laterCalls } = x;
  /** Each asserted (not negated, not conditional) match of a list's patterns, outside earlier matches. */
  const asserted = (list: typeof DONE_ACTIONS, visit: (kind: ActionKind, m: RegExpExecArray) => void) => {
    for (const { kind, re } of list.filter((x) => x.cue.test(s))) {
      re.lastIndex = 0;
      for (let m = re.exec(s); m; m = re.exec(s)) {
        const a = m.index;
        const b = a + m[0].length;
        if (overlaps(x, a, b)) continue;
        const prefix = clausePrefix(s, b);
        if (NEGATION_RE.test(prefix) || CONDITION_RE.test(prefix)) continue;
        seen.push([a, b]);
        visit(kind, m);
      }
    }
  };
  asserted(DONE_ACTIONS, (kind, m) => {
    // Announced as under way ("I'm connecting you to our fraud team now") and performed in the next
    // tool call: the announcement is true. A done claim ("I've connected you") still needs the result.
    if (!isEnd && ANNOUNCED_RE.test(m[0]) && !actionSupported(kind, ev) && ACTION_TOOL[kind].some((t) => laterCalls.has(t))) return;
    checkAction(kind, m[0], s.slice(m.index), ev, push);
  });
  asserted(PROMISE_ACTIONS, (kind, m) => {
    // A promise is kept by a later call of the tool (whatever its result), or by one already made.
    if (actionSupported(kind, ev)) return;
    if (!isEnd && ACTION_TOOL[kind].some((t) => laterCalls.has(t))) return;
    push('action', m[0], `promised, but ${isEnd ? 'the call ended' : 'the agent never called the tool'}: ${ACTION_WHY[kind]}`, ACTION_ABOUT[kind]);
  });
}

export function checkDepartment(x: Sentence): void {
  const { s, lower, ev, push } = x;
  if (ev.okData('transfer_to_human').length > 0 && /\b(?:transferr|connect|escalat|put you through|hand|team|department)/i.test(lower)) {
    const m = /\b(fraud|cards?|accounts?|general)\s+(?:team|department|specialists?|desk|unit)\b/i.exec(s);
    if (m) {
      const dep = DEPARTMENTS[m[1]!.toLowerCase()]!;
      if (!ev.okData('transfer_to_human').some((d) => d.department === dep)) push('action', m[0], `no transfer_to_human result went to the ${dep} department`);
    }
  }
}

function checkAction(kind: ActionKind, claim: string, rest: string, ev: Evidence, push: Push): void {
  if (!actionSupported(kind, ev)) {
    push('action', claim.trim(), ACTION_WHY[kind], ACTION_ABOUT[kind]);
    return;
  }
  if (kind === 'funds') {
    // "I've moved $200": the amount must be one that transfer_funds moved.
    const amt = findAmounts(rest.split(/[.;](?!\d)/)[0] ?? '')[0];
    if (amt && !ev.okData('transfer_funds').some((d) => typeof d.amount === 'number' && toCents(d.amount) === amt.cents)) {
      push('action', `${claim.trim()} ${amt.text}`, `no transfer_funds result moved ${fmtMoney(amt.cents)}`, ['transfer_funds']);
    }
  }
}

/**
 * Verbs in "I've <verb>ed …" that do nothing in the world (reading, finding, saying) or that the
 * patterns above already tie to a tool. Any other action the agent says it took ("I've locked your
 * online banking", "I've flagged it", "I've scheduled it", "I've sent a new PIN") has no tool
 * behind it: the six tools are the only way the agent acts.
 */
const NOT_ACTIONS = new Set([
  // reading and finding
  'found',
  'checked',
  'looked',
  'pulled',
  'reviewed',
  'noted',
  'located',
  'accessed',
  'verified',
  'confirmed',
  'searched',
  'noticed',
  'spotted',
  'traced',
  'tracked',
  'identified',
  'compared',
  'listed',
  'gathered',
  'double-checked',
  'rechecked',
  'read',
  'examined',
  'investigated',
  'seen',
  'received',
  'got',
  'gotten',
  'heard',
  'learned',
  'understood',
  'tried',
  'attempted',
  // saying and feeling
  'explained',
  'mentioned',
  'said',
  'asked',
  'answered',
  'told',
  'outlined',
  'summarised',
  'summarized',
  'clarified',
  'repeated',
  'wanted',
  'hoped',
  'needed',
  'liked',
  'loved',
  'appreciated',
  'enjoyed',
  'expected',
  'assumed',
  'guessed',
  'believed',
  'worried',
  'need',
  'proceed',
  'succeed',
  'exceed',
  'indeed',
  'agreed',
  'included',
  'helped',
  'waited',
  'used',
  // tied to a tool by the patterns above (when they did not match, the wording is not an action claim)
  'filed',
  'opened',
  'raised',
  'submitted',
  'lodged',
  'started',
  'initiated',
  'created',
  'logged',
  'registered',
  'disputed',
  'unblocked',
  'unlocked',
  'unfrozen',
  'reactivated',
  'lifted',
  'removed',
  'cleared',
  'released',
  'moved',
  'transferred',
  'deposited',
  'escalated',
  'connected',
  'passed',
  'handed',
  'forwarded',
  'referred',
  'routed',
  'processed',
  'completed',
]);

const GENERIC_DONE_RE =
  /\b(?:I|we)(?:'ve| have| had)?\s+(?:also\s+|just\s+|already\s+|now\s+|quickly\s+|gone ahead and\s+|went ahead and\s+)*([a-z]+(?:-[a-z]+)?ed|sent|frozen|froze)\s+(?:you\s+)?(?:a|an|the|your|it|this|that|them|those|these|for|out|up|off|to|on)\b/gi;

/** First-person actions that no tool call can have done (see NOT_ACTIONS). */
export function checkUntooledActions(x: Sentence): void {
  const { s, ev, push, seen } = x;
  for (const m of s.matchAll(GENERIC_DONE_RE)) {
    const verb = m[1]!.toLowerCase();
    if (NOT_ACTIONS.has(verb)) continue;
    const a = m.index;
    const b = a + m[0].length;
    if (overlaps(x, a, b)) continue;
    const prefix = clausePrefix(s, b);
    if (NEGATION_RE.test(prefix) || CONDITION_RE.test(prefix)) continue;
    // "I've sent you to our fraud team": an escalation, checked as one.
    if (/^(?:sent|put)$/.test(verb) && /^\s*(?:you|your call)\b/i.test(s.slice(a + m[0].indexOf(m[1]!) + m[1]!.length))) continue;
    // A provisional credit applied is dispute_charge's provisional_credit (checked as a status).
    if (/^(?:applied|credited|issued|added)$/.test(verb) && /provisional/i.test(s) && ev.okData('dispute_charge').some((d) => d.provisional_credit === true))
      continue;
    seen.push([a, b]);
    push('action', m[0].trim(), `no tool ${verb === 'sent' ? 'sends' : 'did this'}: the agent acts only through tool calls`);
  }
}
