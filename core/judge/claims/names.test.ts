import { describe, expect, it } from 'vitest';
import { findHallucinations } from '.';
import { LOOKUP, customer, end, say, transcript } from '../../../test/support/judge-fixtures';

describe('id claims', () => {
  it('reads a field name (card_id) as a raw dump, not an id; an invented id is still one', () => {
    const t = (text: string) => findHallucinations(transcript('check_card_status', [customer('Card?'), LOOKUP, say(text), end()])).map((f) => f.kind);
    expect(t('card_id card_c1, status blocked.')).toEqual([]);
    expect(t('Your reference is tkt_zz9.')).toEqual(['id']);
  });
});
