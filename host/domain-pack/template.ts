/**
 * The pack `sparring domains new NAME` writes: small but complete (parcel-delivery support:
 * verify by email, track a parcel, move a delivery day, hand over to a person), so a researcher
 * starts from a pack `validate` accepts and edits it into their own world.
 */
import { PACK_FORMAT } from '../../core/domain-pack/schema';
import type { DomainPack } from '../../core/domain-pack/schema';
import { packJson } from './write';

const u = (intent: string, style: 'direct' | 'indirect' | 'vague', texts: string[]) => texts.map((text) => ({ intent, style, text }));

/** The template pack's files, by path relative to the new folder. */
export function templatePackFiles(name: string): Map<string, string> {
  const str = { type: 'string', minLength: 1 } as const;
  const pack: DomainPack = {
    manifest: {
      format: PACK_FORMAT,
      name,
      title: 'Parcel delivery support (template)',
      description: 'A customer asks where their parcel is, wants the delivery day moved, or needs a person; the agent verifies them by email first.',
      provenance: 'Written by `sparring domains new` as a starting point; replace every sentence with your own.',
      today: '2026-03-16',
      currency: '$',
      verification: { tool: 'verify_customer', argument: 'email', callerField: 'customer.email', flag: 'verified' },
      escalationTool: 'transfer_to_human',
    },
    world: {
      entities: {
        customer: { description: 'the caller', fields: { customer_id: { type: 'id' }, name: { type: 'string' }, email: { type: 'string' } } },
        order: {
          description: "the customer's order",
          fields: {
            order_id: { type: 'id' },
            item: { type: 'string' },
            status: { type: 'enum', values: ['in_transit', 'delayed', 'delivered'] },
            eta: { type: 'date' },
          },
        },
        ticket: { description: 'a hand-over to a person', fields: { ticket_id: { type: 'id' }, wait_minutes: { type: 'integer' } } },
      },
      state: {
        customer: { entity: 'customer' },
        orders: { entity: 'order', list: true, count: 1 },
        tickets: { entity: 'ticket', list: true, count: 0 },
        verified: { flag: true, description: 'set by verify_customer' },
      },
      pools: { items: ['desk lamp', 'rain jacket', 'coffee grinder', 'board game', 'phone case'] },
      records: {
        customer: {
          entity: 'customer',
          description: 'the caller',
          fields: {
            customer_id: { kind: 'id', prefix: 'cus' },
            name: { kind: 'ref', ref: 'persona.name', fallback: { kind: 'faker', method: 'person.fullName' } },
            email: { kind: 'format', template: 'customer{0}@example.com', parts: [{ kind: 'int', min: 100, max: 999 }] },
          },
        },
        order: {
          entity: 'order',
          description: 'the order at issue',
          fields: {
            order_id: { kind: 'id', prefix: 'ord' },
            item: { kind: 'pick', pool: 'items' },
            status: { kind: 'const', value: 'in_transit' },
            eta: { kind: 'daysAgo', min: 0, max: 0 },
          },
        },
      },
      setupParams: { status: { type: 'string', enum: ['in_transit', 'delayed', 'delivered'], description: 'the order status at the start' } },
      initial: [
        { op: 'seed-faker' },
        { op: 'draw', record: 'customer' },
        { op: 'draw', record: 'order' },
        { op: 'set', path: 'customer', value: { record: 'customer' } },
        { op: 'add', to: 'orders', record: 'order' },
      ],
      situations: [
        {
          name: 'parcel_late',
          description: 'the parcel is later than promised',
          effects: [{ op: 'set', path: 'orders[0].status', value: { param: 'status', default: 'delayed' } }],
        },
        { name: 'wants_new_day', description: 'the customer will be away on the delivery day', effects: [] },
        { name: 'parcel_damaged', description: 'the parcel arrived broken', effects: [{ op: 'set', path: 'orders[0].status', value: 'delivered' }] },
      ],
      final: [],
      slots: [
        { name: 'item', source: 'order.item', format: 'text', description: 'what was ordered' },
        { name: 'date', source: 'order.eta', format: 'date-phrase', description: 'the promised delivery day, as said' },
        { name: 'name', source: 'customer.name', format: 'text', description: "the customer's name" },
      ],
    },
    tools: {
      tools: [
        {
          name: 'verify_customer',
          description: "verify the caller's identity by their email",
          role: 'verification',
          goal: false,
          arguments: { type: 'object', properties: { email: str }, required: ['email'], additionalProperties: false },
          result: {
            type: 'object',
            properties: { customer_id: { type: 'string' }, name: { type: 'string' }, order_ids: { type: 'array', items: { type: 'string' } } },
            required: ['customer_id', 'name', 'order_ids'],
            additionalProperties: false,
          },
          reads: ['customer', 'orders'],
          changes: ['verified'],
          preconditions: [],
          errors: [{ code: 'NOT_FOUND', when: 'no customer has that email' }],
          program: [
            { op: 'fail', if: 'lower(args.email) != lower(state.customer.email)', error: 'NOT_FOUND', message: 'no customer with that email' },
            { op: 'set', path: 'state.verified', value: 'true' },
            {
              op: 'return',
              value: '{ customer_id: state.customer.customer_id, name: state.customer.name, order_ids: map(state.orders, o => o.order_id) }',
            },
          ],
        },
        {
          name: 'track_parcel',
          description: "an order's delivery status and expected day",
          role: 'goal',
          goal: true,
          arguments: { type: 'object', properties: { order_id: str }, required: ['order_id'], additionalProperties: false },
          result: {
            type: 'object',
            properties: {
              order_id: { type: 'string' },
              item: { type: 'string' },
              status: { type: 'string', enum: ['in_transit', 'delayed', 'delivered'] },
              eta: { type: 'string' },
            },
            required: ['order_id', 'item', 'status', 'eta'],
            additionalProperties: false,
          },
          reads: ['orders'],
          changes: [],
          preconditions: [{ requires: 'verified', error: 'NOT_VERIFIED', message: 'verify the customer with verify_customer first' }],
          errors: [{ code: 'NOT_FOUND', when: 'no order has order_id' }],
          program: [
            { op: 'find', name: 'o', in: 'state.orders', where: 'o.order_id == args.order_id', error: 'NOT_FOUND', message: 'no order {args.order_id}' },
            { op: 'return', value: '{ order_id: o.order_id, item: o.item, status: o.status, eta: o.eta }' },
          ],
        },
        {
          name: 'reschedule_delivery',
          description: 'move an undelivered order to another day',
          role: 'goal',
          goal: true,
          arguments: {
            type: 'object',
            properties: { order_id: str, date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'ISO date' } },
            required: ['order_id', 'date'],
            additionalProperties: false,
          },
          result: {
            type: 'object',
            properties: { order_id: { type: 'string' }, eta: { type: 'string' } },
            required: ['order_id', 'eta'],
            additionalProperties: false,
          },
          reads: ['orders'],
          changes: ['orders[].eta'],
          preconditions: [{ requires: 'verified', error: 'NOT_VERIFIED', message: 'verify the customer with verify_customer first' }],
          errors: [
            { code: 'NOT_FOUND', when: 'no order has order_id' },
            { code: 'NOT_ALLOWED', when: 'the order is already delivered' },
          ],
          program: [
            { op: 'find', name: 'o', in: 'state.orders', where: 'o.order_id == args.order_id', error: 'NOT_FOUND', message: 'no order {args.order_id}' },
            { op: 'fail', if: "o.status == 'delivered'", error: 'NOT_ALLOWED', message: 'order {o.order_id} is already delivered' },
            { op: 'set', path: 'o.eta', value: 'args.date' },
            { op: 'return', value: '{ order_id: o.order_id, eta: o.eta }' },
          ],
        },
        {
          name: 'transfer_to_human',
          description: 'hand the customer over to a person',
          role: 'escalation',
          goal: true,
          arguments: { type: 'object', properties: { reason: str }, required: ['reason'], additionalProperties: false },
          result: {
            type: 'object',
            properties: { ticket_id: { type: 'string' }, wait_minutes: { type: 'integer' } },
            required: ['ticket_id', 'wait_minutes'],
            additionalProperties: false,
          },
          reads: [],
          changes: ['tickets'],
          preconditions: [],
          errors: [],
          parameters: { waitMinutes: 5 },
          program: [
            { op: 'let', name: 'ticket', value: "{ ticket_id: newId('tkt'), wait_minutes: params.waitMinutes }" },
            { op: 'append', to: 'state.tickets', value: 'ticket' },
            { op: 'return', value: 'ticket' },
          ],
        },
      ],
      errorCodes: [
        { code: 'UNKNOWN_TOOL', meaning: 'no tool of that name', injected: false },
        { code: 'INVALID_ARGUMENTS', meaning: "the arguments break the tool's argument schema", injected: false },
        { code: 'NOT_VERIFIED', meaning: 'the tool needs a verified customer', injected: false },
        { code: 'NOT_FOUND', meaning: 'no record matches', injected: false },
        { code: 'NOT_ALLOWED', meaning: 'the operation is refused', injected: false },
        { code: 'BACKEND_ERROR', meaning: 'the service failed (execution adversity)', injected: true },
        { code: 'TIMEOUT', meaning: 'the service did not answer in time (execution adversity)', injected: true },
        { code: 'POLICY', meaning: 'refused by policy (execution adversity)', injected: true },
      ],
    },
    intents: {
      intents: [
        {
          name: 'where_is_my_parcel',
          goalTool: 'track_parcel',
          source: 'template',
          arena: true,
          rationale: 'A late or missing parcel is answered by tracking the order.',
          reveals: ['track my parcel', 'where is my parcel'],
        },
        {
          name: 'change_delivery_day',
          goalTool: 'reschedule_delivery',
          source: 'template',
          arena: true,
          rationale: 'A delivery day that does not suit is moved on the order.',
          reveals: ['reschedule', 'change the delivery day'],
        },
        {
          name: 'damaged_item',
          goalTool: 'transfer_to_human',
          source: 'template',
          arena: false,
          rationale: 'A broken item needs a person to arrange a return.',
          reveals: ['damaged', 'broken'],
        },
      ],
    },
    utterances: {
      utterances: [
        ...u('where_is_my_parcel', 'direct', [
          'Can you tell me where my parcel is?',
          'I need to know where my {item} is right now.',
          'Please track my order for the {item}.',
          'My {item} was due {date} and I want to know where it is.',
          'Where exactly is my delivery at the moment?',
          'I would like a status update on my parcel.',
          'Tell me when my {item} will actually arrive.',
        ]),
        ...u('where_is_my_parcel', 'indirect', [
          'I stayed home {date} and nothing turned up.',
          "The {item} I ordered still isn't on my doorstep.",
          'The tracking page has said the same thing for days.',
          'I was promised a delivery {date} and the day came and went.',
          'I keep checking the porch and there is no box.',
          'The courier never showed up for my {item}.',
          "I'm starting to wonder if my order got lost somewhere.",
        ]),
        ...u('where_is_my_parcel', 'vague', [
          'Something I ordered has not shown up.',
          "I'm waiting on a delivery and I'm a bit worried.",
          'I have a question about an order of mine.',
          "Things aren't going the way I expected with my order.",
          'I was expecting something by now.',
          "It's about a box that should be here.",
        ]),
        ...u('change_delivery_day', 'direct', [
          'I need to change the day my {item} is delivered.',
          'Can you move my delivery to another day?',
          'Please deliver my order on a different date.',
          'I want to push my delivery back a few days.',
          'Could you rebook the {item} for later in the week?',
          'Move my parcel delivery, please.',
          'I need the delivery date on my order changed.',
        ]),
        ...u('change_delivery_day', 'indirect', [
          "I won't be home {date} when the {item} is meant to come.",
          "I'm travelling on the day the courier is due.",
          'Nobody will be in to sign for my parcel that day.',
          'The delivery day clashes with a work trip.',
          "My building's front desk is closed on the day you picked.",
          "I'd hate for the {item} to sit outside while I'm away.",
          'The day you chose for my order really does not work.',
        ]),
        ...u('change_delivery_day', 'vague', [
          'The timing of my order is a problem.',
          'I need something sorted about my delivery.',
          'Can we talk about when my order comes?',
          'My plans changed and it affects an order.',
          "There's an issue with the schedule for my parcel.",
          'I want to sort out something about the day.',
        ]),
        ...u('damaged_item', 'direct', [
          'My {item} arrived broken and I want a replacement.',
          'The parcel came damaged.',
          'I need to return a damaged {item}.',
        ]),
        ...u('damaged_item', 'indirect', [
          'The box was crushed and the {item} inside is cracked.',
          'When I opened the parcel, half of it was in pieces.',
          'The {item} rattles and does not work at all.',
        ]),
        ...u('damaged_item', 'vague', ["Something's wrong with what I received.", "The delivery didn't arrive the way it should have."]),
      ],
      decoys: {
        track_parcel: ['I also saw a tracking message I did not understand.'],
        reschedule_delivery: ["I'm away a lot next week, too."],
        transfer_to_human: ['Last time I called I ended up speaking to a manager.'],
      },
      hedges: ['I might be wrong, but', 'This may be nothing, but'],
      detailReplies: ['It was the {item}.', 'The {item}, due {date}.'],
      acknowledgements: ['Thanks, that helps.', 'Okay, thank you.'],
      tones: { neutral: ['', 'Hi.'], frustrated: ['This is getting annoying.'], anxious: ["I'm a little worried."] },
    },
    customer: {
      detailKinds: [
        {
          name: 'item',
          slots: ['item'],
          asked: { pattern: '\\b(item|what|order|product)\\b', flags: '' },
          phrases: [{ text: 'for the {item}', position: 'after' }],
          vague: { item: 'something' },
        },
        {
          name: 'date',
          slots: ['date'],
          asked: { pattern: '\\b(when|date|day)\\b', flags: '' },
          phrases: [{ text: 'due {date}', position: 'after' }],
          vague: { date: 'soon' },
        },
      ],
      detailFrames: { leads: ["It's", 'It was'], nouns: ['order', 'parcel'] },
      reviseLine: "Actually, that's not why I'm calling.",
    },
    adversities: {
      hostileLines: ['This is the third time I have called about this.'],
      messages: {
        backend_failure: 'service unavailable (503); nothing was changed',
        empty_results: 'no records found',
        timeout: 'no answer from the service within 10 s; nothing was changed',
        policy_constraint: 'refused by company policy',
      },
      emptyResults: [],
      defaultProfile: [
        { kind: 'partial_information', slot: 'item', rate: 0.3 },
        { kind: 'backend_failure', rate: 0.1 },
      ],
    },
    judge: {
      idPrefixes: ['cus', 'ord', 'tkt'],
      commonCapitalised: ['i', 'hi', 'thanks', 'okay'],
      commonPhrases: [],
      institutionSuffixes: ['team', 'support'],
      explainCues: {
        track_parcel: [],
        reschedule_delivery: ['moved', 'rescheduled', 'new day'],
        transfer_to_human: ['specialist', 'colleague', 'team', 'wait'],
      },
      errorCues: ['sorry', 'unable', "couldn't", 'unfortunately'],
      claims: {
        amounts: {
          keys: { keyPattern: { pattern: 'amount|price', flags: 'i' } },
          balanceKeys: { keyPattern: { pattern: 'balance', flags: 'i' } },
          customerNumbers: true,
        },
        dates: { valuePattern: { pattern: '^\\d{4}-\\d{2}-\\d{2}', flags: '' }, customerDates: true },
        namesAndIds: { anyResultString: true, customerWords: true },
        digits: [],
        statuses: [
          {
            entity: 'order',
            cue: 'order',
            fields: [{ tool: 'track_parcel', status: 'status', id: 'order_id' }],
            words: { delivered: 'delivered', delayed: 'delayed', late: 'delayed', 'on its way': 'in_transit' },
            finding: 'order_status',
          },
        ],
        flags: [],
        timelines: {
          waitMinutes: { tool: 'transfer_to_human', path: 'wait_minutes' },
          processBackedBy: [{ cue: { pattern: '\\b(?:colleague|specialist|team)\\b', flags: 'i' }, tool: 'transfer_to_human' }],
        },
        actions: [
          {
            kind: 'reschedule',
            backedBy: [{ tool: 'reschedule_delivery' }],
            about: ['reschedule_delivery'],
            why: 'no successful reschedule_delivery before it',
            cue: { pattern: 'resched|moved|move', flags: 'i' },
            done: [{ pattern: "\\b(?:I|we)(?:'ve| have)?\\s+(?:\\w+\\s+){0,2}?(?:rescheduled|moved)\\b", flags: 'gi' }],
            promised: [{ pattern: "\\b(?:I'll|I will|let me)\\s+(?:reschedule|move)\\b", flags: 'gi' }],
          },
          {
            kind: 'human',
            backedBy: [{ tool: 'transfer_to_human' }],
            about: ['transfer_to_human'],
            why: 'no successful transfer_to_human before it',
            cue: { pattern: 'transfer|connect|pass', flags: 'i' },
            done: [{ pattern: "\\b(?:I|we)(?:'ve| have)?\\s+(?:\\w+\\s+){0,2}?(?:transferred|connected|passed)\\s+you\\b", flags: 'gi' }],
            promised: [{ pattern: "\\b(?:I'll|I will|let me)\\s+(?:transfer|connect|pass)\\s+you\\b", flags: 'gi' }],
          },
        ],
        departments: null,
      },
    },
    scenarios: [
      {
        set: 'arena',
        scenarios: [
          {
            id: 'late-parcel',
            title: 'A parcel that has not arrived',
            nonNegotiable: false,
            ambiguity: 'clear',
            intents: ['where_is_my_parcel'],
            expectedTool: 'track_parcel',
            setup: { situation: 'parcel_late' },
            description: 'The parcel is delayed; the agent verifies the customer and tracks the order.',
          },
          {
            id: 'new-delivery-day',
            title: 'Moving a delivery day',
            nonNegotiable: false,
            ambiguity: 'clear',
            intents: ['change_delivery_day'],
            expectedTool: 'reschedule_delivery',
            setup: { situation: 'wants_new_day' },
            description: 'The customer will be away; the agent moves the delivery.',
          },
        ],
      },
      {
        set: 'heldout',
        scenarios: [
          {
            id: 'damaged-parcel',
            title: 'A parcel that arrived broken',
            nonNegotiable: false,
            ambiguity: 'clear',
            intents: ['damaged_item'],
            expectedTool: 'transfer_to_human',
            setup: { situation: 'parcel_damaged' },
            description: 'Returns need a person; the agent hands the customer over.',
          },
        ],
      },
    ],
  };
  const files = new Map<string, string>([
    ['pack.json', packJson(pack.manifest)],
    ['world.json', packJson(pack.world)],
    ['tools.json', packJson(pack.tools)],
    ['intents.json', packJson(pack.intents)],
    ['utterances.json', packJson(pack.utterances)],
    ['customer.json', packJson(pack.customer)],
    ['adversities.json', packJson(pack.adversities)],
    ['judge.json', packJson(pack.judge)],
  ]);
  for (const s of pack.scenarios) files.set(`scenarios/${s.set}.json`, packJson(s));
  return files;
}
