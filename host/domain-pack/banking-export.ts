/**
 * Banking as a domain pack, built FROM the code and the shipped domain files as they are today
 * (`scripts/export-banking-pack.ts` writes it to domains/banking/; a test checks the committed
 * pack equals what this builds). Everything the engine holds as a constant is read from that
 * constant; what it holds only inside a function body (tool result shapes, tool errors and their
 * conditions, which result field backs an action, the generator's ranges and situations) is
 * transcribed below in sections marked TRANSCRIBED, each naming the function it comes from.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { DOMAIN_TOOLS, TOOL_NAMES } from '../../core/domain/types';
import type { Scenario } from '../../core/domain/types';
import { CHANNELS, MERCHANTS, NEEDS_VERIFICATION, ODD_MERCHANTS, WORLD_TODAY, toolArgSchemas } from '../../core/world/backend';
import { DEFAULT_ADVERSITY_PROFILE, DEFAULT_MESSAGES, HOSTILE_LINES } from '../../core/world/adversities';
import { ASKED_PATTERNS, DETAIL_KINDS, DETAIL_LEADS, DETAIL_NOUNS, KIND_SLOTS, MERCHANT_PREPS, REVISE_LINE, VAGUE } from '../../core/agents/ca-choices';
import { DEFAULT_JUDGE_CONFIG } from '../../core/judge/config';
import { ACTION_ABOUT, ACTION_TOOL, ACTION_WHY, DEPARTMENTS, DONE_ACTIONS, PROMISE_ACTIONS } from '../../core/judge/claims/actions';
import { DESCRIPTOR_BRANDS } from '../../core/judge/claims/names';
import { REFUND_DONE_RE, STATUS_WORDS, TXN_PENDING_RE, TXN_POSTED_RE } from '../../core/judge/claims/statuses';
import { PROCESS_SUPPORTED } from '../../core/judge/claims/timelines';
import { PACK_FILE_SCHEMAS, PACK_FORMAT } from '../../core/domain-pack/schema';
import type { DomainPack, JsonSchemaNode, PackScenario, PackTool, ProgramStep } from '../../core/domain-pack/schema';
import { ASSETS_DIR, bankingDomain } from '../domain-files';
import { packJson } from './write';

const rx = (r: RegExp) => ({ pattern: r.source, flags: r.flags });

/** The JSON Schema of a zod tool-argument schema (amounts to the cent carry `x-maxDecimals`). */
function argumentSchema(schema: z.ZodType): JsonSchemaNode {
  const money = toolArgSchemas.transfer_funds.shape.amount;
  const out = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    override: (ctx) => {
      if (ctx.zodSchema === money) (ctx.jsonSchema as Record<string, unknown>)['x-maxDecimals'] = 2;
    },
  }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}

// ------------------------------------------------------------------------------ TRANSCRIBED: core/world/tool-types.ts (result interfaces)
const str = { type: 'string' } as const;
const num = { type: 'number' } as const;
const obj = (properties: Record<string, JsonSchemaNode>, required = Object.keys(properties)): JsonSchemaNode => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
const CARD_STATUS: JsonSchemaNode = { type: 'string', enum: ['active', 'blocked', 'frozen', 'expired'] };
const DEPARTMENT: JsonSchemaNode = { type: 'string', enum: ['fraud', 'cards', 'accounts', 'general'] };
const TRANSACTION = obj({
  transaction_id: str,
  date: { type: 'string', description: 'ISO date, YYYY-MM-DD' },
  merchant: str,
  amount: { type: 'number', description: 'positive, in dollars; direction says which way it went' },
  direction: { type: 'string', enum: ['debit', 'credit'] },
  status: { type: 'string', enum: ['posted', 'pending', 'refund_pending'] },
  channel: { type: 'string', enum: ['card', 'online', 'contactless', 'atm', 'transfer'] },
});
const RESULTS: Record<(typeof TOOL_NAMES)[number], JsonSchemaNode> = {
  lookup_account: obj({
    customer_id: str,
    name: str,
    verified: { type: 'boolean', const: true },
    accounts: { type: 'array', items: obj({ account_id: str, type: { type: 'string', enum: ['checking', 'savings'] }, balance: num }) },
    cards: { type: 'array', items: obj({ card_id: str, last4: str, status: CARD_STATUS }) },
  }),
  get_transactions: obj({ account_id: str, transactions: { type: 'array', items: TRANSACTION } }),
  dispute_charge: obj({
    dispute_id: str,
    transaction_id: str,
    merchant: str,
    amount: num,
    status: { type: 'string', const: 'filed' },
    provisional_credit: { type: 'boolean' },
  }),
  check_card_status: obj({
    card_id: str,
    last4: str,
    status: CARD_STATUS,
    last_decline: { anyOf: [obj({ merchant: str, amount: num, reason: str }), { type: 'null' }] },
    unblocked: { type: 'boolean' },
  }),
  transfer_funds: obj({
    transfer_id: str,
    from_account_id: str,
    to_account_id: str,
    amount: num,
    balances: { type: 'object', description: 'new balance by account id', additionalProperties: num },
  }),
  transfer_to_human: obj({ ticket_id: str, department: DEPARTMENT, wait_minutes: { type: 'integer' } }),
};

