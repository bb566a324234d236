"""Builder for the hard banking judge sets: a tiny mirror of core/world/backend.ts's tools so every
result is consistent, plus claim markup [[kind|words]] (true) and [[!kind|words]] (false)."""
import json, random, re

def b36(n):
    s = ''
    while n:
        n, r = divmod(n, 36); s = '0123456789abcdefghijklmnopqrstuvwxyz'[r] + s
    return s

CLAIM = re.compile(r'\[\[(!?)([a-z_]+)\|([^\]]+)\]\]')
KINDS = {'amount','balance','name','date','id','card_digits','card_status','wait_time','txn_status',
         'provisional_credit','process','action','time_of_day','weekday','currency','customer_fact','other'}

class Conv:
    def __init__(self, cid, stratum, note, scenario, tool, intent, impossible=None, group=None):
        self.id, self.stratum, self.note, self.group = cid, stratum, note, group or cid
        self.rng = random.Random('hard-' + cid)
        self.tr = {'scenarioId': scenario, 'expectedTool': tool, 'intent': intent, 'endReason': None, 'turns': []}
        if impossible: self.tr['impossible'] = {'fallback_behavior': impossible[0], 'reason': impossible[1]}
        self.claims = []; self.prev = 'none'; self.verified = False
        self.disputes = []; self.labels = None

    def nid(self, p): return f'{p}_{b36(self.rng.randint(0x10000000, 0x7fffffff))}'

    # world -------------------------------------------------------------------------------------
    def world(self, name, chk, sav, last4='4417', status='active', block=None, decline=None, txns=()):
        self.name = name
        self.phone = f'+1 555 {self.rng.randint(100,999)} {self.rng.randint(1000,9999)}'
        self.cus = self.nid('cus')
        self.chk = {'account_id': self.nid('acc'), 'type': 'checking', 'balance': chk, 'txns': []}
        self.sav = {'account_id': self.nid('acc'), 'type': 'savings', 'balance': sav, 'txns': []}
        self.card = {'card_id': self.nid('card'), 'last4': last4, 'status': status, 'block': block, 'decline': decline}
        for t in txns:
            date, merchant, amount = t[0], t[1], t[2]
            extra = t[3] if len(t) > 3 else {}
            self.chk['txns'].append({'transaction_id': self.nid('txn'), 'date': date, 'merchant': merchant, 'amount': amount,
                                     'direction': extra.get('direction', 'debit'), 'status': extra.get('status', 'posted'),
                                     'channel': extra.get('channel', 'card')})
        self.chk['txns'].sort(key=lambda x: x['date'], reverse=True)
        return self

    @property
    def C(self): return self.chk['account_id']
    @property
    def S(self): return self.sav['account_id']
    @property
    def K(self): return self.card['card_id']
    def txn(self, merchant, amount=None):
        return next(t for t in self.chk['txns'] if t['merchant'] == merchant and (amount is None or t['amount'] == amount))

    # turns -------------------------------------------------------------------------------------
    def c(self, text):
        self.tr['turns'].append({'role': 'customer', 'text': text}); return self

    def _agent(self, action, extra=None):
        raw = json.dumps(action, separators=(',', ':'), ensure_ascii=False)
        turn = {'role': 'agent', 'raw': raw, 'action': action}
        if extra: turn.update(extra)
        self.tr['turns'].append(turn)
        return len(self.tr['turns']) - 1

    def _text(self, text):
        idx = len(self.tr['turns'])
        def rep(m):
            false, kind, words = m.group(1) == '!', m.group(2), m.group(3)
            assert kind in KINDS, kind
            self.claims.append({'turn': idx, 'kind': kind, 'claim': words, 'hallucination': false})
            return words
        return CLAIM.sub(rep, text)

    def s(self, text, think=None):
        content = self._text(text)
        self._agent({'thinking': think or f'[LAST ACTION: {self.prev}]->Next: reply to the customer', 'action_type': 'speak', 'content': content, 'tool_args': {}})
        self.prev = 'speak'; return self

    def e(self, text, think=None):
        content = self._text(text)
        self._agent({'thinking': think or f'[LAST ACTION: {self.prev}]->Next: end_call', 'action_type': 'end_call', 'content': content, 'tool_args': {}})
        self.prev = 'end_call'; return self

    def garbled(self, raw, err):
        self.tr['turns'].append({'role': 'agent', 'raw': raw, 'action': None, 'parseError': err}); return self

    def t(self, tool, args, think=None, inject=None):
        res = inject if inject is not None else self._run(tool, args)
        if inject is not None: res = {'ok': False, 'tool': tool, 'error': {'code': inject[0], 'message': inject[1]}}
        self._agent({'thinking': think or f'[LAST ACTION: {self.prev}]->Next: {tool}', 'action_type': 'tool_call', 'content': tool, 'tool_args': args}, {'toolResult': res})
        self.prev = tool; self.last = res; return self

    def lookup(self): return self.t('lookup_account', {'phone': self.phone}, think=f'[LAST ACTION: none][HAVE: caller ID {self.phone}]->Next: lookup_account to verify')

    def _run(self, tool, a):
        def err(code, msg): return {'ok': False, 'tool': tool, 'error': {'code': code, 'message': msg}}
        def ok(data): return {'ok': True, 'tool': tool, 'data': data}
        accts = {self.C: self.chk, self.S: self.sav}
        if tool != 'lookup_account' and tool != 'transfer_to_human' and not self.verified:
            return err('NOT_VERIFIED', 'verify the customer with lookup_account first')
        if tool == 'lookup_account':
            if re.sub(r'\D', '', a['phone']) != re.sub(r'\D', '', self.phone): return err('NOT_FOUND', 'no customer with that phone number')
            self.verified = True
            return ok({'customer_id': self.cus, 'name': self.name, 'verified': True,
                       'accounts': [{'account_id': x['account_id'], 'type': x['type'], 'balance': x['balance']} for x in (self.chk, self.sav)],
                       'cards': [{'card_id': self.K, 'last4': self.card['last4'], 'status': self.card['status']}]})
        if tool == 'get_transactions':
            if a['account_id'] not in accts: return err('NOT_FOUND', f"no account {a['account_id']}")
            x = accts[a['account_id']]
            return ok({'account_id': x['account_id'], 'transactions': [dict(t) for t in x['txns'][:a.get('limit', 5)]]})
        if tool == 'dispute_charge':
            if a['account_id'] not in accts: return err('NOT_FOUND', f"no account {a['account_id']}")
            cands = [t for t in accts[a['account_id']]['txns'] if t['direction'] == 'debit']
            norm = lambda s: re.sub(r'[^a-z0-9]', '', s.lower())
            if 'transaction_id' in a: cands = [t for t in cands if t['transaction_id'] == a['transaction_id']]
            elif 'merchant' not in a and 'amount' not in a: return err('INVALID_ARGUMENTS', 'identify the charge: transaction_id, or merchant and/or amount')
            if 'merchant' in a:
                m = norm(a['merchant']); cands = [t for t in cands if m in norm(t['merchant']) or norm(t['merchant']) in m]
            if 'amount' in a: cands = [t for t in cands if abs(t['amount'] - a['amount']) < 0.005]
            if a['reason'] == 'duplicate' and len(cands) == 2 and cands[0]['merchant'] == cands[1]['merchant'] and cands[0]['amount'] == cands[1]['amount']:
                cands = cands[:1]
            if not cands: return err('NOT_FOUND', 'no matching charge on this account')
            if len(cands) > 1: return err('AMBIGUOUS', f'{len(cands)} charges match; give the transaction_id')
            t = cands[0]
            if t['transaction_id'] in self.disputes: return err('NOT_ALLOWED', 'this charge is already disputed')
            self.disputes.append(t['transaction_id'])
            return ok({'dispute_id': self.nid('dsp'), 'transaction_id': t['transaction_id'], 'merchant': t['merchant'], 'amount': t['amount'],
                       'status': 'filed', 'provisional_credit': t['amount'] <= 500})
        if tool == 'check_card_status':
            if a['card_id'] != self.K: return err('NOT_FOUND', f"no card {a['card_id']}")
            c = self.card; un = False
            if a.get('unblock') and c['status'] == 'blocked' and c['block'] == 'fraud_hold':
                c['status'] = 'active'; c['block'] = None; un = True
            return ok({'card_id': self.K, 'last4': c['last4'], 'status': c['status'], 'last_decline': dict(c['decline']) if c['decline'] else None, 'unblocked': un})
        if tool == 'transfer_funds':
            if a['from_account_id'] == a['to_account_id']: return err('NOT_ALLOWED', 'source and destination are the same account')
            for k in ('from_account_id', 'to_account_id'):
                if a[k] not in accts: return err('NOT_FOUND', f'no account {a[k]}')
            f, to = accts[a['from_account_id']], accts[a['to_account_id']]
            if f['balance'] < a['amount']: return err('INSUFFICIENT_FUNDS', f"balance {f['balance']:.2f} is below {a['amount']:.2f}")
            f['balance'] = round(f['balance'] - a['amount'], 2); to['balance'] = round(to['balance'] + a['amount'], 2)
            return ok({'transfer_id': self.nid('trf'), 'from_account_id': f['account_id'], 'to_account_id': to['account_id'], 'amount': a['amount'],
                       'balances': {f['account_id']: f['balance'], to['account_id']: to['balance']}})
        if tool == 'transfer_to_human':
            d = a.get('department', 'general')
            return ok({'ticket_id': self.nid('tkt'), 'department': d, 'wait_minutes': 2 if d == 'fraud' else 6})
        raise ValueError(tool)

    def data(self, key=None):
        assert self.last['ok'], self.last
        return self.last['data'] if key is None else self.last['data'][key]

    def label(self, resolved, tier):
        self.labels = (resolved, tier); return self

    def out(self):
        last = [t for t in self.tr['turns'] if t['role'] == 'agent'][-1]
        self.tr['endReason'] = 'end_call' if last['action'] and last['action']['action_type'] == 'end_call' else 'turn_limit'
        resolved, tier = self.labels
        hall = any(c['hallucination'] for c in self.claims)
        assert self.claims, self.id
        assert (tier >= 3) == resolved or (tier == 1 and resolved and hall) or (tier == 1 and not resolved), self.id
        if hall: assert tier == 1, self.id
        return {'id': self.id, 'note': f'[{self.stratum}] {self.note}', 'transcript': self.tr,
                'labels': {'resolved': resolved, 'tier': tier, 'hallucination': hall, 'claims': self.claims}}