// ------------------------------------------------------------------------------ TRANSCRIBED: core/world/backend.ts (handlers)
const TOOL_BEHAVIOUR: Record<(typeof TOOL_NAMES)[number], Pick<PackTool, 'reads' | 'changes' | 'errors' | 'parameters'>> = {
  lookup_account: {
    reads: ['customer', 'accounts', 'cards'],
    changes: ['verified'],
    errors: [{ code: 'NOT_FOUND', when: "the phone's digits are not the customer's (message: no customer with that phone number)" }],
  },
  get_transactions: {
    reads: ['accounts[].transactions'],
    changes: [],
    errors: [{ code: 'NOT_FOUND', when: 'no account has account_id (message: no account <id>)' }],
    parameters: { defaultLimit: 5 },
  },
  dispute_charge: {
    reads: ['accounts[].transactions', 'disputes'],
    changes: ['disputes'],
    errors: [
      { code: 'NOT_FOUND', when: 'no account has account_id (message: no account <id>)' },
      {
        code: 'INVALID_ARGUMENTS',
        when: 'neither transaction_id nor merchant nor amount is given (message: identify the charge: transaction_id, or merchant and/or amount)',
      },
      {
        code: 'NOT_FOUND',
        when: 'no debit matches transaction_id, or the merchant (either name contains the other, letters and digits only) and the amount to the cent (message: no matching charge on this account)',
      },
      {
        code: 'AMBIGUOUS',
        when: 'several debits match, unless reason is duplicate and exactly two identical charges match (then the later one is disputed) (message: <n> charges match; give the transaction_id)',
      },
      { code: 'NOT_ALLOWED', when: 'the charge is already disputed (message: this charge is already disputed)' },
    ],
    parameters: { provisionalCreditMax: 500 },
  },
  check_card_status: {
    reads: ['cards'],
    changes: ['cards[].status', 'cards[].blockReason'],
    errors: [{ code: 'NOT_FOUND', when: 'no card has card_id (message: no card <id>)' }],
    parameters: { unblockOnlyReason: 'fraud_hold' },
  },
  transfer_funds: {
    reads: ['accounts'],
    changes: ['accounts[].balance', 'transfers'],
    errors: [
      { code: 'NOT_ALLOWED', when: 'from_account_id equals to_account_id (message: source and destination are the same account)' },
      { code: 'NOT_FOUND', when: 'either account does not exist (message: no account <id>)' },
      { code: 'INSUFFICIENT_FUNDS', when: "the source's balance is below amount (message: balance <b> is below <amount>)" },
    ],
  },
  transfer_to_human: {
    reads: [],
    changes: ['tickets'],
    errors: [],
    parameters: { defaultDepartment: 'general', waitMinutes: { fraud: 2, default: 6 } },
  },
};

// ------------------------------------------------------------------------------ TRANSCRIBED: core/world/backend.ts (handlers) as tool programs
/**
 * The handlers as tool programs (core/domain-pack/tool-program.ts runs them): step for step the
 * same checks, in the same order, with the same messages, state changes and fresh-id draws;
 * core/domain-pack/tool-program.test.ts runs both on many seeded worlds and calls and compares.
 */
const accountStep = (name: string, arg: string): ProgramStep => ({
  op: 'find',
  name,
  in: 'state.accounts',
  where: `${name}.account_id == args.${arg}`,
  error: 'NOT_FOUND',
  message: `no account {args.${arg}}`,
});
const TOOL_PROGRAMS: Record<(typeof TOOL_NAMES)[number], ProgramStep[]> = {
  lookup_account: [
    { op: 'fail', if: 'digits(args.phone) != digits(state.customer.phone)', error: 'NOT_FOUND', message: 'no customer with that phone number' },
    { op: 'set', path: 'state.verified', value: 'true' },
    {
      op: 'return',
      value:
        '{ customer_id: state.customer.customer_id, name: state.customer.name, verified: true, ' +
        'accounts: map(state.accounts, a => { account_id: a.account_id, type: a.type, balance: a.balance }), ' +
        'cards: map(state.cards, c => { card_id: c.card_id, last4: c.last4, status: c.status }) }',
    },
  ],
  get_transactions: [
    accountStep('a', 'account_id'),
    { op: 'return', value: '{ account_id: a.account_id, transactions: copy(slice(a.transactions, 0, args.limit ?? params.defaultLimit)) }' },
  ],
  dispute_charge: [
    accountStep('a', 'account_id'),
    { op: 'let', name: 'candidates', value: "filter(a.transactions, t => t.direction == 'debit')" },
    {
      op: 'when',
      if: 'args.transaction_id != null',
      then: [{ op: 'let', name: 'candidates', value: 'filter(candidates, t => t.transaction_id == args.transaction_id)' }],
      else: [
        {
          op: 'fail',
          if: 'args.merchant == null && args.amount == null',
          error: 'INVALID_ARGUMENTS',
          message: 'identify the charge: transaction_id, or merchant and/or amount',
        },
      ],
    },
    {
      op: 'when',
      if: 'args.merchant != null',
      then: [
        { op: 'let', name: 'm', value: 'alnum(lower(args.merchant))' },
        { op: 'let', name: 'candidates', value: 'filter(candidates, t => includes(alnum(lower(t.merchant)), m) || includes(m, alnum(lower(t.merchant))))' },
      ],
    },
    { op: 'let', name: 'candidates', value: 'args.amount == null ? candidates : filter(candidates, t => abs(t.amount - args.amount) < 0.005)' },
    {
      op: 'when',
      if: "args.reason == 'duplicate' && len(candidates) == 2 && candidates[0].merchant == candidates[1].merchant && candidates[0].amount == candidates[1].amount",
      then: [{ op: 'let', name: 'candidates', value: '[candidates[0]]' }],
    },
    { op: 'fail', if: 'len(candidates) == 0', error: 'NOT_FOUND', message: 'no matching charge on this account' },
    { op: 'fail', if: 'len(candidates) > 1', error: 'AMBIGUOUS', message: '{len(candidates)} charges match; give the transaction_id' },
    { op: 'let', name: 't', value: 'candidates[0]' },
    { op: 'fail', if: 'some(state.disputes, d => d.transaction_id == t.transaction_id)', error: 'NOT_ALLOWED', message: 'this charge is already disputed' },
    {
      op: 'let',
      name: 'dispute',
      value:
        "{ dispute_id: newId('dsp'), transaction_id: t.transaction_id, merchant: t.merchant, amount: t.amount, status: 'filed', " +
        'provisional_credit: t.amount <= params.provisionalCreditMax }',
    },
    { op: 'append', to: 'state.disputes', value: 'dispute' },
    { op: 'return', value: 'dispute' },
  ],
  check_card_status: [
    { op: 'find', name: 'c', in: 'state.cards', where: 'c.card_id == args.card_id', error: 'NOT_FOUND', message: 'no card {args.card_id}' },
    { op: 'let', name: 'unblocked', value: 'false' },
    {
      op: 'when',
      if: "args.unblock == true && c.status == 'blocked' && c.blockReason == params.unblockOnlyReason",
      then: [
        { op: 'set', path: 'c.status', value: "'active'" },
        { op: 'set', path: 'c.blockReason', value: 'null' },
        { op: 'let', name: 'unblocked', value: 'true' },
      ],
    },
    { op: 'return', value: '{ card_id: c.card_id, last4: c.last4, status: c.status, last_decline: copy(c.lastDecline), unblocked: unblocked }' },
  ],
  transfer_funds: [
    { op: 'fail', if: 'args.from_account_id == args.to_account_id', error: 'NOT_ALLOWED', message: 'source and destination are the same account' },
    accountStep('from', 'from_account_id'),
    accountStep('to', 'to_account_id'),
    { op: 'fail', if: 'from.balance < args.amount', error: 'INSUFFICIENT_FUNDS', message: 'balance {fixed(from.balance, 2)} is below {fixed(args.amount, 2)}' },
    { op: 'set', path: 'from.balance', value: 'round(from.balance - args.amount, 2)' },
    { op: 'set', path: 'to.balance', value: 'round(to.balance + args.amount, 2)' },
    {
      op: 'let',
      name: 'transfer',
      value:
        "{ transfer_id: newId('trf'), from_account_id: from.account_id, to_account_id: to.account_id, amount: args.amount, " +
        'balances: { [from.account_id]: from.balance, [to.account_id]: to.balance } }',
    },
    { op: 'append', to: 'state.transfers', value: 'transfer' },
    { op: 'return', value: 'transfer' },
  ],
  transfer_to_human: [
    { op: 'let', name: 'department', value: 'args.department ?? params.defaultDepartment' },
    {
      op: 'let',
      name: 'ticket',
      value: "{ ticket_id: newId('tkt'), department: department, wait_minutes: department == 'fraud' ? params.waitMinutes.fraud : params.waitMinutes.default }",
    },
    { op: 'append', to: 'state.tickets', value: 'ticket' },
    { op: 'return', value: 'ticket' },
  ],
};

const ERROR_CODES: { code: string; meaning: string; injected: boolean }[] = [
  { code: 'UNKNOWN_TOOL', meaning: 'no tool of that name', injected: false },
  { code: 'INVALID_ARGUMENTS', meaning: "the arguments break the tool's argument schema, or do not identify what to act on", injected: false },
  { code: 'NOT_VERIFIED', meaning: 'the tool needs a verified customer', injected: false },
  { code: 'NOT_FOUND', meaning: 'no record matches', injected: false },
  { code: 'AMBIGUOUS', meaning: 'several records match', injected: false },
  { code: 'INSUFFICIENT_FUNDS', meaning: 'the source balance is too low', injected: false },
  { code: 'NOT_ALLOWED', meaning: 'the operation is refused', injected: false },
  { code: 'BACKEND_ERROR', meaning: 'the service failed (execution adversity)', injected: true },
  { code: 'TIMEOUT', meaning: 'the service did not answer in time (execution adversity)', injected: true },
  { code: 'POLICY', meaning: 'refused by policy (execution adversity)', injected: true },
];

/** Tool descriptions: the DA system prompt's tool lines (`name --- description (tool_args: …)`). */
function toolDescriptions(): Map<string, string> {
  const prompt = readFileSync(path.join(ASSETS_DIR, 'prompts', 'da-system.v1.txt'), 'utf8');
  const out = new Map<string, string>();
  for (const m of prompt.matchAll(/^([a-z_]+) --- (.+?) \(tool_args:/gm)) out.set(m[1]!, m[2]!);
  return out;
}

function tools(): DomainPack['tools'] {
  const descriptions = toolDescriptions();
  return {
    $schema: '../schema/tools.schema.json',
    tools: TOOL_NAMES.map((name) => {
      const goal = (DOMAIN_TOOLS as readonly string[]).includes(name);
      const b = TOOL_BEHAVIOUR[name];
      const tool: PackTool = {
        name,
        description: descriptions.get(name) ?? name,
        role: name === 'lookup_account' ? 'verification' : name === 'transfer_to_human' ? 'escalation' : 'goal',
        goal,
        arguments: argumentSchema(toolArgSchemas[name]),
        result: RESULTS[name],
        reads: b.reads,
        changes: b.changes,
        preconditions: NEEDS_VERIFICATION.has(name)
          ? [{ requires: 'verified', error: 'NOT_VERIFIED', message: 'verify the customer with lookup_account first' }]
          : [],
        errors: b.errors,
      };
      if (b.parameters) tool.parameters = b.parameters;
      tool.program = TOOL_PROGRAMS[name];
      return tool;
    }),
    errorCodes: ERROR_CODES,
  };
}

// ------------------------------------------------------------------------------ TRANSCRIBED: core/world/backend.ts (generateWorld)
function world(): DomainPack['world'] {
  const id = (prefix: string) => ({ kind: 'id' as const, prefix });
  return {
    $schema: '../schema/world.schema.json',
    entities: {
      customer: {
        description: 'the caller',
        fields: {
          customer_id: { type: 'id' },
          name: { type: 'string' },
          phone: { type: 'string', description: 'caller ID: the agent sees it, lookup_account verifies it' },
        },
      },
      account: {
        description: "one of the customer's accounts",
        fields: {
          account_id: { type: 'id' },
          type: { type: 'enum', values: ['checking', 'savings'] },
          balance: { type: 'money' },
          transactions: { type: 'list', entity: 'transaction', description: 'newest first' },
        },
      },
      transaction: {
        description: 'a card payment, transfer or refund on an account',
        fields: {
          transaction_id: { type: 'id' },
          date: { type: 'date' },
          merchant: { type: 'string' },
          amount: { type: 'money' },
          direction: { type: 'enum', values: ['debit', 'credit'] },
          status: { type: 'enum', values: ['posted', 'pending', 'refund_pending'] },
          channel: { type: 'enum', values: ['card', 'online', 'contactless', 'atm', 'transfer'] },
        },
      },
      card: {
        description: "the customer's debit card",
        fields: {
          card_id: { type: 'id' },
          last4: { type: 'string' },
          status: { type: 'enum', values: ['active', 'blocked', 'frozen', 'expired'] },
          blockReason: {
            type: 'enum',
            values: ['fraud_hold', 'expired'],
            nullable: true,
            description: 'a fraud-prevention hold can be lifted, an expiry cannot',
          },
          lastDecline: { type: 'object', nullable: true, description: '{ merchant, amount, reason } of the last declined payment' },
          account_id: { type: 'ref', entity: 'account' },
        },
      },
      facts: {
        description: "what the customer knows about the matter at hand (the CA's private facts)",
        fields: {
          merchant: { type: 'string' },
          amount: { type: 'money' },
          datePhrase: { type: 'string', description: 'spoken form of the date: "yesterday", "last Tuesday", "on March 3"' },
          channel: { type: 'string' },
          place: { type: 'string' },
          account: { type: 'enum', values: ['checking', 'savings'], description: 'the other account named in transfers' },
          cardLast4: { type: 'string' },
        },
      },
      dispute: {
        description: 'a dispute dispute_charge filed',
        fields: {
          dispute_id: { type: 'id' },
          transaction_id: { type: 'ref', entity: 'transaction' },
          merchant: { type: 'string' },
          amount: { type: 'money' },
          status: { type: 'enum', values: ['filed'] },
          provisional_credit: { type: 'boolean' },
        },
      },
      transfer: {
        description: 'a transfer transfer_funds made',
        fields: {
          transfer_id: { type: 'id' },
          from_account_id: { type: 'ref', entity: 'account' },
          to_account_id: { type: 'ref', entity: 'account' },
          amount: { type: 'money' },
          balances: { type: 'object' },
        },
      },
      ticket: {
        description: 'a hand-over transfer_to_human opened',
        fields: {
          ticket_id: { type: 'id' },
          department: { type: 'enum', values: ['fraud', 'cards', 'accounts', 'general'] },
          wait_minutes: { type: 'integer' },
        },
      },
    },
    state: {
      customer: { entity: 'customer' },
      accounts: { entity: 'account', list: true, count: 2 },
      cards: { entity: 'card', list: true, count: 1 },
      facts: { entity: 'facts' },
      disputes: { entity: 'dispute', list: true, count: 0 },
      transfers: { entity: 'transfer', list: true, count: 0 },
      tickets: { entity: 'ticket', list: true, count: 0 },
      verified: { flag: true, description: 'set by lookup_account' },
    },
    pools: { merchants: [...MERCHANTS], odd_merchants: [...ODD_MERCHANTS], channels: [...CHANNELS] },
    records: {
      customer: {
        entity: 'customer',
        description: "the caller (a persona's name when the scenario gives one)",
        fields: {
          // generateWorld draws the fake name even for a persona, so faker's stream (the place drawn later) stays in step.
          name: { kind: 'ref', ref: 'persona.name', fallback: { kind: 'faker', method: 'person.fullName' }, drawAlways: true },
          phone: {
            kind: 'format',
            template: '+1 555 {0} {1}',
            parts: [
              { kind: 'int', min: 100, max: 999 },
              { kind: 'int', min: 1000, max: 9999 },
            ],
          },
        },
      },
      customer_key: { entity: 'customer', description: "the customer's id (generateWorld draws it last)", fields: { customer_id: id('cus') } },
      checking: {
        entity: 'account',
        description: 'the checking account',
        fields: { account_id: id('acc'), type: { kind: 'const', value: 'checking' }, balance: { kind: 'money', min: 800, max: 9000 } },
      },
      savings: {
        entity: 'account',
        description: 'the savings account',
        fields: { account_id: id('acc'), type: { kind: 'const', value: 'savings' }, balance: { kind: 'money', min: 1000, max: 25000 } },
      },
      card: {
        entity: 'card',
        description: 'the debit card, on the checking account',
        fields: {
          last4: { kind: 'format', template: '{0}', parts: [{ kind: 'int', min: 1000, max: 9999 }] },
          card_id: id('card'),
          status: { kind: 'const', value: 'active' },
          blockReason: { kind: 'const', value: null },
          lastDecline: { kind: 'const', value: null },
          account_id: { kind: 'ref', ref: 'checking.account_id' },
        },
      },
      focal: {
        entity: 'transaction',
        description: 'the transaction at issue (drawn in every world, placed by the situation)',
        fields: {
          date: { kind: 'ref', ref: 'setup.daysAgo', format: 'days-ago', fallback: { kind: 'daysAgo', min: 1, max: 9 } },
          amount: { kind: 'ref', ref: 'setup.amount', fallback: { kind: 'money', min: 9, max: 250 } },
          merchant: { kind: 'ref', ref: 'setup.merchant', fallback: { kind: 'pick', pool: 'merchants' } },
          channel: { kind: 'pick', pool: 'channels' },
          transaction_id: id('txn'),
          direction: { kind: 'const', value: 'debit' },
          status: { kind: 'const', value: 'posted' },
        },
      },
      background: {
        entity: 'transaction',
        description: 'ordinary recent card payments, never from the merchant at issue',
        count: 5,
        fields: {
          transaction_id: id('txn'),
          date: { kind: 'daysAgo', min: 1, max: 2, step: 2 },
          merchant: { kind: 'pick', pool: 'merchants', excluding: 'focal.merchant' },
          amount: { kind: 'money', min: 3, max: 120 },
          direction: { kind: 'const', value: 'debit' },
          status: { kind: 'const', value: 'posted' },
          channel: { kind: 'pick', pool: 'channels' },
        },
      },
      facts: {
        entity: 'facts',
        description: 'what the customer knows',
        fields: {
          place: { kind: 'faker', method: 'location.city' },
          merchant: { kind: 'ref', ref: 'focal.merchant' },
          amount: { kind: 'ref', ref: 'focal.amount' },
          datePhrase: { kind: 'ref', ref: 'focal.date', format: 'date-phrase' },
          channel: { kind: 'ref', ref: 'focal.channel' },
          account: { kind: 'const', value: 'savings' },
          cardLast4: { kind: 'ref', ref: 'card.last4' },
        },
      },
    },
    setupParams: {
      merchant: { type: 'string', minLength: 1, description: 'merchant of the transaction at issue (else drawn)' },
      amount: { type: 'number', exclusiveMinimum: 0, description: 'amount of the transaction at issue, or the amount to move' },
      daysAgo: { type: 'integer', minimum: 0, maximum: 60, description: 'how many days ago the transaction at issue happened' },
      cardStatus: { type: 'string', enum: ['active', 'blocked', 'frozen', 'expired'], description: 'card status at the start of the episode' },
    },
    // The order of generateWorld's draws: faker's seed, the name and phone, the accounts, the card,
    // the transaction at issue, the background, the situation, the place, the customer id.
    initial: [
      { op: 'seed-faker' },
      { op: 'draw', record: 'customer' },
      { op: 'draw', record: 'checking' },
      { op: 'draw', record: 'savings' },
      { op: 'draw', record: 'card' },
      { op: 'draw', record: 'focal' },
      { op: 'draw', record: 'background' },
      { op: 'add', to: 'accounts', record: 'checking' },
      { op: 'add', to: 'accounts', record: 'savings' },
      { op: 'add', to: 'cards', record: 'card' },
      { op: 'add', to: 'accounts[0].transactions', record: 'background' },
    ],
    final: [
      { op: 'set', path: 'cards[0].status', value: { param: 'cardStatus' } },
      { op: 'sort', path: 'accounts[0].transactions', by: 'date', order: 'desc' },
      { op: 'draw', record: 'facts' },
      { op: 'draw', record: 'customer_key' },
      { op: 'set', path: 'customer', value: { record: 'customer' } },
      { op: 'set', path: 'customer.customer_id', value: { ref: 'customer_key.customer_id' } },
      { op: 'set', path: 'facts', value: { record: 'facts' } },
    ],
    situations: [
      {
        name: 'unrecognized_charge',
        description: 'a charge the customer does not recognise is on the account',
        effects: [{ op: 'add', to: 'accounts[0].transactions', record: 'focal' }],
      },
      {
        name: 'duplicate_charge',
        description: 'the same charge posted twice',
        effects: [
          { op: 'add', to: 'accounts[0].transactions', record: 'focal' },
          { op: 'add', to: 'accounts[0].transactions', record: 'focal', fresh: ['transaction_id'] },
        ],
      },
      {
        name: 'refund_missing',
        description: 'the purchase posted ten days before the promised refund was due; no credit arrived',
        effects: [{ op: 'add', to: 'accounts[0].transactions', record: 'focal', set: { date: { daysAgo: { ref: 'focal.date', plus: 10 } } } }],
      },
      {
        name: 'unknown_merchant',
        description: 'a charge from a merchant name the customer does not know',
        recordOverrides: { focal: { merchant: { kind: 'ref', ref: 'setup.merchant', fallback: { kind: 'pick', pool: 'odd_merchants' } } } },
        effects: [{ op: 'add', to: 'accounts[0].transactions', record: 'focal' }],
      },
      {
        name: 'recent_activity',
        description: 'ordinary recent activity the customer asks about',
        effects: [{ op: 'add', to: 'accounts[0].transactions', record: 'focal' }],
      },
      {
        name: 'card_declined',
        description: 'the card was declined: blocked by a fraud-prevention hold, or expired',
        effects: [
          { op: 'set', path: 'cards[0].status', value: { param: 'cardStatus', default: 'blocked' } },
          { op: 'set', path: 'cards[0].blockReason', value: { switch: 'cardStatus', cases: { expired: 'expired' }, default: 'fraud_hold' } },
          { op: 'set', path: 'cards[0].lastDecline.merchant', value: { ref: 'focal.merchant' } },
          { op: 'set', path: 'cards[0].lastDecline.amount', value: { ref: 'focal.amount' } },
          {
            op: 'set',
            path: 'cards[0].lastDecline.reason',
            value: { switch: 'cardStatus', cases: { expired: 'card expired' }, default: 'fraud-prevention hold' },
          },
        ],
      },
      { name: 'internal_transfer', description: 'the customer wants money moved between their own accounts', effects: [] },
      {
        name: 'compromised',
        description: 'the card or account is compromised; a fraudster made a charge',
        recordOverrides: { focal: { merchant: { kind: 'ref', ref: 'setup.merchant', fallback: { kind: 'pick', pool: 'odd_merchants' } } } },
        effects: [{ op: 'add', to: 'accounts[0].transactions', record: 'focal' }],
      },
      { name: 'account_admin', description: 'account administration that only a person can do', effects: [] },
    ],
    // From core/agents/slots.ts slotValues.
    slots: [
      { name: 'merchant', source: 'facts.merchant', format: 'text', description: 'merchant of the transaction at issue' },
      { name: 'amount', source: 'facts.amount', format: 'money', description: 'its amount, like $42.10' },
      {
        name: 'date',
        source: 'facts.datePhrase',
        format: 'text',
        description: 'its date as said: "last Tuesday", "on March 3" (write it without a preposition)',
      },
      { name: 'channel', source: 'facts.channel', format: 'text', description: 'how it was paid: online, contactless, card' },
      { name: 'place', source: 'facts.place', format: 'text', description: 'a city' },
      { name: 'account', source: 'facts.account', format: 'text', description: 'the other account: "my {account} account"' },
      { name: 'card_last4', source: 'facts.cardLast4', format: 'digits', description: "the card's last four digits" },
      { name: 'name', source: 'customer.name', format: 'text', description: "the customer's name" },
    ],
  };
}

// ------------------------------------------------------------------------------ read from the shipped domain files
function intents(): DomainPack['intents'] {
  return {
    $schema: '../schema/intents.schema.json',
    intents: bankingDomain().taxonomy.map((e) => ({
      name: e.intent,
      goalTool: e.tool,
      source: e.source,
      arena: e.core,
      rationale: e.rationale,
      reveals: e.reveals,
    })),
  };
}

function utterances(): DomainPack['utterances'] {
  const b = bankingDomain().bank;
  return {
    $schema: '../schema/utterances.schema.json',
    utterances: b.utterances.map((u) => ({ intent: u.intent, style: u.style, text: u.text })),
    decoys: b.decoys,
    hedges: b.hedges,
    detailReplies: b.detailReplies,
    acknowledgements: b.acknowledgements,
    tones: b.tones,
  };
}

function scenario(s: Scenario): PackScenario {
  const out: PackScenario = {
    id: s.id,
    title: s.title,
    nonNegotiable: s.fraudReference,
    ambiguity: s.ambiguity,
    intents: s.intents,
    expectedTool: s.expectedTool,
    setup: { ...s.account },
    description: s.description,
  };
  if (s.complexity !== undefined) out.complexity = s.complexity;
  if (s.task) out.task = s.task;
  if (s.persona) out.persona = s.persona;
  if (s.adversities) out.adversities = s.adversities;
  if (s.impossible) out.impossible = s.impossible;
  if (s.referenceActions) out.referenceActions = s.referenceActions;
  return out;
}

// ------------------------------------------------------------------------------ core/agents/ca-choices.ts
function customer(): DomainPack['customer'] {
  // TRANSCRIBED from detailTemplates: which phrase states each slot, before or after the noun.
  const PHRASES: Record<(typeof DETAIL_KINDS)[number], { text: string; position: 'before' | 'after' }[]> = {
    merchant: MERCHANT_PREPS.map((p) => ({ text: `${p} {merchant}`, position: 'after' as const })),
    amount: [{ text: '{amount}', position: 'before' }],
    date: [{ text: '{date}', position: 'after' }],
    where: [
      { text: '{channel}', position: 'before' },
      { text: 'in {place}', position: 'after' },
    ],
  };
  return {
    $schema: '../schema/customer.schema.json',
    detailKinds: DETAIL_KINDS.map((k) => ({
      name: k,
      slots: [...KIND_SLOTS[k]],
      asked: rx(ASKED_PATTERNS[k]),
      phrases: PHRASES[k],
      vague: VAGUE[k],
    })),
    detailFrames: { leads: [...DETAIL_LEADS], nouns: [...DETAIL_NOUNS] },
    reviseLine: REVISE_LINE,
  };
}

function adversities(): DomainPack['adversities'] {
  return {
    $schema: '../schema/adversities.schema.json',
    hostileLines: [...HOSTILE_LINES],
    messages: { ...DEFAULT_MESSAGES },
    // TRANSCRIBED from injectExecution: empty_results on get_transactions answers an empty list.
    emptyResults: [{ tool: 'get_transactions', keep: ['account_id'], empty: 'transactions' }],
    defaultProfile: DEFAULT_ADVERSITY_PROFILE.map((a) => ({ ...a })),
  };
}

// ------------------------------------------------------------------------------ core/judge
function judge(): DomainPack['judge'] {
  const c = DEFAULT_JUDGE_CONFIG;
  const kinds = Object.keys(ACTION_TOOL) as (keyof typeof ACTION_TOOL)[];
  const cueOf = (k: string) => (DONE_ACTIONS.find((a) => a.kind === k) ?? PROMISE_ACTIONS.find((a) => a.kind === k))!.cue;
  return {
    $schema: '../schema/judge.schema.json',
    idPrefixes: [...c.idPrefixes],
    commonCapitalised: [...c.commonCapitalised],
    commonPhrases: [...c.commonPhrases],
    institutionSuffixes: [...c.institutionSuffixes],
    explainCues: Object.fromEntries(Object.entries(c.explainCues).map(([k, v]) => [k, [...v]])),
    errorCues: [...c.errorCues],
    claims: {
      // TRANSCRIBED from Evidence.walk / addCustomer (claims/evidence.ts).
      amounts: {
        keys: { keyPattern: { pattern: 'amount', flags: 'i' } },
        balanceKeys: { keyPattern: { pattern: 'balance', flags: 'i' } },
        customerNumbers: true,
      },
      dates: { valuePattern: { pattern: '^\\d{4}-\\d{2}-\\d{2}', flags: '' }, customerDates: true },
      namesAndIds: { anyResultString: true, customerWords: true, brands: { ...DESCRIPTOR_BRANDS } },
      digits: [{ key: 'last4', cue: 'card', length: 4 }],
      // TRANSCRIBED from checkCardStatuses / checkTxnStatuses (claims/statuses.ts); words and phrases read from its constants.
      statuses: [
        {
          entity: 'card',
          cue: 'card',
          fields: [
            { tool: 'lookup_account', status: 'cards[].status', id: 'cards[].card_id' },
            { tool: 'check_card_status', status: 'status', id: 'card_id' },
          ],
          words: { ...STATUS_WORDS },
          finding: 'card_status',
        },
        {
          entity: 'transaction',
          cue: 'transaction',
          fields: [{ tool: 'get_transactions', status: 'transactions[].status', id: 'transactions[].transaction_id' }],
          words: {},
          phrases: [
            { name: 'posted', pattern: rx(TXN_POSTED_RE), values: ['posted'] },
            { name: 'pending', pattern: rx(TXN_PENDING_RE), values: ['pending', 'refund_pending'] },
            { name: 'refund_arrived', pattern: rx(REFUND_DONE_RE), values: ['posted', 'pending'] },
          ],
          finding: 'txn_status',
        },
      ],
      // TRANSCRIBED from checkProvisionalCredit.
      flags: [
        {
          finding: 'provisional_credit',
          phrase: { pattern: '\\bprovisional(?:ly)?\\s+(?:credit(?:ed)?|refund)', flags: 'gi' },
          backedBy: { tool: 'dispute_charge', path: 'provisional_credit' },
          equals: true,
        },
      ],
      // TRANSCRIBED from checkWaitTimes; the cues read from PROCESS_SUPPORTED.
      timelines: {
        waitMinutes: { tool: 'transfer_to_human', path: 'wait_minutes' },
        processBackedBy: [
          { cue: rx(PROCESS_SUPPORTED[0]!.re), tool: 'dispute_charge', field: 'provisional_credit', equals: true },
          { cue: rx(PROCESS_SUPPORTED[1]!.re), tool: 'transfer_to_human' },
        ],
      },
      actions: kinds.map((kind) => ({
        kind,
        // TRANSCRIBED from actionSupported: unblock needs unblocked: true.
        backedBy: ACTION_TOOL[kind].map((tool) => (kind === 'unblock' ? { tool, field: 'unblocked', equals: true } : { tool })),
        about: [...ACTION_ABOUT[kind]],
        why: ACTION_WHY[kind],
        cue: rx(cueOf(kind)),
        done: DONE_ACTIONS.filter((a) => a.kind === kind).map((a) => rx(a.re)),
        promised: PROMISE_ACTIONS.filter((a) => a.kind === kind).map((a) => rx(a.re)),
      })),
      departments: { backedBy: { tool: 'transfer_to_human', path: 'department' }, words: { ...DEPARTMENTS } },
    },
  };
}

function manifest(): DomainPack['manifest'] {
  return {
    $schema: '../schema/pack.schema.json',
    format: PACK_FORMAT,
    name: 'banking',
    title: 'Retail banking support',
    description:
      "RL-ADA's banking instantiation: a customer calls about charges, refunds, their card, moving money between their accounts, or something only a person can do; the agent verifies them by caller ID, then calls the one tool that resolves the need.",
    provenance:
      'Every utterance, decoy, hedge and reply was written for this project; only the Banking77 intent names are used, as the taxonomy keys. Exported from the code by scripts/export-banking-pack.ts.',
    today: WORLD_TODAY,
    currency: '$',
    verification: { tool: 'lookup_account', argument: 'phone', callerField: 'customer.phone', flag: 'verified' },
    escalationTool: 'transfer_to_human',
  };
}

/** The banking pack's files, by path relative to domains/banking/. */
export function bankingPackFiles(): Map<string, string> {
  const sets = ['arena', 'heldout', 'robustness'] as const;
  const files = new Map<string, string>([
    ['pack.json', packJson(manifest())],
    ['world.json', packJson(world())],
    ['tools.json', packJson(tools())],
    ['intents.json', packJson(intents())],
    ['utterances.json', packJson(utterances())],
    ['customer.json', packJson(customer())],
    ['adversities.json', packJson(adversities())],
    ['judge.json', packJson(judge())],
  ]);
  for (const set of sets) {
    const list = bankingDomain().scenarios.filter((s) => s.set === set);
    files.set(`scenarios/${set}.json`, packJson({ $schema: '../../schema/scenarios.schema.json', set, scenarios: list.map(scenario) }));
  }
  return files;
}

/** The format's JSON Schemas (draft 2020-12), one per file kind, by file name under domains/schema/. */
export function packSchemaFiles(): Map<string, string> {
  const out = new Map<string, string>();
  for (const [file, schema] of Object.entries(PACK_FILE_SCHEMAS)) {
    const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }) as Record<string, unknown>;
    const base = file.replace(/\.json$/, '');
    out.set(`${base}.schema.json`, packJson({ $id: `https://sparring.dev/domain-pack/${base}.schema.json`, title: `Sparring domain pack: ${file}`, ...json }));
  }
  return out;
}
